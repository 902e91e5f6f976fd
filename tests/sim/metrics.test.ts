import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { defaultBinMs, peakWindow, simulate } from '../../src/sim';
import type { LaneMetrics } from '../../src/sim';
import { scenario } from './helpers';

const sum = (a: Uint32Array): number => a.reduce((s, x) => s + x, 0);

describe('peakWindow', () => {
  it('finds the most values in any [t, t + W), as brute force does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 80 }),
        fc.integer({ min: 1, max: 2000 }),
        (values, windowMs) => {
          const sorted = Float64Array.from(values).sort();
          let best = 0;
          for (const start of sorted) {
            const n = values.filter((v) => v >= start && v < start + windowMs).length;
            best = Math.max(best, n);
          }
          const got = peakWindow(sorted, sorted.length, windowMs);
          expect(got.count).toBe(best);
          if (best > 0) {
            const n = values.filter((v) => v >= got.startMs && v < got.startMs + windowMs).length;
            expect(n).toBe(best);
          } else expect(got.startMs).toBe(-1);
        },
      ),
    );
  });
});

describe('nginx smoothing, in numbers', () => {
  // limit_req rate=10r/s burst=20: 21 requests at once pass, 20 of them delayed 100 ms apart.
  const result = simulate(
    [{ kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 20, delay: 0 }],
    scenario({ sources: [{ kind: 'burst', atMs: 0, count: 25 }] }),
    5000,
  );
  const m = result.lanes[0]!.metrics;

  it('passes the burst at decision time but spreads it at the backend', () => {
    expect(m.total).toEqual({ offered: 25, admitted: 1, delayed: 20, rejected: 4 });
    expect(m.peakPassed).toEqual({ windowMs: 1000, count: 21, startMs: 0 });
    // Backend times 0, 100, …, 2000: any second holds 10.
    expect(m.peakBackend).toEqual({ windowMs: 1000, count: 10, startMs: 0 });
    expect(Array.from(result.lanes[0]!.releasesMs)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i + 1) * 100),
    );
  });

  it('reports delay percentiles by nearest rank', () => {
    // Delays 100 … 2000: the 10th of 20 is 1000, the 19th is 1900.
    expect(m.delay).toEqual({ count: 20, p50Ms: 1000, p95Ms: 1900, maxMs: 2000, meanMs: 1050 });
  });
});

describe('metrics add up', () => {
  const six: AlgorithmConfig[] = [
    { kind: 'fixed-window', limit: 20, windowMs: 1000 },
    { kind: 'sliding-log', limit: 20, windowMs: 1000 },
    { kind: 'sliding-window-counter', limit: 20, windowMs: 1000 },
    {
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 20,
      fillIntervalMs: 1000,
      maxDelayMs: 500,
    },
    { kind: 'leaky-bucket', rate: 20, rateUnit: 'r/s', burst: 10, delay: 'nodelay' },
    { kind: 'gcra', count: 20, periodMs: 1000, burst: 5 },
  ];
  const result = simulate(
    six,
    scenario({
      sources: [
        { kind: 'poisson', ratePerSec: 30, startMs: 0, endMs: 30_000 },
        { kind: 'burst', atMs: 10_000, count: 40, client: 0 },
      ],
      clients: { count: 4, keying: 'per-client', assign: 'random' },
      retry: {
        onReject: 'retry-after',
        maxAttempts: 3,
        backoffBaseMs: 100,
        backoffCapMs: 1000,
        turnaroundMs: 0,
      },
    }),
    30_000,
  );

  it.each(result.lanes.map((l) => [l.name, l.metrics] as [string, LaneMetrics]))('%s', (_, m) => {
    const { total, first, retries, bins } = m;
    expect(total.offered).toBe(total.admitted + total.delayed + total.rejected);
    expect(total.offered).toBe(first.offered + retries.offered);
    expect(first.offered).toBe(result.arrivals.count);
    expect(sum(bins.offered)).toBe(total.offered);
    expect(sum(bins.admitted)).toBe(total.admitted);
    expect(sum(bins.delayed)).toBe(total.delayed);
    expect(sum(bins.rejected)).toBe(total.rejected);
    expect(sum(bins.retries)).toBe(retries.offered);
    expect(sum(bins.backend) + m.backendAfterEnd).toBe(total.admitted + total.delayed);
    expect(sum(m.perKey.offered)).toBe(total.offered);
    expect(sum(m.perKey.passed)).toBe(total.admitted + total.delayed);
    expect(sum(m.perClient.firstAttempts)).toBe(first.offered);
    // Each first attempt ends passed (at once or on a retry), given up, or waiting past the end.
    expect(first.admitted + first.delayed + m.passedOnRetry + m.gaveUp + m.retriesAfterEnd).toBe(
      first.offered,
    );
    expect(m.state.peakBytes).toBeGreaterThanOrEqual(m.state.endBytes);
    expect(m.peakPassed.count).toBeLessThanOrEqual(total.admitted + total.delayed);
  });

  it('compares every pair of lanes', () => {
    expect(result.pairDivergence).toHaveLength(15);
    const first = result.divergence!;
    expect(first).not.toBeNull();
    for (const d of result.pairDivergence)
      if (d !== null) expect(d.origin).toBeGreaterThanOrEqual(first.origin);
    // At the divergence the two lanes really decided differently, and agreed on everything before.
    const outcomeOf = (lane: number, origin: number) => {
      const c = result.lanes[lane]!.columns;
      for (let r = 0; r < c.rows; r += 1)
        if (c.attempt[r] === 1 && c.origin[r] === origin) return c.outcome[r];
      return -1;
    };
    const [a, b] = first.lanes;
    expect(outcomeOf(a, first.origin)).not.toBe(outcomeOf(b, first.origin));
    for (let o = 0; o < first.origin; o += 1) expect(outcomeOf(a, o)).toBe(outcomeOf(b, o));
  });

  it('shows the heavy client taking the shares of its key', () => {
    const fixed = result.lanes[0]!.metrics;
    expect(fixed.perClient.firstAttempts[0]).toBeGreaterThan(
      fixed.perClient.firstAttempts[1]! + 30,
    );
  });
});

describe('state size', () => {
  it('grows with offered load for a sliding log that logs rejections', () => {
    const run = (logRejected: boolean) =>
      simulate(
        [{ kind: 'sliding-log', limit: 10, windowMs: 1000, logRejected }],
        scenario({ sources: [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 10_000 }] }),
        10_000,
      ).lanes[0]!.metrics.state;
    const plain = run(false);
    const logging = run(true);
    expect(plain.peakEntries).toBe(10);
    expect(plain.peakBytes).toBe(80);
    // Every request of the last second is logged: 100 entries of 8 bytes.
    expect(logging.peakEntries).toBe(100);
    expect(logging.perKeyPeakBytes[0]).toBe(800);
    expect(logging.perKeyPeakEntries[0]).toBe(100);
  });

  it('counts each instance of a local deployment', () => {
    const m = simulate(
      [{ kind: 'gcra', count: 10, periodMs: 1000, burst: 10 }],
      scenario({
        sources: [{ kind: 'burst', atMs: 0, count: 4 }],
        deployment: { instances: 4, balancer: 'round-robin', state: 'local', roundTripMs: 0 },
      }),
      50,
    ).lanes[0]!.metrics.state;
    expect(m.endBytes).toBe(4 * 16);
  });
});

describe('defaultBinMs', () => {
  it('is the smallest 1-2-5 step giving at most 600 bins', () => {
    expect(defaultBinMs(600)).toBe(1);
    expect(defaultBinMs(601)).toBe(2);
    expect(defaultBinMs(60_000)).toBe(100);
    expect(defaultBinMs(600_000)).toBe(1000);
    expect(defaultBinMs(86_400_000)).toBe(200_000);
  });
});
