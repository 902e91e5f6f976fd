/**
 * Fleets: hand-computed answers for small fleets, and properties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import {
  OUTCOMES,
  Seeker,
  WHY_BATCHED,
  WHY_CACHE,
  WHY_DOWN_CLOSED,
  WHY_DOWN_LOCAL,
  WHY_DOWN_OPEN,
  WHY_STORE,
  simulate,
  validateRun,
} from '../../src/sim';
import type { Deployment, LaneResult, Scenario, SimResult, TrafficSource } from '../../src/sim';
import { HashRing, scaleConfig } from '../../src/sim/fleet';
import { scenario } from './helpers';

const FW = (limit: number, windowMs = 1000): AlgorithmConfig => ({
  kind: 'fixed-window',
  limit,
  windowMs,
});

function run(
  config: AlgorithmConfig,
  deployment: Partial<Deployment>,
  sources: TrafficSource[],
  untilMs = 5000,
  extra: Partial<Scenario> = {},
): SimResult {
  return simulate(
    [config],
    scenario({
      sources,
      deployment: {
        instances: 1,
        balancer: 'round-robin',
        state: 'local',
        roundTripMs: 5,
        ...deployment,
      },
      ...extra,
    }),
    untilMs,
  );
}

const lane0 = (r: SimResult): LaneResult => r.lanes[0] as LaneResult;
const outcomes = (r: SimResult): string =>
  Array.from(lane0(r).columns.outcome.subarray(0, lane0(r).columns.rows), (o) =>
    (OUTCOMES[o] as string)[0]?.toUpperCase(),
  ).join('');
const instances = (r: SimResult): number[] =>
  Array.from(lane0(r).columns.instance.subarray(0, lane0(r).columns.rows));

describe('balancers', () => {
  it('weighted: nginx smooth weighted round-robin 3:1 goes R0 R0 R1 R0, and each replica keeps its share of global ÷ N', () => {
    // Global limit 4 per second divided over 2 replicas: 2 each. 8 requests at t = 0.
    const r = run(
      FW(4),
      { instances: 2, balancer: 'weighted', state: 'local-divided', fleet: { weights: [3, 1] } },
      [{ kind: 'burst', atMs: 0, count: 8 }],
    );
    expect(instances(r)).toEqual([0, 0, 1, 0, 0, 0, 1, 0]);
    // R0 admits its first two (rows 0, 1); R1 admits rows 2 and 6.
    expect(outcomes(r)).toBe('AAARRRAR');
    const m = lane0(r).fleet?.metrics;
    expect(Array.from(m?.perReplica.offered.subarray(0, 2) ?? [])).toEqual([6, 2]);
    expect(Array.from(m?.perReplica.passed.subarray(0, 2) ?? [])).toEqual([2, 2]);
    expect(lane0(r).fleet?.replicaConfig).toEqual(FW(2));
    expect(m?.beyond.count).toBe(0);
  });

  it('hash: a client always lands on the same replica', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 64 }),
        fc.integer({ min: 1, max: 40 }),
        fc.nat(),
        (n, clients, seed) => {
          const r = run(
            FW(1000),
            { instances: n, balancer: 'hash' },
            [{ kind: 'poisson', ratePerSec: 200, startMs: 0, endMs: 1000 }],
            1000,
            { seed, clients: { count: clients, keying: 'per-client', assign: 'random' } },
          );
          const seen = new Map<number, number>();
          const l = lane0(r);
          for (let row = 0; row < l.columns.rows; row += 1) {
            const client = r.arrivals.client[l.columns.origin[row] as number] as number;
            const inst = l.columns.instance[row] as number;
            expect(seen.get(client) ?? inst).toBe(inst);
            seen.set(client, inst);
          }
        },
      ),
      { numRuns: 20 },
    );
  });

  it('hash: adding a replica moves only keys to the new one', () => {
    const before = new HashRing(5);
    const after = new HashRing(6);
    for (let h = 0; h < 4294967296; h += 7_654_321) {
      const a = before.lookup(h);
      const b = after.lookup(h);
      if (a !== b) expect(b).toBe(5);
    }
  });

  it('least-outstanding: a replica still holding a request is passed over', () => {
    // Fixed 1,000 ms service time; 2 replicas; requests 100 ms apart: each of the first two
    // finds one replica busy and the other idle, so they go to different replicas.
    const r = run(
      FW(100),
      {
        instances: 2,
        balancer: 'least-outstanding',
        fleet: { service: { kind: 'fixed', meanMs: 1000 } },
      },
      [{ kind: 'manual', timesMs: [0, 100] }],
    );
    const [a, b] = instances(r);
    expect(a).not.toBe(b);
  });
});

describe('replicas that come and go', () => {
  it('scaling out lets a burst through: new replicas start full', () => {
    // One replica, a bucket of 2 that refills 1 token per 10 s; 6 at 0 → 2 pass. At 100 ms the
    // fleet grows to 3; 6 more at 200 ms go R0 R1 R2 R0 R1 R2 (round-robin over the three): the
    // new replicas pass 2 each, R0 none.
    const bucket: AlgorithmConfig = {
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 1,
      fillIntervalMs: 10_000,
    };
    const r = run(bucket, { instances: 1, fleet: { scale: [{ atMs: 100, instances: 3 }] } }, [
      { kind: 'burst', atMs: 0, count: 6 },
      { kind: 'burst', atMs: 200, count: 6 },
    ]);
    expect(outcomes(r)).toBe('AARRRR' + 'RAARAA');
    expect(instances(r).slice(6)).toEqual([0, 1, 2, 0, 1, 2]);
    const f = lane0(r).fleet;
    expect(f?.replicas).toEqual([
      { atMs: 0, count: 1 },
      { atMs: 100, count: 3 },
    ]);
    // The fleet was meant to keep 2 tokens per 10 s (one replica): the 4 from new replicas are beyond.
    expect(f?.metrics.beyond.count).toBe(4);
    expect(f?.metrics.beyond.firstMs).toBe(200);
  });

  it('scaling in loses a replica’s state: when it comes back it starts full', () => {
    const bucket: AlgorithmConfig = {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 1,
      fillIntervalMs: 60_000,
    };
    const r = run(
      bucket,
      {
        instances: 2,
        fleet: {
          scale: [
            { atMs: 50, instances: 1 },
            { atMs: 60, instances: 2 },
          ],
        },
      },
      [{ kind: 'manual', timesMs: [0, 0, 100, 100] }],
    );
    // t=0: R0, R1 pass. R1 dies at 50 and returns fresh at 60. t=100: R0 (empty) rejects, R1 passes.
    expect(instances(r)).toEqual([0, 1, 0, 1]);
    expect(outcomes(r)).toBe('AARA');
  });

  it('the autoscaler counts passed load only: rejected traffic never scales out', () => {
    // 100 r/s offered, a global limit of 10/s over one replica, target 20 r/s per replica.
    const r = run(
      FW(10),
      { instances: 1, fleet: { autoscale: { perReplicaRps: 20, everyMs: 1000, min: 1, max: 8 } } },
      [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 5000 }],
    );
    expect(lane0(r).fleet?.metrics.maxReplicas).toBe(1);
    const offered = run(
      FW(10),
      {
        instances: 1,
        fleet: { autoscale: { perReplicaRps: 20, everyMs: 1000, min: 1, max: 8, on: 'offered' } },
      },
      [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 5000 }],
    );
    // 100 offered per second / 20 = 5 replicas from the first tick.
    expect(lane0(offered).fleet?.replicas[1]).toEqual({ atMs: 1000, count: 5 });
  });
});

describe('the store', () => {
  const outage = (onDown: 'open' | 'closed' | 'local', downStatus?: 429 | 500) =>
    run(
      FW(3),
      {
        instances: 2,
        state: 'shared-atomic',
        fleet: {
          store: {
            rttMs: 1,
            jitterMs: 0,
            outages: [{ fromMs: 1000, toMs: 2000 }],
            onDown,
            ...(downStatus === undefined ? {} : { downStatus }),
          },
        },
      },
      [
        { kind: 'burst', atMs: 500, count: 5 },
        { kind: 'burst', atMs: 1500, count: 5 },
      ],
      3000,
    );

  it('up: the store keeps the global limit (3 of 5)', () => {
    const r = outage('open');
    expect(outcomes(r).slice(0, 5)).toBe('AAARR');
    expect(Array.from(lane0(r).fleet?.why.subarray(0, 5) ?? [])).toEqual(Array(5).fill(WHY_STORE));
    expect(lane0(r).fleet?.metrics.storeCalls).toBe(5);
  });

  it('down, fail closed: everyone is rejected', () => {
    const r = outage('closed', 429);
    expect(outcomes(r).slice(5)).toBe('RRRRR');
    expect(Array.from(lane0(r).fleet?.why.subarray(5, 10) ?? [])).toEqual(
      Array(5).fill(WHY_DOWN_CLOSED),
    );
  });

  it('down, fail open: nobody is limited, 2 beyond the limit of 3 in that second', () => {
    const r = outage('open');
    expect(outcomes(r).slice(5)).toBe('AAAAA');
    expect(Array.from(lane0(r).fleet?.why.subarray(5, 10) ?? [])).toEqual(
      Array(5).fill(WHY_DOWN_OPEN),
    );
    expect(lane0(r).fleet?.metrics.beyond.count).toBe(2);
    expect(lane0(r).fleet?.metrics.beyond.byWhy[WHY_DOWN_OPEN]).toBe(2);
  });

  it('down, local fallback: each of 2 replicas keeps 3 ÷ 2 = 1', () => {
    const r = outage('local');
    expect(outcomes(r).slice(5)).toBe('AARRR');
    expect(Array.from(lane0(r).fleet?.why.subarray(5, 10) ?? [])).toEqual(
      Array(5).fill(WHY_DOWN_LOCAL),
    );
  });

  it('a timeout shorter than the round trip counts as down', () => {
    const r = run(
      FW(1),
      {
        instances: 1,
        state: 'shared-atomic',
        fleet: { store: { rttMs: 30, jitterMs: 0, timeoutMs: 20, outages: [], onDown: 'closed' } },
      },
      [{ kind: 'manual', timesMs: [0] }],
    );
    expect(outcomes(r)).toBe('R');
    expect(lane0(r).fleet?.storeMs[0]).toBe(30);
  });

  it('batching (sync_rate): two replicas each pass the whole limit before they sync', () => {
    // Limit 2 per 10 s; 4 requests at 0 go R0 R1 R0 R1; each replica's copy admits 2.
    const r = run(
      FW(2, 10_000),
      {
        instances: 2,
        state: 'shared-atomic',
        fleet: { store: { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open', syncMs: 1000 } },
      },
      [
        { kind: 'burst', atMs: 0, count: 4 },
        { kind: 'manual', timesMs: [1500, 1500] },
      ],
    );
    // After the sync at 1 s the store holds 2: both copies refresh and reject.
    expect(outcomes(r)).toBe('AAAARR');
    expect(lane0(r).fleet?.why[0]).toBe(WHY_BATCHED);
    expect(lane0(r).fleet?.metrics.beyond.count).toBe(2);
    expect(lane0(r).fleet?.metrics.beyond.byWhy[WHY_BATCHED]).toBe(2);
  });

  it('the over-limit cache answers without asking the store until the retry-after', () => {
    const r = run(
      FW(1),
      {
        instances: 1,
        state: 'shared-atomic',
        fleet: {
          store: { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open', cacheOverLimit: true },
        },
      },
      [{ kind: 'manual', timesMs: [0, 10, 20, 1000] }],
    );
    expect(outcomes(r)).toBe('ARRA');
    expect(Array.from(lane0(r).fleet?.why ?? [])).toEqual([
      WHY_STORE,
      WHY_STORE,
      WHY_CACHE,
      WHY_STORE,
    ]);
    expect(lane0(r).fleet?.metrics.storeCalls).toBe(3);
  });
});

describe('global ÷ N', () => {
  it('divides rates exactly and counts down to whole numbers', () => {
    expect(
      scaleConfig(
        { kind: 'token-bucket', maxTokens: 600, tokensPerFill: 600, fillIntervalMs: 1000 },
        1,
        12,
      ),
    ).toEqual({
      kind: 'token-bucket',
      maxTokens: 50,
      tokensPerFill: 1,
      fillIntervalMs: 20,
    });
    expect(scaleConfig(FW(10), 1, 3)).toEqual(FW(3));
    expect(
      scaleConfig(
        { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
        1,
        3,
      ),
    ).toEqual({
      kind: 'leaky-bucket',
      rate: 200,
      rateUnit: 'r/m',
      burst: 1,
      delay: 'nodelay',
    });
    expect(scaleConfig({ kind: 'gcra', count: 10, periodMs: 1000, burst: 4 }, 1, 4)).toEqual({
      kind: 'gcra',
      count: 1,
      periodMs: 400,
      burst: 1,
    });
  });
});

const LIMITERS: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 5, windowMs: 1000 },
  { kind: 'sliding-log', limit: 4, windowMs: 700 },
  { kind: 'token-bucket', maxTokens: 6, tokensPerFill: 3, fillIntervalMs: 500 },
  { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 3, delay: 1 },
  { kind: 'gcra', count: 5, periodMs: 1000, burst: 2 },
];

describe('properties', () => {
  it('with one replica and no outage the fleet equals the single limiter, decision by decision', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.integer({ min: 5, max: 80 }),
        fc.constantFrom<Deployment['balancer']>(
          'hash',
          'least-outstanding',
          'weighted',
          'round-robin',
        ),
        fc.constantFrom<Deployment['state']>('local', 'shared-atomic', 'local-divided', 'layered'),
        fc.constantFrom<'open' | 'closed' | 'local'>('open', 'closed', 'local'),
        fc.integer({ min: 1, max: 3 }),
        (seed, rate, balancer, state, onDown, clients) => {
          const base = scenario({
            seed,
            sources: [{ kind: 'poisson', ratePerSec: rate, startMs: 0, endMs: 4000 }],
            clients: { count: clients, keying: 'per-client', assign: 'random' },
          });
          const plain = simulate(LIMITERS, base, 4000);
          const fleet = simulate(
            LIMITERS,
            {
              ...base,
              deployment: {
                ...base.deployment,
                balancer,
                state,
                fleet: { store: { rttMs: 2, jitterMs: 3, outages: [], onDown } },
              },
            },
            4000,
          );
          fleet.lanes.forEach((l, i) => {
            const p = plain.lanes[i] as LaneResult;
            expect(l.columns.rows).toBe(p.columns.rows);
            expect(l.columns.outcome.subarray(0, l.columns.rows)).toEqual(
              p.columns.outcome.subarray(0, p.columns.rows),
            );
            expect(l.columns.waitMs.subarray(0, l.columns.rows)).toEqual(
              p.columns.waitMs.subarray(0, p.columns.rows),
            );
            expect(l.columns.remaining.subarray(0, l.columns.rows)).toEqual(
              p.columns.remaining.subarray(0, p.columns.rows),
            );
            expect(l.fleet?.metrics.beyond.count).toBe(0);
          });
        },
      ),
      { numRuns: 25 },
    );
  });

  it('seeking a fleet run gives the same state as replaying from zero', () => {
    const r = simulate(
      LIMITERS,
      scenario({
        seed: 3,
        sources: [{ kind: 'poisson', ratePerSec: 60, startMs: 0, endMs: 8000 }],
        clients: { count: 5, keying: 'per-client', assign: 'random' },
        deployment: {
          instances: 3,
          balancer: 'hash',
          state: 'layered',
          roundTripMs: 5,
          fleet: {
            scale: [
              { atMs: 2000, instances: 5 },
              { atMs: 5000, instances: 2 },
            ],
            store: {
              rttMs: 2,
              jitterMs: 2,
              outages: [{ fromMs: 3000, toMs: 4000 }],
              onDown: 'local',
              syncMs: 300,
              cacheOverLimit: true,
            },
          },
        },
      }),
      8000,
    );
    const fast = new Seeker(r);
    const slow = new Seeker(r, { useCheckpoints: false });
    for (const t of [7999, 100, 3500, 2000, 4100, 6000, 0]) {
      expect(fast.stateAt(t, 'client-2')).toEqual(slow.stateAt(t, 'client-2'));
    }
  });

  it('the same link gives the same fleet run', () => {
    const sc = scenario({
      seed: 9,
      sources: [{ kind: 'poisson', ratePerSec: 100, startMs: 0, endMs: 3000 }],
      clients: { count: 7, keying: 'per-client', assign: 'random' },
      deployment: {
        instances: 4,
        balancer: 'least-outstanding',
        state: 'shared-atomic',
        roundTripMs: 5,
        fleet: {
          service: { kind: 'exponential', meanMs: 40 },
          store: { rttMs: 5, jitterMs: 20, timeoutMs: 20, outages: [], onDown: 'closed' },
        },
      },
    });
    const a = simulate(LIMITERS, sc, 3000);
    const b = simulate(LIMITERS, structuredClone(sc), 3000);
    a.lanes.forEach((l, i) => {
      expect(l.columns.instance).toEqual(b.lanes[i]?.columns.instance);
      expect(l.fleet?.why).toEqual(b.lanes[i]?.fleet?.why);
      expect(l.fleet?.storeMs).toEqual(b.lanes[i]?.fleet?.storeMs);
    });
    // Some calls timed out (5 + up to 20 ms against a 20 ms timeout).
    expect(a.lanes[0]?.fleet?.metrics.byWhy[WHY_DOWN_CLOSED]).toBeGreaterThan(0);
  });
});

describe('bad fleet settings', () => {
  const base = scenario({ sources: [{ kind: 'burst', atMs: 0, count: 3 }] });
  const issues = (deployment: Partial<Deployment>, untilMs = 5000): string[] =>
    validateRun(
      [FW(5)],
      { ...base, deployment: { ...base.deployment, ...deployment } },
      untilMs,
    ).map((i) => i.message);

  it('names the field and the accepted range', () => {
    expect(issues({ instances: 0 })).toEqual([
      'deployment.instances must be a whole number from 1 to 64, got 0',
    ]);
    expect(issues({ instances: 2, balancer: 'weighted', fleet: { weights: [0, 0] } })).toEqual([
      'deployment.fleet.weights must give the 2 replicas in use a total weight of at least 1 (each 0 – 1000), got a sum of 0',
    ]);
    expect(
      issues({
        state: 'shared-atomic',
        fleet: {
          store: { rttMs: 1, jitterMs: 0, outages: [{ fromMs: 1000, toMs: 9000 }], onDown: 'open' },
        },
      }),
    ).toEqual([
      'deployment.fleet.store.outages[0].toMs must be from 1001 to 6000: an outage cannot be longer than the run (5000 ms), got 9000',
    ]);
    expect(issues({ fleet: { scale: [{ atMs: 100, instances: 0 }] } })).toEqual([
      'deployment.fleet.scale[0].instances must be a whole number from 1 to 64 (a fleet cannot scale in below one replica), got 0',
    ]);
  });

  it('simulate refuses them', () => {
    expect(() =>
      simulate(
        [FW(5)],
        {
          ...base,
          deployment: { ...base.deployment, fleet: { scale: [{ atMs: 1, instances: 0 }] } },
        },
        1000,
      ),
    ).toThrow(/scale in below one replica/);
  });
});
