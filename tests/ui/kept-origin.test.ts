/**
 * What a kept trace says it was read from, read back from storage with care
 * (src/store/traceKeep.ts `originOf`): a span of a file too large to hold is kept with its ends,
 * and anything that is not a span (half of one, reversed, not whole epoch ms) is left out.
 */
import { describe, expect, it } from 'vitest';
import { originOf } from '../../src/store/traceKeep';

const base = { name: 'big.log', bytes: 1_500_000_000 };
const span = { spanFromMs: 1_767_571_200_000, spanToMs: 1_767_657_600_000 };

describe('a kept trace read from a span of its file', () => {
  it('keeps the span it names', () => {
    expect(originOf({ ...base, ...span })).toEqual({ ...base, ...span });
    expect(originOf(base)).toEqual(base);
  });

  it.each([
    { spanFromMs: span.spanFromMs },
    { spanToMs: span.spanToMs },
    { spanFromMs: span.spanToMs, spanToMs: span.spanFromMs },
    { spanFromMs: span.spanFromMs, spanToMs: span.spanFromMs },
    { spanFromMs: -1, spanToMs: span.spanToMs },
    { spanFromMs: 0.5, spanToMs: span.spanToMs },
    { spanFromMs: '1767571200000', spanToMs: span.spanToMs },
    { spanFromMs: 0, spanToMs: 9e15 },
  ])('leaves out a stored span that is not one: %o', (stored) => {
    expect(originOf({ ...base, ...stored })).toEqual(base);
  });
});
