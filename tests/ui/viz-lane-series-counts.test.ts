/**
 * The charts' series with the counts the simulation already made: `passedTimes` and
 * `delaysOf` given a lane's count equal their own counting, and a wrong count is noticed; the peak
 * chart's busiest W from `lane.metrics` is the one `peakWindow` finds in the passed times, and its
 * rolling count straight from the rows is the one made from an array of passed times.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultScenario, peakWindow, simulate } from '../../src/sim';
import type { LaneColumns } from '../../src/sim';
import { delaysOf, passedTimes, rollingMax, rollingMaxPassed } from '../../src/viz/charts/series';

function lane(rows: Array<[number, number, number]>): LaneColumns {
  const n = rows.length;
  return {
    rows: n,
    arrivalMs: Int32Array.from(rows, (r) => r[0]),
    origin: Int32Array.from(rows, (_, i) => i),
    attempt: new Uint8Array(n).fill(1),
    outcome: Uint8Array.from(rows, (r) => r[1]),
    instance: new Uint8Array(n),
    waitMs: Int32Array.from(rows, (r) => (r[1] === 0 ? 0 : r[2])),
    remaining: new Int32Array(n),
    resetMs: new Int32Array(n),
  };
}

const rowsArb = fc
  .array(
    fc.tuple(
      fc.integer({ min: 0, max: 5000 }),
      fc.integer({ min: 0, max: 2 }),
      fc.integer({ min: 1, max: 900 }),
    ),
    { maxLength: 300 },
  )
  .map((rows) => rows.sort((a, b) => a[0] - b[0]));

describe('chart series with known counts', () => {
  it('passedTimes with the right count, a wrong one or none gives the same times', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 0, max: 400 }), (rows, wrong) => {
        const c = lane(rows);
        const own = passedTimes(c);
        expect([...own]).toEqual(rows.filter((r) => r[1] !== 2).map((r) => r[0]));
        expect(passedTimes(c, own.length)).toEqual(own);
        expect(passedTimes(c, wrong)).toEqual(own);
      }),
    );
  });

  it('delaysOf with the right count, a wrong one or none gives the same waits', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 400 }), (rows, wrong) => {
        const c = lane(rows);
        const own = delaysOf(c);
        expect([...own]).toEqual(rows.filter((r) => r[1] === 1).map((r) => r[2]));
        expect(delaysOf(c, own.length)).toEqual(own);
        expect(delaysOf(c, wrong)).toEqual(own);
      }),
    );
  });

  it('rollingMaxPassed equals rollingMax over the passed times, for any range, W and width', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 1, max: 3000 }),
        fc.double({ min: -500, max: 5000, noNaN: true }),
        fc.double({ min: 0.5, max: 6000, noNaN: true }),
        fc.integer({ min: 1, max: 700 }),
        (rows, W, fromMs, spanMs, cols) => {
          const c = lane(rows);
          const toMs = fromMs + spanMs;
          expect(rollingMaxPassed(c, W, fromMs, toMs, cols)).toEqual(
            rollingMax(passedTimes(c), W, fromMs, toMs, cols),
          );
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a simulated lane’s counts and busiest W are those of its rows', () => {
    const scenario = {
      ...defaultScenario(),
      sources: [{ kind: 'poisson' as const, ratePerSec: 200, startMs: 0, endMs: 10_000 }],
    };
    const result = simulate(
      [
        { kind: 'leaky-bucket', rate: 50, rateUnit: 'r/s', burst: 20, delay: 5 },
        { kind: 'fixed-window', limit: 40, windowMs: 1000 },
      ],
      { ...scenario, retry: { ...scenario.retry, onReject: 'immediate', maxAttempts: 3 } },
      10_000,
    );
    for (const l of result.lanes) {
      const { total, delay, peakPassed } = l.metrics;
      const passed = passedTimes(l.columns);
      expect(passed.length).toBe(total.admitted + total.delayed);
      expect(delaysOf(l.columns).length).toBe(delay.count);
      expect(peakWindow(passed, passed.length, peakPassed.windowMs)).toEqual(peakPassed);
    }
    expect(result.lanes[0]?.metrics.delay.count).toBeGreaterThan(0);
    expect(result.lanes.some((l) => l.metrics.retries.offered > 0)).toBe(true);
  });
});
