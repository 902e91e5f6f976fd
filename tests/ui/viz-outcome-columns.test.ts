/**
 * `outcomeColumns` finds each column's run of rows by galloping over `columnOf` instead of calling
 * it per row: its counts, totals and largest count are those of the plain per-row
 * reduction, for any rows in time order, any range (fractional ends included) and any width.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LaneColumns } from '../../src/sim';
import { columnOf, outcomeColumns } from '../../src/viz/laneSeries';

/** The per-row reduction, as it was: one `columnOf` per row. */
function perRow(
  columns: LaneColumns,
  start: number,
  end: number,
  fromMs: number,
  toMs: number,
  n: number,
) {
  const counts = [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
  const totals = [0, 0, 0];
  let maxCount = 0;
  for (let r = start; r < end; r += 1) {
    const o = columns.outcome[r] as 0 | 1 | 2;
    const c = columnOf(columns.arrivalMs[r] as number, fromMs, toMs, n);
    const v = (counts[o]?.[c] as number) + 1;
    (counts[o] as Uint32Array)[c] = v;
    totals[o] = (totals[o] as number) + 1;
    if (v > maxCount) maxCount = v;
  }
  return { counts, totals, maxCount };
}

/**
 * A lane of these rows. Its outcome column starts `shift` bytes into its buffer (a column from the
 * worker or the pool is a view at any offset): the counting reads whole 32-bit words from the
 * first multiple of 4, and single bytes before and after.
 */
function lane(times: number[], outcomes: number[], shift = 0): LaneColumns {
  const rows = times.length;
  // The buffer around the column holds rejects, and the column is longer than its rows (as a
  // recycled column is) with more after them: a read outside the rows changes the counts.
  const buffer = new Uint8Array(shift + rows + 11).fill(2);
  const outcome = buffer.subarray(shift, shift + rows + 5);
  outcome.set(outcomes);
  return {
    rows,
    arrivalMs: Int32Array.from(times),
    origin: new Int32Array(rows),
    attempt: new Uint8Array(rows).fill(1),
    outcome,
    instance: new Uint8Array(rows),
    waitMs: new Int32Array(rows),
    remaining: new Int32Array(rows),
    resetMs: new Int32Array(rows),
  };
}

describe('outcomeColumns', () => {
  it('counts as the per-row reduction does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 })), {
          maxLength: 400,
        }),
        fc.double({ min: -100, max: 5000, noNaN: true }),
        fc.double({ min: 0.5, max: 6000, noNaN: true }),
        fc.integer({ min: 1, max: 1500 }),
        fc.integer({ min: 0, max: 7 }),
        (rows, fromMs, spanMs, cols, shift) => {
          rows.sort((a, b) => a[0] - b[0]);
          const columns = lane(
            rows.map((r) => r[0]),
            rows.map((r) => r[1]),
            shift,
          );
          const toMs = fromMs + spanMs;
          const got = outcomeColumns(columns, fromMs, toMs, cols);
          const want = perRow(columns, got.start, got.end, fromMs, toMs, got.cols);
          expect(got.counts).toEqual(want.counts);
          expect(got.totals).toEqual(want.totals);
          expect(got.maxCount).toBe(want.maxCount);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('counts a dense lane (many rows a column, runs of one time) as the per-row reduction does', () => {
    const times: number[] = [];
    const outcomes: number[] = [];
    for (let i = 0; i < 50_000; i += 1) {
      times.push(Math.floor(i / 7));
      outcomes.push((i * 7919) % 3);
    }
    for (const [fromMs, toMs, cols, shift] of [
      [0, 7143, 1000, 0],
      [12.5, 3000.25, 777, 1],
      [100, 101, 5, 2],
      [0, 7143, 1, 3],
    ] as const) {
      const columns = lane(times, outcomes, shift);
      const got = outcomeColumns(columns, fromMs, toMs, cols);
      const want = perRow(columns, got.start, got.end, fromMs, toMs, got.cols);
      expect(got.counts).toEqual(want.counts);
      expect(got.totals).toEqual(want.totals);
      expect(got.maxCount).toBe(want.maxCount);
      expect(got.end - got.start).toBeGreaterThan(0);
    }
  });
});
