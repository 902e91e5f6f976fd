import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { MAX_DECISIONS, MAX_FIRST_ATTEMPTS, MAX_LANES, simulate } from '../../src/sim';
import type { Scenario, SimResult } from '../../src/sim';
import { scenario } from './helpers';

const SIX: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 20, windowMs: 1000 },
  { kind: 'sliding-log', limit: 20, windowMs: 1000, logRejected: true },
  { kind: 'sliding-window-counter', limit: 20, windowMs: 1000 },
  { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 20, fillIntervalMs: 1000, maxDelayMs: 300 },
  { kind: 'leaky-bucket', rate: 20, rateUnit: 'r/s', burst: 10, delay: 2 },
  { kind: 'gcra', count: 20, periodMs: 1000, burst: 5 },
];

/** Every random feature at once: Poisson, random assignment and balancing, jitter, racy, jumps. */
function busy(seed: number): Scenario {
  return scenario({
    seed,
    sources: [
      { kind: 'poisson', ratePerSec: 30, startMs: 0, endMs: 20_000 },
      { kind: 'on-off', ratePerSec: 40, onMs: 500, offMs: 1500, startMs: 1000, endMs: 20_000 },
      { kind: 'boundary-burst', boundaryMs: 5000, count: 15 },
    ],
    clients: { count: 5, keying: 'per-client', assign: 'random' },
    retry: {
      onReject: 'backoff',
      maxAttempts: 4,
      backoffBaseMs: 50,
      backoffCapMs: 2000,
      turnaroundMs: 3,
    },
    deployment: { instances: 3, balancer: 'random', state: 'shared-racy', roundTripMs: 7 },
    clock: {
      mode: 'wall',
      jumps: [
        { atMs: 8000, byMs: -1500 },
        { atMs: 12_000, byMs: 4000 },
      ],
    },
  });
}

/** Every typed array of a result, by path, as bytes. */
function bytesOf(result: SimResult): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (value: unknown, path: string): void => {
    if (ArrayBuffer.isView(value)) {
      out.set(path, Buffer.from(value.buffer, value.byteOffset, value.byteLength));
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`);
    }
  };
  walk(result, 'result');
  return out;
}

describe('determinism', () => {
  it('the same input gives byte-identical typed arrays and equal metrics', () => {
    const a = simulate(SIX, busy(7), 20_000);
    const b = simulate(SIX, JSON.parse(JSON.stringify(busy(7))) as Scenario, 20_000);
    const bytesA = bytesOf(a);
    const bytesB = bytesOf(b);
    expect([...bytesA.keys()]).toEqual([...bytesB.keys()]);
    for (const [path, buf] of bytesA) expect(buf.equals(bytesB.get(path)!), path).toBe(true);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // The run really exercised retries, delays and several instances.
    const total = a.lanes.map((l) => l.metrics.total);
    expect(total.some((t) => t.delayed > 0)).toBe(true);
    expect(a.lanes.filter((l) => l.metrics.retries.offered > 0).length).toBeGreaterThanOrEqual(5);
    expect(new Set(a.lanes[0]!.columns.instance.subarray(0, 100)).size).toBe(3);
  });

  it('a different seed gives different Poisson arrivals', () => {
    const a = simulate(SIX, busy(7), 20_000).arrivals;
    const b = simulate(SIX, busy(8), 20_000).arrivals;
    expect(Buffer.from(a.timeMs.buffer).equals(Buffer.from(b.timeMs.buffer))).toBe(false);
  });

  it('Poisson arrivals for seed 1 are the same on every engine', () => {
    // Pinned on purpose: a shared link must mean the same traffic everywhere, and the gaps use
    // only exactly-rounded arithmetic (random.ts). A change here changes every saved link.
    const r = simulate(
      [SIX[0]!],
      scenario({ sources: [{ kind: 'poisson', ratePerSec: 10, startMs: 0, endMs: 10_000 }] }),
      10_000,
    );
    expect(Array.from(r.arrivals.timeMs.subarray(0, 10))).toEqual([
      12, 77, 98, 123, 192, 463, 661, 766, 775, 853,
    ]);
  });

  it('first attempts are the same in every lane; only retries differ', () => {
    const r = simulate(SIX, busy(3), 20_000);
    for (const lane of r.lanes) {
      const c = lane.columns;
      const firsts: number[] = [];
      for (let i = 0; i < c.rows; i += 1) if (c.attempt[i] === 1) firsts.push(c.origin[i]!);
      expect(firsts).toEqual(Array.from({ length: r.arrivals.count }, (_, i) => i));
    }
  });

  it('never produces NaN', () => {
    const r = simulate(SIX, busy(11), 20_000);
    const check = (value: unknown, path: string): void => {
      if (typeof value === 'number') expect(Number.isNaN(value), path).toBe(false);
      else if (value instanceof Float64Array) expect(value.some(Number.isNaN), path).toBe(false);
      else if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
        for (const [k, v] of Object.entries(value)) check(v, `${path}.${k}`);
      }
    };
    check(r, 'result');
  });
});

describe('memory cap', () => {
  it(`cuts a run past ${MAX_FIRST_ATTEMPTS} first attempts, and says where`, () => {
    // 100,000/s: the 1,000,001st request (n = 1,000,000) arrives at exactly 10,000 ms.
    const r = simulate(
      [{ kind: 'fixed-window', limit: 10, windowMs: 1000 }],
      scenario({ sources: [{ kind: 'constant', ratePerSec: 100_000, startMs: 0, endMs: 20_000 }] }),
      20_000,
    );
    expect(r.truncated).toBe(true);
    expect(r.completeUntilMs).toBe(10_000);
    expect(r.arrivals.count).toBe(MAX_FIRST_ATTEMPTS);
    expect(r.truncation).toEqual([
      `More than ${MAX_FIRST_ATTEMPTS} first attempts: the run was cut at 10000 ms (of 20000 ms).`,
    ]);
    expect(r.lanes[0]!.metrics.total.admitted).toBe(100);
  });

  it('cuts a lane whose retries pass its share of the decisions', () => {
    // 200,000 first attempts, each retried once: 400,000 attempts per lane > 4,000,000 / 12.
    const perLane = Math.floor(MAX_DECISIONS / MAX_LANES);
    const r = simulate(
      Array.from({ length: MAX_LANES }, () => ({
        kind: 'fixed-window' as const,
        limit: 1,
        windowMs: 86_400_000,
      })),
      scenario({
        sources: [{ kind: 'constant', ratePerSec: 100_000, startMs: 0, endMs: 2000 }],
        retry: {
          onReject: 'immediate',
          maxAttempts: 2,
          backoffBaseMs: 1,
          backoffCapMs: 1,
          turnaroundMs: 0,
        },
      }),
      2000,
    );
    expect(r.truncated).toBe(true);
    expect(r.lanes[0]!.columns.rows).toBe(perLane);
    expect(r.completeUntilMs).toBeLessThan(2000);
    expect(r.truncation).toHaveLength(MAX_LANES);
    expect(r.truncation[0]).toContain(`more than ${perLane} attempts`);
  });

  it('an uncut run says so', () => {
    const r = simulate([SIX[0]!], busy(1), 5000);
    expect(r.truncated).toBe(false);
    expect(r.truncation).toEqual([]);
    expect(r.completeUntilMs).toBe(5000);
    expect(r.memory.bytesPerDecision).toBeGreaterThan(20);
  });
});

describe('extreme configs', () => {
  it('store waits and resets past 2^31 ms exactly instead of wrapping', () => {
    const r = simulate(
      [
        // 30 admitted at once, each pushing the TAT one day ahead: the last resets in 30 days.
        { kind: 'gcra', count: 1, periodMs: 86_400_000, burst: 1_000_000 },
        // 1r/m drains 16 milli-requests per second: the n-th queued request waits n·62,500 ms.
        { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/m', burst: 1_000_000, delay: 0 },
      ],
      scenario({ sources: [{ kind: 'burst', atMs: 0, count: 40_000 }] }),
      1000,
    );
    const gcra = r.lanes[0]!.columns;
    expect(gcra.resetMs).toBeInstanceOf(Float64Array);
    expect(gcra.resetMs[29]).toBe(30 * 86_400_000);
    const nginx = r.lanes[1]!.columns;
    expect(nginx.waitMs).toBeInstanceOf(Float64Array);
    expect(nginx.waitMs[39_999]).toBe(39_999 * 62_500);
    expect(r.lanes[1]!.metrics.delay.maxMs).toBe(39_999 * 62_500);
    // An ordinary lane keeps the compact Int32 columns.
    const plain = simulate(
      [{ kind: 'fixed-window', limit: 5, windowMs: 1000 }],
      scenario({}),
      1000,
    );
    expect(plain.lanes[0]!.columns.waitMs).toBeInstanceOf(Int32Array);
  });
});
