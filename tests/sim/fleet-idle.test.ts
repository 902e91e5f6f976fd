/**
 * Idle syncs and autoscaler ticks are skipped in one step (src/sim/fleet.ts, advance): a run and
 * every state drawn from it are the same as when each sync and tick is processed one by one, and
 * a day of 1 ms syncs costs what a few requests cost.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { Seeker, simulate } from '../../src/sim';
import type { Deployment, SimResult } from '../../src/sim';
import { FleetEngine, setIdleSkipping } from '../../src/sim/fleet';
import { scenario } from './helpers';

afterEach(() => {
  setIdleSkipping(true);
  vi.restoreAllMocks();
});

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 4, windowMs: 1000 },
  { kind: 'sliding-log', limit: 3, windowMs: 700, logRejected: true },
  { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 2, fillIntervalMs: 300 },
  { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 3, delay: 'nodelay' },
  { kind: 'gcra', count: 4, periodMs: 1000, burst: 2 },
];

const deployment = fc.record({
  instances: fc.integer({ min: 1, max: 6 }),
  state: fc.constantFrom('shared-atomic', 'layered', 'local'),
  syncMs: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
  outages: fc.array(
    fc.tuple(fc.integer({ min: 0, max: 6000 }), fc.integer({ min: 1, max: 2000 })),
    {
      maxLength: 3,
    },
  ),
  autoscale: fc.option(
    fc.record({
      everyMs: fc.integer({ min: 1, max: 500 }),
      min: fc.integer({ min: 1, max: 2 }),
      extra: fc.integer({ min: 0, max: 4 }),
      perReplicaRps: fc.integer({ min: 1, max: 8 }),
    }),
    { nil: undefined },
  ),
  scale: fc.array(
    fc.record({
      atMs: fc.integer({ min: 0, max: 6000 }),
      instances: fc.integer({ min: 1, max: 6 }),
    }),
    { maxLength: 3 },
  ),
  onDown: fc.constantFrom('open', 'closed', 'local'),
});

type Shape = typeof deployment extends fc.Arbitrary<infer T> ? T : never;

function deploymentOf(d: Shape): Deployment {
  return {
    instances: d.instances,
    balancer: 'round-robin',
    state: d.state,
    roundTripMs: 5,
    fleet: {
      store: {
        rttMs: 1,
        jitterMs: 0,
        outages: d.outages.map(([from, span]) => ({ fromMs: from, toMs: from + span })),
        onDown: d.onDown,
        ...(d.syncMs === undefined ? {} : { syncMs: d.syncMs }),
      },
      scale: d.scale,
      ...(d.autoscale === undefined
        ? {}
        : {
            autoscale: {
              everyMs: d.autoscale.everyMs,
              min: d.autoscale.min,
              max: d.autoscale.min + d.autoscale.extra,
              perReplicaRps: d.autoscale.perReplicaRps,
            },
          }),
    },
  };
}

/** Every column of every lane, and the lane's fleet record, as plain arrays. */
function plain(r: SimResult): unknown {
  return r.lanes.map((lane) => ({
    columns: Object.fromEntries(
      Object.entries(lane.columns).map(([k, v]) => [
        k,
        ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v,
      ]),
    ),
    why: Array.from(lane.fleet?.why ?? []),
    replicas: lane.fleet?.replicas,
    state: {
      ...lane.metrics.state,
      perKeyPeakBytes: Array.from(lane.metrics.state.perKeyPeakBytes),
      perKeyPeakEntries: Array.from(lane.metrics.state.perKeyPeakEntries),
    },
  }));
}

/** Each lane's drawn state at the given times (every store's inspection and the writes in flight). */
function drawn(r: SimResult, times: readonly number[]): unknown {
  const seeker = new Seeker(r);
  return times.flatMap((t) =>
    r.lanes.map((_, i) => {
      const s = seeker.laneStateAt(i, t);
      return { t, stores: s.stores.map((x) => x.inspection), inFlight: s.inFlightWrites };
    }),
  );
}

describe('idle syncs and autoscaler ticks', () => {
  it('are skipped without changing a decision or a drawn state', () => {
    fc.assert(
      fc.property(
        deployment,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(fc.integer({ min: 0, max: 8000 }), { minLength: 1, maxLength: 6 }),
        (d, rate, seed, times) => {
          const sc = scenario({
            seed,
            sources: [
              { kind: 'poisson', ratePerSec: rate, startMs: 0, endMs: 4000 },
              { kind: 'burst', atMs: 5000, count: 12 },
            ],
            clients: { count: 3, keying: 'per-client', assign: 'round-robin' },
            deployment: deploymentOf(d),
          });
          const sorted = [...times].sort((a, b) => a - b);
          setIdleSkipping(false);
          const slow = simulate(CONFIGS, sc, 8000);
          const slowPlain = plain(slow);
          const slowDrawn = drawn(slow, sorted);
          setIdleSkipping(true);
          const fast = simulate(CONFIGS, sc, 8000);
          expect(plain(fast)).toEqual(slowPlain);
          expect(drawn(fast, sorted)).toEqual(slowDrawn);
        },
      ),
      { numRuns: 60, seed: 45 },
    );
  });

  it('a sync re-reads only the keys it wrote: the memory peaks are those of reading every store after every decision', () => {
    fc.assert(
      fc.property(
        deployment.filter((d) => d.syncMs !== undefined && d.state !== 'local'),
        fc.integer({ min: 1, max: 1000 }),
        (d, seed) => {
          const sc = scenario({
            seed,
            sources: [{ kind: 'poisson', ratePerSec: 30, startMs: 0, endMs: 6000 }],
            clients: { count: 5, keying: 'per-client', assign: 'random' },
            deployment: deploymentOf(d),
          });
          const fast = plain(simulate(CONFIGS, sc, 8000));
          // Every decision a new generation: the tracker reads every key of every store.
          const { decide } = FleetEngine.prototype as { decide: FleetEngine['decide'] };
          vi.spyOn(FleetEngine.prototype, 'decide').mockImplementation(function (
            this: FleetEngine,
            ...args: Parameters<FleetEngine['decide']>
          ) {
            const made = decide.apply(this, args);
            this.generation += 1;
            return made;
          });
          const all = plain(simulate(CONFIGS, sc, 8000));
          vi.restoreAllMocks();
          expect(fast).toEqual(all);
        },
      ),
      { numRuns: 30, seed: 45 },
    );
  });

  it('a day of 1 ms syncs and 1 ms autoscaler ticks costs what its requests cost', () => {
    const sc = scenario({
      deployment: {
        instances: 64,
        balancer: 'round-robin',
        state: 'shared-atomic',
        roundTripMs: 5,
        fleet: {
          store: {
            rttMs: 1,
            jitterMs: 0,
            // Down for an hour: its syncs wait, and are skipped too.
            outages: [{ fromMs: 3_600_000, toMs: 7_200_000 }],
            onDown: 'open',
            syncMs: 1,
          },
          autoscale: { everyMs: 1, min: 1, max: 64, perReplicaRps: 1 },
        },
      },
    });
    const c0 = process.cpuUsage();
    const r = simulate(CONFIGS, sc, 86_400_000);
    const seeker = new Seeker(r);
    for (let i = 0; i < CONFIGS.length; i += 1) seeker.laneStateAt(i, 86_400_000);
    const c = process.cpuUsage(c0);
    expect(r.truncated).toBe(false);
    // Processed one by one this was 86,400,000 syncs a lane (about 1.6 s each here); skipped, the
    // whole run with five lanes and a seek to its end takes a few ms. 2,000 ms leaves room for a
    // loaded machine while still failing for any per-millisecond loop.
    expect((c.user + c.system) / 1000).toBeLessThan(2000);
  });
});
