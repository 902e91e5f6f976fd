/**
 * The experiments the articles recommend before production, with exact counts.
 */
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { OUTCOME_REJECT, simulate, stateAt } from '../../src/sim';
import type { Deployment, RetryPolicy } from '../../src/sim';
import { rowsWhere, scenario } from './helpers';

const fixed10: AlgorithmConfig = { kind: 'fixed-window', limit: 10, windowMs: 1000 };
const bucket10: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 10,
  tokensPerFill: 10,
  fillIntervalMs: 1000,
};

describe('boundary burst', () => {
  // 10 requests at 999 ms (the last instant of window 0) and 10 at 1000 ms (the first of window 1).
  const result = simulate(
    [fixed10, { kind: 'sliding-log', limit: 10, windowMs: 1000 }],
    scenario({ sources: [{ kind: 'boundary-burst', boundaryMs: 1000, count: 10 }] }),
    2000,
  );
  const [fixed, log] = result.lanes;

  it('passes 2× the limit through a fixed window within two milliseconds', () => {
    expect(fixed?.metrics.total).toEqual({ offered: 20, admitted: 20, delayed: 0, rejected: 0 });
    expect(fixed?.metrics.peakPassed).toEqual({ windowMs: 1000, count: 20, startMs: 999 });
  });

  it('passes 1× the limit through a sliding log', () => {
    expect(log?.metrics.total).toEqual({ offered: 20, admitted: 10, delayed: 0, rejected: 10 });
    expect(log?.metrics.peakPassed.count).toBe(10);
  });

  it('names the first request the two decide differently: the first one after the boundary', () => {
    expect(result.divergence).toEqual({
      origin: 10,
      atMs: 1000,
      lanes: [0, 1],
      outcomes: ['admit', 'reject'],
    });
  });
});

describe('steady load at 110% of a token bucket', () => {
  it('rejects exactly what the continuous-refill arithmetic predicts, 1 in 11 once the burst is spent', () => {
    // 11 requests/s, evenly spaced (n-th at ⌊n·1000/11⌋ ms), for 60 s into 10 tokens + 10 tokens/s.
    const result = simulate(
      [bucket10],
      scenario({ sources: [{ kind: 'constant', ratePerSec: 11, startMs: 0, endMs: 60_000 }] }),
      60_000,
    );
    // Independent model of Envoy's continuous refill: the bucket never reaches its cap again after
    // the first request (it gains 0.909 tokens per arrival and spends 1), so with A admitted so far
    // there are 10 + t/100 − A tokens at t, and a request is admitted iff A ≤ 9 + ⌊t/100⌋.
    let admitted = 0;
    let rejectedAfterBurst = 0;
    let offeredAfterBurst = 0;
    for (let n = 0; n < 660; n += 1) {
      const t = Math.floor((n * 1000) / 11);
      const ok = admitted <= 9 + Math.floor(t / 100);
      if (ok) admitted += 1;
      if (t >= 10_000) {
        offeredAfterBurst += 1;
        if (!ok) rejectedAfterBurst += 1;
      }
    }
    const lane = result.lanes[0];
    expect(admitted).toBe(609); // 10 from the full bucket + 599 refilled by t = 59,909 ms
    expect(lane?.metrics.total).toEqual({
      offered: 660,
      admitted,
      delayed: 0,
      rejected: 660 - admitted,
    });
    // After the 10-token burst is spent (net drain 1 token/s, so by 10 s): exactly 1 in 11 rejected.
    const cols = lane!.columns;
    const late = rowsWhere(cols, (_, t) => t >= 10_000);
    const lateRejected = late.filter((r) => cols.outcome[r] === OUTCOME_REJECT).length;
    expect(lateRejected).toBe(rejectedAfterBurst);
    expect(lateRejected / late.length).toBeCloseTo(1 / 11, 2);
    expect(late.length).toBe(offeredAfterBurst);
  });

  it('with Poisson arrivals rejects what the token supply cannot cover (seed 1)', () => {
    const result = simulate(
      [bucket10],
      scenario({ sources: [{ kind: 'poisson', ratePerSec: 11, startMs: 0, endMs: 120_000 }] }),
      120_000,
    );
    const m = result.lanes[0]!.metrics.total;
    // At most 10 + 10 tokens/s × 120 s can ever be admitted; Poisson gaps waste some refill while
    // the bucket is full, so slightly more than offered − 1210 are rejected. Seed 1 offers 1289.
    expect(m.admitted).toBeLessThanOrEqual(1210);
    expect(m.rejected).toBeGreaterThanOrEqual(m.offered - 1210);
    expect(m).toEqual({ offered: 1289, admitted: 1187, delayed: 0, rejected: 102 });
  });
});

describe('instances', () => {
  const run = (state: Deployment['state'], roundTripMs = 20) =>
    simulate(
      [fixed10],
      scenario({
        // 100 requests in one window, round-robin over 3 instances.
        sources: [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 1000 }],
        deployment: { instances: 3, balancer: 'round-robin', state, roundTripMs },
      }),
      1000,
    ).lanes[0]!.metrics.total.admitted;

  it('with local state admit N× the limit', () => {
    expect(run('local')).toBe(30);
  });

  it('with shared atomic state admit 1× the limit', () => {
    expect(run('shared-atomic')).toBe(10);
  });

  it('with racy read-then-write admit more than the limit', () => {
    // Requests 10 ms apart, writes landing 20 ms after the read: each read misses the last write.
    expect(run('shared-racy')).toBeGreaterThan(10);
    expect(run('shared-racy')).toBe(20);
  });

  it('with a zero round trip the racy store behaves as the atomic one', () => {
    expect(run('shared-racy', 0)).toBe(10);
  });

  it('all admit at one instant when every read precedes every write', () => {
    const result = simulate(
      [fixed10],
      scenario({
        sources: [{ kind: 'burst', atMs: 0, count: 50 }],
        deployment: { instances: 2, balancer: 'round-robin', state: 'shared-racy', roundTripMs: 1 },
      }),
      1000,
    );
    expect(result.lanes[0]!.metrics.total.admitted).toBe(50);
  });
});

describe('retrying clients', () => {
  const run = (onReject: RetryPolicy['onReject']) =>
    simulate(
      [fixed10],
      scenario({
        sources: [{ kind: 'constant', ratePerSec: 20, startMs: 0, endMs: 10_000 }],
        retry: {
          onReject,
          maxAttempts: 5,
          backoffBaseMs: 100,
          backoffCapMs: 10_000,
          turnaroundMs: 10,
        },
      }),
      12_000,
    ).lanes[0]!.metrics;

  it('that respect Retry-After make fewer attempts than immediate retriers, and more succeed', () => {
    const immediate = run('immediate');
    const polite = run('retry-after');
    expect(polite.total.offered).toBeLessThan(immediate.total.offered);
    expect(polite.passedOnRetry).toBeGreaterThan(immediate.passedOnRetry);
    // Immediate retries land in the same full window: every one of the 100 rejected requests
    // retries 4 times in vain (10 rejected per window × 10 windows).
    expect(immediate.total.offered).toBe(200 + 100 * 4);
    expect(immediate.passedOnRetry).toBe(0);
    expect(immediate.gaveUp).toBe(100);
  });

  it('give up at once with the give-up policy', () => {
    const m = run('give-up');
    expect(m.total.offered).toBe(200);
    expect(m.retries.offered).toBe(0);
    expect(m.gaveUp).toBe(100);
  });

  it('mark retries with their attempt number, never above maxAttempts', () => {
    const result = simulate(
      [fixed10],
      scenario({
        sources: [{ kind: 'burst', atMs: 0, count: 15 }],
        retry: {
          onReject: 'backoff',
          maxAttempts: 3,
          backoffBaseMs: 100,
          backoffCapMs: 400,
          turnaroundMs: 0,
        },
      }),
      10_000,
    );
    const c = result.lanes[0]!.columns;
    const attempts = Array.from(c.attempt.subarray(0, c.rows));
    expect(Math.max(...attempts)).toBeLessThanOrEqual(3);
    // 5 rejected at 0 ms, each retried within the 100 ms jitter ceiling, still inside window 0.
    const second = rowsWhere(c, () => true).filter((r) => c.attempt[r] === 2);
    expect(second).toHaveLength(5);
    for (const r of second) expect(c.arrivalMs[r]).toBeLessThanOrEqual(100);
  });
});

describe('clock jumps', () => {
  // 10 requests at 0 ms empty the bucket; 20 more arrive at 5/s from 1 s to 5 s.
  const run = (mode: 'monotonic' | 'wall') =>
    simulate(
      [bucket10],
      scenario({
        sources: [
          { kind: 'burst', atMs: 0, count: 10 },
          { kind: 'constant', ratePerSec: 5, startMs: 1000, endMs: 5000 },
        ],
        clock: { mode, jumps: [{ atMs: 500, byMs: -10_000 }] },
      }),
      6000,
    );

  it('a monotonic clock refills: every later request passes', () => {
    expect(run('monotonic').lanes[0]!.metrics.total.admitted).toBe(30);
  });

  it('a backward wall-clock jump stalls refill until the clock catches up', () => {
    const result = run('wall');
    expect(result.lanes[0]!.metrics.total).toEqual({
      offered: 30,
      admitted: 10,
      delayed: 0,
      rejected: 20,
    });
    const inspection = stateAt(result, 3000).lanes[0]!.stores[0]!.inspection;
    expect(inspection).toMatchObject({
      kind: 'token-bucket',
      nowMs: -7000,
      effectiveNowMs: 0,
      tokens: 0,
    });
  });

  it('a forward jump hands out a fresh window', () => {
    const run2 = (mode: 'monotonic' | 'wall') =>
      simulate(
        [{ kind: 'fixed-window', limit: 10, windowMs: 60_000 }],
        scenario({
          sources: [
            { kind: 'burst', atMs: 0, count: 10 },
            { kind: 'burst', atMs: 2000, count: 10 },
          ],
          clock: { mode, jumps: [{ atMs: 1000, byMs: 60_000 }] },
        }),
        3000,
      ).lanes[0]!.metrics.total.admitted;
    expect(run2('monotonic')).toBe(10);
    expect(run2('wall')).toBe(20);
  });
});

describe('fleets', () => {
  it('weights 11 : 8 × 11 give the hot replica exactly 1/9 of every 99 requests, so 600/s each bites at 5,400/s', () => {
    const weights = [11, ...Array<number>(11).fill(8)];
    const result = simulate(
      [{ kind: 'fixed-window', limit: 100_000, windowMs: 1000 }],
      scenario({
        sources: [{ kind: 'burst', atMs: 0, count: 990 }],
        deployment: {
          instances: 12,
          balancer: 'weighted',
          state: 'local',
          roundTripMs: 5,
          fleet: { weights },
        },
      }),
      1000,
    );
    const shares = result.lanes[0]?.fleet?.metrics.perReplica.offered;
    expect(shares?.[0]).toBe(110);
    for (let i = 1; i < 12; i += 1) expect(shares?.[i]).toBe(80);
    // 600 ÷ (1/9) = 5,400 = 75% of 12 × 600.
    expect((600 * 990) / 110 / (12 * 600)).toBe(0.75);
  });

  it('a store outage under fail-open passes what the fixed window would have rejected', () => {
    // 150/s for 2 s, limit 100 per 1 s window, store down for the second second: the first
    // second passes 100 through the store, the second all 150, of which 50 beyond the limit.
    const result = simulate(
      [{ kind: 'fixed-window', limit: 100, windowMs: 1000 }],
      scenario({
        sources: [{ kind: 'constant', ratePerSec: 150, startMs: 0, endMs: 2000 }],
        clients: { count: 1, keying: 'shared', assign: 'round-robin' },
        deployment: {
          instances: 3,
          balancer: 'round-robin',
          state: 'shared-atomic',
          roundTripMs: 5,
          fleet: {
            store: {
              rttMs: 1,
              jitterMs: 0,
              outages: [{ fromMs: 1000, toMs: 2000 }],
              onDown: 'open',
            },
          },
        },
      }),
      2000,
    );
    const lane = result.lanes[0];
    expect(lane?.metrics.total.admitted).toBe(250);
    expect(lane?.fleet?.metrics.beyond.count).toBe(50);
    expect(lane?.fleet?.metrics.beyond.firstMs).toBeGreaterThanOrEqual(1000);
  });
});
