import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, KeyState, Limiter } from '../../src/core';
import { OUTCOMES, Seeker, WallClock, simulate, stateAt } from '../../src/sim';
import type { Deployment, Scenario, SimResult } from '../../src/sim';
import { scenario } from './helpers';

const LIMITERS: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 15, windowMs: 1000 },
  { kind: 'sliding-log', limit: 12, windowMs: 1000, logRejected: true },
  { kind: 'sliding-window-counter', limit: 15, windowMs: 700 },
  { kind: 'token-bucket', maxTokens: 8, tokensPerFill: 3, fillIntervalMs: 200, maxDelayMs: 250 },
  { kind: 'token-bucket', maxTokens: 8, tokensPerFill: 3, fillIntervalMs: 200, refill: 'interval' },
  { kind: 'leaky-bucket', rate: 12, rateUnit: 'r/s', burst: 6, delay: 2 },
  { kind: 'gcra', count: 12, periodMs: 1000, burst: 4 },
];

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    seed: fc.nat(),
    rate: fc.integer({ min: 30, max: 300 }),
    clients: fc.integer({ min: 1, max: 3 }),
    keying: fc.constantFrom('per-client' as const, 'shared' as const),
    onReject: fc.constantFrom(
      'give-up' as const,
      'immediate' as const,
      'retry-after' as const,
      'backoff' as const,
    ),
    instances: fc.integer({ min: 1, max: 3 }),
    balancer: fc.constantFrom('round-robin' as const, 'random' as const),
    state: fc.constantFrom('local' as const, 'shared-atomic' as const, 'shared-racy' as const),
    roundTripMs: fc.integer({ min: 0, max: 40 }),
    wall: fc.boolean(),
    jumpAtMs: fc.integer({ min: 0, max: 10_000 }),
    jumpByMs: fc.integer({ min: -5000, max: 5000 }).filter((x) => x !== 0),
  })
  .map((p) =>
    scenario({
      seed: p.seed,
      sources: [
        { kind: 'poisson', ratePerSec: p.rate, startMs: 0, endMs: 10_000 },
        { kind: 'boundary-burst', boundaryMs: 4000, count: 10 },
      ],
      clients: { count: p.clients, keying: p.keying, assign: 'round-robin' },
      retry: {
        onReject: p.onReject,
        maxAttempts: 3,
        backoffBaseMs: 20,
        backoffCapMs: 500,
        turnaroundMs: 5,
      },
      deployment: {
        instances: p.instances,
        balancer: p.balancer,
        state: p.state,
        roundTripMs: p.roundTripMs,
      },
      clock: {
        mode: p.wall ? 'wall' : 'monotonic',
        jumps: [{ atMs: p.jumpAtMs, byMs: p.jumpByMs }],
      },
    }),
  );

describe('seeking', () => {
  it('gives the same state as replaying from zero, at random times in any order', () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.subarray(LIMITERS, { minLength: 1, maxLength: 3 }),
        // Pairs (t, back): seek t, then t − back, which may fall in the same gap between rows.
        fc.array(fc.tuple(fc.integer({ min: -5, max: 10_500 }), fc.integer({ min: 0, max: 60 })), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat(),
        (sc, limiters, times, keyPick) => {
          const result = simulate(limiters, sc, 10_000);
          const seeker = new Seeker(result);
          const key = result.keyNames[keyPick % result.keyNames.length]!;
          for (const [t0, back] of times) {
            for (const t of [t0, t0 - back]) {
              const fromZero = new Seeker(result, { useCheckpoints: false }).stateAt(t, key);
              expect(seeker.stateAt(t, key)).toEqual(fromZero);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('takes back a racy write when seeking to before it lands', () => {
    const result = simulate(
      [{ kind: 'fixed-window', limit: 5, windowMs: 1000 }],
      scenario({
        sources: [{ kind: 'manual', timesMs: [100, 300] }],
        deployment: {
          instances: 2,
          balancer: 'round-robin',
          state: 'shared-racy',
          roundTripMs: 40,
        },
      }),
      1000,
    );
    const seeker = new Seeker(result);
    const count = (t: number) => {
      const lane = seeker.stateAt(t).lanes[0]!;
      return {
        count: (lane.stores[0]!.inspection as { count: number }).count,
        inFlight: lane.inFlightWrites,
      };
    };
    expect(count(150)).toEqual({ count: 1, inFlight: 0 });
    expect(count(120)).toEqual({ count: 0, inFlight: 1 });
    expect(count(140)).toEqual({ count: 1, inFlight: 0 });
  });

  it('uses checkpoints on a long run and stays exact across them', () => {
    const result = simulate(
      LIMITERS,
      scenario({ sources: [{ kind: 'poisson', ratePerSec: 500, startMs: 0, endMs: 20_000 }] }),
      20_000,
    );
    expect(result.memory.checkpointBytes).toBeGreaterThan(0);
    const seeker = new Seeker(result);
    for (const t of [19_999, 10_000, 10_001, 2047, 0, 15_500]) {
      expect(seeker.stateAt(t)).toEqual(new Seeker(result, { useCheckpoints: false }).stateAt(t));
    }
  });

  it('floors a fractional animation time and refuses a non-finite one', () => {
    const result = simulate(LIMITERS.slice(0, 2), scenario({}), 5000);
    expect(stateAt(result, 1234.9)).toEqual({ ...stateAt(result, 1234), tMs: 1234 });
    expect(() => stateAt(result, Number.NaN)).toThrow(RangeError);
  });
});

/**
 * An independent replay of a lane from its rows, written from the Deployment docs: local stores per
 * instance, one shared store, or read at arrival / write a round trip later.
 */
function replay(result: SimResult, lane: number, untilMs: number): Limiter[] {
  const l = result.lanes[lane]!;
  const dep: Deployment = result.scenario.deployment;
  const clock = new WallClock(result.scenario.clock);
  const stores = Array.from({ length: dep.state === 'local' ? dep.instances : 1 }, () =>
    createLimiter(l.config),
  );
  const writes: Array<{ atMs: number; key: string; state: KeyState | undefined }> = [];
  const c = l.columns;
  for (let r = 0; r < c.rows && c.arrivalMs[r]! <= untilMs; r += 1) {
    const t = c.arrivalMs[r]!;
    const key = result.keyNames[result.clientKey[result.arrivals.client[c.origin[r]!]!]!]!;
    const wall = clock.wallAt(t);
    let d;
    if (dep.state === 'shared-racy') {
      while (writes.length > 0 && writes[0]!.atMs <= t) {
        const w = writes.shift()!;
        stores[0]!.setState(w.key, w.state);
      }
      const copy = createLimiter(l.config);
      copy.setState(key, stores[0]!.getState(key));
      d = copy.decide(wall, key);
      const logsRejected = l.config.kind === 'sliding-log' && l.config.logRejected === true;
      if (d.outcome !== 'reject' || logsRejected) {
        writes.push({ atMs: t + dep.roundTripMs, key, state: copy.getState(key) });
      }
    } else {
      d = stores[dep.state === 'local' ? c.instance[r]! : 0]!.decide(wall, key);
    }
    // The recorded row is exactly this decision.
    expect(OUTCOMES[c.outcome[r]!]).toBe(d.outcome);
    expect(c.waitMs[r]).toBe(d.delayMs + d.retryAfterMs);
    expect(c.remaining[r]).toBe(d.remaining);
    expect(c.resetMs[r]).toBe(d.resetMs);
  }
  for (const w of writes) if (w.atMs <= untilMs) stores[0]!.setState(w.key, w.state);
  return stores;
}

describe('recorded decisions', () => {
  it('are what the core decides when the rows are replayed by hand, and seeking agrees', () => {
    fc.assert(
      fc.property(
        scenarioArb,
        fc.constantFrom(...LIMITERS),
        fc.integer({ min: 0, max: 10_000 }),
        (sc, limiter, t) => {
          const result = simulate([limiter], sc, 10_000);
          const stores = replay(result, 0, t);
          const wall = new WallClock(result.scenario.clock).wallAt(t);
          const state = stateAt(result, t);
          expect(state.lanes[0]!.stores.map((s) => s.inspection)).toEqual(
            stores.map((s) => s.inspect(wall, result.keyNames[0])),
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});
