/**
 * The timeline's dense bars: one outline per run of adjacent bars must cover exactly the
 * pixel columns a rectangle per bar covered, each to the same top.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { barsPath } from '../../src/viz/Timeline';
import { px } from '../../src/viz/format';

/**
 * Walks an outline made of `M x,y`, `V y`, `h1` and `Z` only: for each `h1` taken along a top (not
 * on the base line), the column it spans and its y. Throws on any other command, on a subpath that
 * does not start and end on the base line, or on a column drawn twice.
 */
function columnsOf(d: string, base: number): Map<number, number> {
  const tops = new Map<number, number>();
  let x = NaN;
  let y = NaN;
  let open = false;
  for (const [, cmd, arg] of d.matchAll(/([MVhZ])([^MVhZ]*)/g)) {
    if (cmd === 'M') {
      expect(open).toBe(false);
      const [mx, my] = (arg as string).split(',').map(Number);
      [x, y, open] = [mx as number, my as number, true];
      expect(y).toBe(base);
    } else if (cmd === 'V') y = Number(arg);
    else if (cmd === 'h') {
      expect(arg).toBe('1');
      expect(y).not.toBe(base);
      expect(tops.has(x)).toBe(false);
      tops.set(x, y);
      x += 1;
    } else {
      expect(y).toBe(base);
      open = false;
    }
  }
  expect(open).toBe(false);
  return tops;
}

describe('barsPath', () => {
  it('covers each non-empty column once, to its top, and no empty one (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 20, max: 900 }),
        fc.array(fc.oneof(fc.constant(0), fc.double({ min: 2, max: 30, noNaN: true })), {
          maxLength: 300,
        }),
        (left, bottom, heights) => {
          const d = barsPath(left, bottom, heights);
          const tops = columnsOf(d, bottom);
          const expected = new Map<number, number>();
          heights.forEach((h, col) => {
            // The rectangle per bar the timeline drew before: `M x,bottom h1 v-h h-1 Z`.
            if (h > 0) expected.set(left + col, px(bottom) + px(-h));
          });
          expect([...tops.keys()].sort((a, b) => a - b)).toEqual(
            [...expected.keys()].sort((a, b) => a - b),
          );
          for (const [x, top] of expected) expect(tops.get(x)).toBeCloseTo(top, 9);
        },
      ),
    );
  });

  it('joins adjacent bars and leaves gaps between runs', () => {
    expect(barsPath(26, 100, [0, 5, 10, 0, 0, 2])).toBe('M27,100V95h1V90h1V100ZM31,100V98h1V100Z');
    expect(barsPath(26, 100, [0, 0])).toBe('');
  });
});
