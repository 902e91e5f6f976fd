/**
 * The request-flow strip at any rate: `requestsNear` hands the strip the past (not only the rows
 * on their way in), and `flowCounts` gives the strip's counts exactly, from the lane's columns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SimLimiter, SimResult } from '../../src/sim';
import {
  MAX_ROWS,
  flowCounts,
  requestCounter,
  requestsCompleteFromMs,
  requestsNear,
} from '../../src/ui/stage/requests';
import { FLOW_LINGER_MS, MAX_INCOMING, flowPhase } from '../../src/viz/requests';
import type { FlowCounts, VizRequest } from '../../src/viz';
import { run } from './sim-fixtures';

const TRAVEL = 400;

/** The strip's counts as it counts them from a full list of rows (RequestFlow's own rule). */
function countedFromRows(rows: readonly VizRequest[], nowMs: number, travelMs = TRAVEL) {
  const counts: FlowCounts = { passed: 0, waiting: 0, rejected: 0, incoming: 0, nextOutInMs: null };
  for (const r of rows) {
    const p = flowPhase(r, nowMs, travelMs, FLOW_LINGER_MS);
    if (p === null) continue;
    if (p.phase === 'incoming') counts.incoming += 1;
    else if (p.phase === 'waiting') {
      counts.waiting += 1;
      counts.nextOutInMs = Math.min(counts.nextOutInMs ?? Infinity, p.leftMs);
    } else if (p.phase === 'bounce' || p.phase === 'at-client') counts.rejected += 1;
    else counts.passed += 1;
  }
  return counts;
}

/** Every row of the lane, as the views draw them (no cut). */
function allRows(result: SimResult, lane: number): VizRequest[] {
  const rows = result.lanes[lane]?.columns.rows ?? 0;
  // From just before 0, every row is ahead: hand them all out, none cut.
  return requestsNear(result, lane, -1, 1e9, rows, rows);
}

const oneSecond = (ratePerSec: number) => [
  { kind: 'constant' as const, ratePerSec, startMs: 0, endMs: 4000 },
];

describe('requestsNear at a high rate', () => {
  const result = run([{ kind: 'fixed-window', limit: 100, windowMs: 1000 }], oneSecond(1000), 4000);

  it('hands the strip the newest past rows and only the rows ahead it draws', () => {
    const rows = requestsNear(result, 0, 2000, TRAVEL);
    const ahead = rows.filter((r) => r.arrivalMs > 2000);
    const past = rows.filter((r) => r.arrivalMs <= 2000);
    expect(rows).toHaveLength(MAX_ROWS);
    expect(ahead).toHaveLength(MAX_INCOMING);
    // The nearest to the limiter: the first rows after now.
    expect(ahead.map((r) => r.arrivalMs)).toEqual(
      Array.from({ length: MAX_INCOMING }, (_, k) => 2001 + k),
    );
    expect(past).toHaveLength(MAX_ROWS - MAX_INCOMING);
    expect(past.at(-1)?.arrivalMs).toBe(2000);
    // Both outcomes are in the past the strip is given (the old code gave it none).
    expect(new Set(past.map((r) => r.outcome))).toEqual(new Set(['admit', 'reject']));
    // Complete from just after the oldest row kept.
    expect(requestsCompleteFromMs(result, 0, 2000, TRAVEL)).toBe((past[0]?.arrivalMs ?? 0) + 1);
  });
});

describe('requestCounter', () => {
  const limiters: SimLimiter[] = [
    { kind: 'leaky-bucket', rate: 100, rateUnit: 'r/s', burst: 20, delay: 10 },
    { kind: 'fixed-window', limit: 100, windowMs: 1000 },
  ];
  const result = run(
    limiters,
    [{ kind: 'poisson', ratePerSec: 2000, startMs: 0, endMs: 4000 }],
    4000,
  );
  const rows = limiters.map((_, lane) => allRows(result, lane));

  it('counts a lane’s requests by outcome over any time range, exactly, on the views’ clock', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1 }),
        fc.integer({ min: -100, max: 4100 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: -500, max: 500 }),
        (lane, fromMs, lengthMs, offsetMs) => {
          const count = requestCounter(result, lane, offsetMs, true);
          const toMs = fromMs + lengthMs;
          const inRange = (rows[lane] ?? []).filter(
            (r) => r.arrivalMs + offsetMs >= fromMs && r.arrivalMs + offsetMs < toMs,
          );
          const of = (o: string) => inRange.filter((r) => r.outcome === o).length;
          expect(count?.('client-1', fromMs, toMs)).toEqual({
            admitted: of('admit'),
            delayed: of('delay'),
            rejected: of('reject'),
          });
          // Another key's requests are not this lane's to count.
          expect(count?.('other', fromMs, toMs)).toBeNull();
        },
      ),
      { numRuns: 300, seed: 15 },
    );
    expect(rows[0]?.some((r) => r.outcome === 'delay')).toBe(true);
  });

  it('gives nothing where it could not be exact and cheap: several keys, or one instance', () => {
    expect(requestCounter(result, 0, 0, false)).toBeUndefined();
    const twoKeys = run(limiters, oneSecond(100), 4000, {
      clients: { count: 2, keying: 'per-client', assign: 'round-robin' },
    });
    expect(twoKeys.keyNames).toHaveLength(2);
    expect(requestCounter(twoKeys, 0, 0, true)).toBeUndefined();
  });
});

describe('flowCounts', () => {
  it('at 1,000 r/s: what the whole lane says, where the rows handed out fall short', () => {
    const result = run(
      [{ kind: 'fixed-window', limit: 100, windowMs: 1000 }],
      oneSecond(1000),
      4000,
    );
    const counts = flowCounts(result, 0, 2500, TRAVEL);
    // One request a ms. At 2500 the strip counts arrivals 1801–2500 (700 ms): the window
    // [2000, 3000) admitted 2000–2099 and rejected the rest; [1000, 2000) was full by 1099.
    expect(counts).toEqual({
      passed: 100,
      waiting: 0,
      rejected: 600,
      incoming: 400,
      nextOutInMs: null,
    });
    expect(counts).toEqual(countedFromRows(allRows(result, 0), 2500));
    // What the cut rows alone would say is wrong: the test above is not vacuous.
    expect(countedFromRows(requestsNear(result, 0, 2500, TRAVEL), 2500)).not.toEqual(counts);
  });

  const limiters: SimLimiter[] = [
    { kind: 'leaky-bucket', rate: 100, rateUnit: 'r/s', burst: 20, delay: 10 },
    {
      kind: 'token-bucket',
      maxTokens: 50,
      tokensPerFill: 100,
      fillIntervalMs: 1000,
      maxDelayMs: 300,
    },
    { kind: 'gcra', count: 100, periodMs: 1000, burst: 20 },
    { kind: 'sliding-window-counter', limit: 100, windowMs: 1000 },
  ];
  const results = [
    run(limiters, oneSecond(700), 4000),
    run(limiters, [{ kind: 'poisson', ratePerSec: 3000, startMs: 0, endMs: 4000 }], 4000),
    run(limiters, oneSecond(900), 4000, {
      deployment: { instances: 3, balancer: 'round-robin', state: 'local', roundTripMs: 5 },
    }),
  ];
  const full = results.map((r) => limiters.map((_, lane) => allRows(r, lane)));

  it('equal the strip’s own counts at the moments a delayed request leaves or stops being drawn', () => {
    for (const lane of [0, 1]) {
      const rows = (full[0]?.[lane] ?? []).filter((r) => r.outcome === 'delay').slice(0, 12);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        for (const nowMs of [r.releaseMs - 1, r.releaseMs, r.releaseMs + 699, r.releaseMs + 700]) {
          expect(flowCounts(results[0] as SimResult, lane, nowMs, TRAVEL)).toEqual(
            countedFromRows(full[0]?.[lane] ?? [], nowMs),
          );
        }
      }
    }
  });

  it('equal the strip’s own counts over every row, at any time, lane and instance', () => {
    // Each lane delays (nginx, token bucket), admits and rejects somewhere in these runs.
    expect(full[0]?.[0]?.some((r) => r.outcome === 'delay')).toBe(true);
    expect(full[1]?.[1]?.some((r) => r.outcome === 'delay')).toBe(true);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: results.length - 1 }),
        fc.integer({ min: 0, max: limiters.length - 1 }),
        // Whole ms (the page's times: the boundaries are hit) and between them.
        fc.oneof(
          fc.integer({ min: -500, max: 4600 }),
          fc.double({ min: -500, max: 4600, noNaN: true }),
        ),
        fc.integer({ min: 1, max: 900 }),
        fc.option(fc.integer({ min: 0, max: 2 })),
        (run, lane, nowMs, travelMs, instance) => {
          const result = results[run] as SimResult;
          const c = result.lanes[lane]?.columns;
          const rows = (full[run]?.[lane] ?? []).filter(
            (r) => instance === null || c?.instance[r.id] === instance,
          );
          const counts = flowCounts(
            result,
            lane,
            nowMs,
            travelMs,
            FLOW_LINGER_MS,
            instance ?? undefined,
          );
          expect(counts).toEqual(countedFromRows(rows, nowMs, travelMs));
        },
      ),
      { numRuns: 400, seed: 15 },
    );
  });
});
