/**
 * Traces for the SQL proofs: whole-ms times that never decrease, over a few keys or many, with
 * equal times (same key and across keys), steps exactly a window long, minute-long gaps (nginx's
 * zone expiry, Traefik's idle reset) and jumps across UTC month and year ends; starting at 0 or at
 * an epoch time, on a second's edge or 1 ms off one.
 */
import fc from 'fast-check';

export interface Row {
  /** Whole ms, non-decreasing in row order. */
  t: number;
  key: string;
  /** The recorded status (200, 429, 503 …). */
  status: number;
  /** The row's place in the log, a tie-break for equal times. */
  seq: number;
}

/** 2023-12-31T23:59:58Z: a start two seconds before a month and a year end. */
export const NEAR_YEAR_END_MS = 1_704_067_198_000;

const step = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 40 }) },
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 1500 }) },
  { weight: 2, arbitrary: fc.constantFrom(1, 2, 7, 10, 100, 250, 999, 1000, 1001, 60_000) },
  { weight: 1, arbitrary: fc.integer({ min: 59_000, max: 130_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 * 86_400_000 }) },
);

/** Traces of 1–120 requests; `size` as fast-check's (the SQL proofs ask for 'max': few, full cases). */
export const tracesOf = (size: fc.SizeForArbitrary = 'small'): fc.Arbitrary<Row[]> =>
  fc
    .record({
      keyCount: fc.constantFrom(1, 2, 5, 40),
      steps: fc.array(fc.tuple(step, fc.nat(), fc.constantFrom(200, 200, 200, 404, 429, 503)), {
        minLength: 1,
        maxLength: 120,
        size,
      }),
      start: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 0, max: 5000 }),
        fc.constant(NEAR_YEAR_END_MS),
        // 1 ms before the year's (and its last minute's, second's) end, and 1 ms after a second's
        // start: windows placed from the first request would be off the clock's.
        fc.constant(NEAR_YEAR_END_MS + 1_999),
        fc.constant(NEAR_YEAR_END_MS + 1),
        fc.integer({ min: 1_600_000_000_000, max: 1_800_000_000_000 }),
      ),
    })
    .map(({ keyCount, steps, start }) => {
      let t = start;
      return steps.map(([dt, k, status], seq) => {
        t += dt;
        return { t, key: `k${k % keyCount}`, status, seq };
      });
    });

export const traceArb = tracesOf();

/** Rows grouped by key, each key's times in row order. */
export function byKey(rows: readonly Row[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  for (const r of rows) {
    const list = m.get(r.key);
    if (list === undefined) m.set(r.key, [r.t]);
    else list.push(r.t);
  }
  return m;
}
