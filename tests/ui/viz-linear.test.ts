import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { scaleLinear } from 'd3-scale';
import { linearScale } from '../../src/viz/linear';

// The views' own linear scale must draw every coordinate exactly where d3-scale's would: the
// screenshots and the SVG snapshots were made with d3-scale.
const finite = fc.double({ min: -1e7, max: 1e7, noNaN: true, noDefaultInfinity: true });

describe('linearScale', () => {
  it('maps, inverts and ticks exactly as d3-scale scaleLinear, with and without clamping', () => {
    fc.assert(
      fc.property(
        finite,
        finite,
        finite,
        finite,
        fc.array(finite, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        (d0, d1, r0, r1, xs, clamp, count) => {
          const ours = linearScale([d0, d1], [r0, r1], clamp);
          const d3 = scaleLinear().domain([d0, d1]).range([r0, r1]).clamp(clamp);
          for (const x of xs) {
            expect(Object.is(ours(x), d3(x)) || ours(x) === d3(x)).toBe(true);
            expect(Object.is(ours.invert(x), d3.invert(x)) || ours.invert(x) === d3.invert(x)).toBe(
              true,
            );
          }
          // d3-array's ticks throws on spans near the smallest double; the two must agree there too.
          const ticks = (f: () => number[]) => {
            try {
              return f();
            } catch (error) {
              return String(error);
            }
          };
          expect(ticks(() => ours.ticks(count))).toEqual(ticks(() => d3.ticks(count)));
          expect(ours.domain()).toEqual(d3.domain());
          expect(ours.range()).toEqual(d3.range());
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a reversed domain and an empty one (d0 = d1) behave as d3-scale: the latter maps to the middle', () => {
    const rev = linearScale([10, 0], [0, 100]);
    expect(rev(2.5)).toBe(scaleLinear().domain([10, 0]).range([0, 100])(2.5));
    expect(rev(2.5)).toBe(75);
    const flat = linearScale([5, 5], [0, 100]);
    expect(flat(123)).toBe(50);
    expect(flat(123)).toBe(scaleLinear().domain([5, 5]).range([0, 100])(123));
    expect(linearScale([0, 10], [0, 100], true)(20)).toBe(100);
    expect(linearScale([0, 10], [0, 100], true).invert(-50)).toBe(0);
    expect(linearScale([0, 10], [0, 100]).invert(-50)).toBe(-5);
  });
});
