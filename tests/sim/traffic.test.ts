import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng, hash32, lnUnit, simulate } from '../../src/sim';
import type { Scenario, TrafficSource } from '../../src/sim';
import { scenario } from './helpers';

const fixed = { kind: 'fixed-window', limit: 1000, windowMs: 1000 } as const;

function arrivalsOf(sources: TrafficSource[], untilMs = 10_000, extra: Partial<Scenario> = {}) {
  return simulate([fixed], scenario({ sources, ...extra }), untilMs).arrivals;
}

function times(sources: TrafficSource[], untilMs = 10_000): number[] {
  const a = arrivalsOf(sources, untilMs);
  return Array.from(a.timeMs.subarray(0, a.count));
}

describe('traffic sources', () => {
  it('constant: the n-th request at start + ⌊n·1000 / rate⌋, before end', () => {
    expect(times([{ kind: 'constant', ratePerSec: 3, startMs: 1000, endMs: 3000 }])).toEqual([
      1000, 1333, 1666, 2000, 2333, 2666,
    ]);
  });

  it('burst: all at one instant, or spread evenly', () => {
    expect(times([{ kind: 'burst', atMs: 100, count: 3 }])).toEqual([100, 100, 100]);
    expect(times([{ kind: 'burst', atMs: 100, count: 4, spreadMs: 10 }])).toEqual([
      100, 102, 105, 107,
    ]);
  });

  it('boundary burst: N just before the boundary and N from it on', () => {
    expect(times([{ kind: 'boundary-burst', boundaryMs: 1000, count: 2 }])).toEqual([
      999, 999, 1000, 1000,
    ]);
    expect(times([{ kind: 'boundary-burst', boundaryMs: 1000, count: 3, spreadMs: 6 }])).toEqual([
      995, 997, 999, 1000, 1002, 1004,
    ]);
  });

  it('on/off: evenly spaced during each on-phase, silent in between', () => {
    expect(
      times([{ kind: 'on-off', ratePerSec: 10, onMs: 300, offMs: 700, startMs: 0, endMs: 2500 }]),
    ).toEqual([0, 100, 200, 1000, 1100, 1200, 2000, 2100, 2200]);
  });

  it('manual: sorted, duplicates kept, nothing at or after untilMs', () => {
    expect(times([{ kind: 'manual', timesMs: [5, 1, 5, 3000] }], 2000)).toEqual([1, 5, 5]);
  });

  it('merges sources in time order, ties in source order', () => {
    const a = arrivalsOf([
      { kind: 'manual', timesMs: [10, 30] },
      { kind: 'manual', timesMs: [10, 20] },
    ]);
    expect(Array.from(a.timeMs)).toEqual([10, 10, 20, 30]);
    expect(Array.from(a.source)).toEqual([0, 1, 1, 0]);
  });

  it('poisson: count and dispersion of a Poisson process', () => {
    // 100/s for 100 s: 10,000 expected, σ = 100. Counts per second: variance ≈ mean (index 1).
    const a = arrivalsOf(
      [{ kind: 'poisson', ratePerSec: 100, startMs: 0, endMs: 100_000 }],
      100_000,
    );
    expect(Math.abs(a.count - 10_000)).toBeLessThan(500);
    const perSecond = new Array<number>(100).fill(0);
    for (let i = 0; i < a.count; i += 1)
      perSecond[Math.floor((a.timeMs[i] as number) / 1000)]! += 1;
    const mean = a.count / 100;
    const variance = perSecond.reduce((s, n) => s + (n - mean) ** 2, 0) / 99;
    expect(variance / mean).toBeGreaterThan(0.6);
    expect(variance / mean).toBeLessThan(1.5);
    let sorted = true;
    for (let i = 1; i < a.count; i += 1) if (a.timeMs[i]! < a.timeMs[i - 1]!) sorted = false;
    expect(sorted).toBe(true);
  });

  it('a source keeps its arrivals when a source is added after it', () => {
    const poisson: TrafficSource = { kind: 'poisson', ratePerSec: 50, startMs: 0, endMs: 5000 };
    const alone = arrivalsOf([poisson]);
    const both = arrivalsOf([poisson, { ...poisson }]);
    const bySource: number[][] = [[], []];
    for (let i = 0; i < both.count; i += 1) bySource[both.source[i]!]!.push(both.timeMs[i]!);
    expect(bySource[0]).toEqual(Array.from(alone.timeMs));
    // Same parameters, its own stream: different arrivals.
    expect(bySource[1]).not.toEqual(bySource[0]);
  });
});

describe('clients and keys', () => {
  const sources: TrafficSource[] = [{ kind: 'burst', atMs: 0, count: 6 }];

  it('round-robin spreads requests over clients, each with its own key', () => {
    const r = simulate(
      [fixed],
      scenario({ sources, clients: { count: 3, keying: 'per-client', assign: 'round-robin' } }),
      1000,
    );
    expect(Array.from(r.arrivals.client)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(r.keyNames).toEqual(['client-1', 'client-2', 'client-3']);
    expect(Array.from(r.lanes[0]!.metrics.perKey.offered)).toEqual([2, 2, 2]);
  });

  it('clients behind one NAT address share one key', () => {
    const r = simulate(
      [fixed],
      scenario({ sources, clients: { count: 3, keying: 'shared', assign: 'round-robin' } }),
      1000,
    );
    expect(r.keyNames).toEqual(['nat-gateway']);
    expect(Array.from(r.lanes[0]!.metrics.perKey.offered)).toEqual([6]);
    expect(Array.from(r.lanes[0]!.metrics.perClient.offered)).toEqual([2, 2, 2]);
  });

  it('a pinned source sends as its client; random assignment stays in range and is seeded', () => {
    const r = simulate(
      [fixed],
      scenario({
        sources: [
          { kind: 'burst', atMs: 0, count: 4, client: 2 },
          { kind: 'burst', atMs: 1, count: 400 },
        ],
        clients: { count: 4, keying: 'per-client', assign: 'random' },
      }),
      1000,
    );
    const clients = Array.from(r.arrivals.client);
    expect(clients.slice(0, 4)).toEqual([2, 2, 2, 2]);
    const counts = [0, 0, 0, 0];
    for (const c of clients.slice(4)) counts[c]! += 1;
    for (const n of counts) expect(n).toBeGreaterThan(60); // 100 expected each
  });
});

describe('seeded randomness', () => {
  it('lnUnit matches Math.log to within a few ulps', () => {
    fc.assert(
      fc.property(fc.double({ min: 2 ** -40, max: 1, noNaN: true }), (u) => {
        const got = lnUnit(u);
        const want = Math.log(u);
        expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-15 * Math.max(1, Math.abs(want)));
      }),
    );
  });

  it('streams differ by seed and stream, and repeat exactly', () => {
    const draw = (seed: number, stream: number) => {
      const rng = new Rng(seed, stream);
      return Array.from({ length: 5 }, () => rng.nextUint32());
    };
    expect(draw(1, 1)).toEqual(draw(1, 1));
    expect(draw(1, 1)).not.toEqual(draw(2, 1));
    expect(draw(1, 1)).not.toEqual(draw(1, 2));
    expect(hash32(1, 2, 3)).toBe(hash32(1, 2, 3));
    expect(hash32(1, 2, 3)).not.toBe(hash32(1, 3, 2));
  });

  it('Rng draws are uniform enough: each of 16 buckets within 4σ of 1/16', () => {
    const rng = new Rng(99, 1);
    const buckets = new Array<number>(16).fill(0);
    const n = 64_000;
    for (let i = 0; i < n; i += 1) buckets[rng.nextUint32() >>> 28]! += 1;
    const sigma = Math.sqrt(n * (1 / 16) * (15 / 16));
    for (const b of buckets) expect(Math.abs(b - n / 16)).toBeLessThan(4 * sigma);
  });
});
