/**
 * laneMetrics' lean loop (a 1,000,000-arrival edit): when a lane's rows are the first
 * attempts one for one (its arrival column is the arrivals' own) and one client sent them all, it
 * counts per bin in locals and fills the per-key and per-client counts at the end. Its metrics must
 * be those of the general loop, which runs on the same rows given as a copy of the column. The
 * rejected and delayed counts simulate's loop hands over (LaneRunStats) change nothing either.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultScenario, simulate } from '../../src/sim';
import type { ArrivalTable, LaneColumns } from '../../src/sim';
import { laneMetrics } from '../../src/sim/metrics';
import type { LaneMetricsInput } from '../../src/sim/metrics';

function inputs(
  times: number[],
  outcomes: number[],
  waits: number[],
  untilMs: number,
  binMs: number,
  windowMs: number,
): { lean: LaneMetricsInput; general: LaneMetricsInput } {
  const rows = times.length;
  const arrivals: ArrivalTable = {
    count: rows,
    timeMs: Int32Array.from(times),
    client: new Uint16Array(rows),
    source: new Uint8Array(rows),
  };
  const columns: LaneColumns = {
    rows,
    arrivalMs: arrivals.timeMs,
    origin: Int32Array.from(times, (_, i) => i),
    attempt: new Uint8Array(rows).fill(1),
    outcome: Uint8Array.from(outcomes),
    instance: new Uint8Array(rows),
    waitMs: Int32Array.from(waits),
    remaining: new Int32Array(rows),
    resetMs: new Int32Array(rows),
  };
  const base = {
    arrivals,
    clientKey: new Uint16Array(1),
    keyCount: 1,
    clientCount: 1,
    untilMs,
    binMs,
    windowMs,
    stats: {
      gaveUp: 0,
      passedOnRetry: 0,
      retriesAfterEnd: 0,
      state: {
        peakBytes: 0,
        peakEntries: 0,
        peakAtMs: 0,
        endBytes: 0,
        endEntries: 0,
        perKeyPeakBytes: new Float64Array(1),
        perKeyPeakEntries: new Float64Array(1),
      },
    },
  };
  return {
    lean: { ...base, columns },
    // A copy of the arrival column: not the arrivals' own, so the general loop runs.
    general: { ...base, columns: { ...columns, arrivalMs: columns.arrivalMs.slice() } },
  };
}

/**
 * `actual` deep-equals `expected`, typed arrays compared as whole buffers (node's
 * isDeepStrictEqual, stricter than toEqual: prototypes, -0 and undefined fields count). toEqual
 * walks a typed array element by element, which at 1 ms bins was most of this file's time; it runs
 * only on a mismatch, to print the difference.
 */
function expectSame(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toEqual(expected);
  expect(isDeepStrictEqual(actual, expected)).toBe(true);
}

describe('laneMetrics, lean loop', () => {
  it('gives the general loop’s metrics for any first-attempt rows of one client', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 3000 }),
            fc.integer({ min: 0, max: 2 }),
            fc.integer({ min: 1, max: 2000 }),
          ),
          { maxLength: 300 },
        ),
        fc.integer({ min: 1, max: 4000 }),
        fc.constantFrom(1, 7, 100, 250.5),
        fc.integer({ min: 1, max: 1500 }),
        (rows, untilMs, binMs, windowMs) => {
          rows.sort((a, b) => a[0] - b[0]);
          const kept = rows.filter((r) => r[0] < untilMs);
          const { lean, general } = inputs(
            kept.map((r) => r[0]),
            kept.map((r) => r[1]),
            kept.map((r) => (r[1] === 0 ? 0 : r[2])),
            untilMs,
            binMs,
            windowMs,
          );
          const expected = laneMetrics(general);
          expectSame(laneMetrics(lean), expected);
          // The loop's own counts skip the counting pass; wrong ones are noticed.
          const rejected = kept.filter((r) => r[1] === 2).length;
          const delayed = kept.filter((r) => r[1] === 1).length;
          for (const counts of [
            { rejected, delayed },
            { rejected: rejected + 1, delayed },
            { rejected, delayed: Math.max(0, delayed - 1) },
          ]) {
            for (const input of [lean, general]) {
              const stats = { ...input.stats, ...counts };
              expectSame(laneMetrics({ ...input, stats }), expected);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives the general loop’s metrics for simulated lanes (delays, rejections, many bins)', () => {
    const scenario = {
      ...defaultScenario(),
      sources: [{ kind: 'poisson' as const, ratePerSec: 300, startMs: 0, endMs: 20_000 }],
    };
    const result = simulate(
      [
        { kind: 'token-bucket', maxTokens: 20, tokensPerFill: 50, fillIntervalMs: 1000 },
        { kind: 'leaky-bucket', rate: 100, rateUnit: 'r/s', burst: 30, delay: 10 },
      ],
      scenario,
      20_000,
    );
    for (const lane of result.lanes) {
      expect(lane.columns.arrivalMs).toBe(result.arrivals.timeMs);
      const input = {
        columns: { ...lane.columns, arrivalMs: lane.columns.arrivalMs.slice() },
        arrivals: result.arrivals,
        clientKey: result.clientKey,
        keyCount: result.keyNames.length,
        clientCount: result.clientKey.length,
        untilMs: lane.completeUntilMs,
        binMs: lane.metrics.bins.binMs,
        windowMs: lane.metrics.peakPassed.windowMs,
        stats: {
          gaveUp: lane.metrics.gaveUp,
          passedOnRetry: lane.metrics.passedOnRetry,
          retriesAfterEnd: lane.metrics.retriesAfterEnd,
          state: lane.metrics.state,
        },
      };
      const general = laneMetrics(input);
      expect(general.metrics).toEqual(lane.metrics);
      expect(general.releasesMs).toEqual(lane.releasesMs);
      expect(lane.metrics.delay.count + lane.metrics.total.rejected).toBeGreaterThan(0);
    }
  });
});
