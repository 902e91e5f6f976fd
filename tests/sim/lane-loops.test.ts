/**
 * The two lane loops make the same results: simulate.ts's runLane (the page's, any deployment) and
 * lanePlain.ts's runPlainLane (the worker's, for lanes that are not fleets). Random
 * scenarios over every algorithm, local, shared and racy instances, retries, several clients and
 * clock jumps: the same columns, metrics, releases, truncation and seeks either way.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { Seeker, simulate } from '../../src/sim';
import type { Scenario, SimResult } from '../../src/sim';
import { runPlainLane } from '../../src/sim/lanePlain';
import { installPlainLaneLoop } from '../../src/sim/simulate';
import { scenario } from './helpers';

const LIMITERS: AlgorithmConfig[] = [
  { kind: 'token-bucket', maxTokens: 8, tokensPerFill: 20, fillIntervalMs: 1000 },
  { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 10, fillIntervalMs: 500, maxDelayMs: 400 },
  { kind: 'leaky-bucket', rate: 20, rateUnit: 'r/s', burst: 6, delay: 2 },
  { kind: 'gcra', count: 20, periodMs: 1000, burst: 4 },
  { kind: 'fixed-window', limit: 15, windowMs: 1000 },
  { kind: 'sliding-window-counter', limit: 15, windowMs: 1000 },
  { kind: 'sliding-log', limit: 15, windowMs: 1000, logRejected: true },
];

/** Everything a result holds that is data (the lanes' columns, metrics and releases included). */
function data(result: SimResult) {
  return {
    ...result,
    lanes: result.lanes.map((l) => ({ ...l, columns: { ...l.columns } })),
  };
}

afterEach(() => installPlainLaneLoop(null));

describe('the plain lane loop', () => {
  it('is the one used when installed', () => {
    let calls = 0;
    installPlainLaneLoop((ctx) => {
      calls += 1;
      return runPlainLane(ctx);
    });
    simulate(LIMITERS.slice(0, 2), scenario({}), 2000);
    expect(calls).toBe(2);
  });

  it('makes the results runLane makes', () => {
    fc.assert(
      fc.property(
        fc.record({
          seed: fc.integer({ min: 1, max: 1000 }),
          rate: fc.integer({ min: 5, max: 120 }),
          clients: fc.integer({ min: 1, max: 3 }),
          instances: fc.integer({ min: 1, max: 3 }),
          state: fc.constantFrom('local', 'shared-atomic', 'shared-racy'),
          balancer: fc.constantFrom('round-robin', 'random'),
          onReject: fc.constantFrom('give-up', 'immediate', 'retry-after', 'backoff'),
          maxAttempts: fc.integer({ min: 1, max: 3 }),
          jump: fc.boolean(),
          lanes: fc.subarray(LIMITERS, { minLength: 1, maxLength: 3 }),
        }),
        (p) => {
          const sc: Scenario = scenario({
            seed: p.seed,
            sources: [
              { kind: 'poisson', ratePerSec: p.rate, startMs: 0, endMs: 6000 },
              { kind: 'burst', atMs: 2500, count: 12 },
            ],
            clients: { count: p.clients, keying: 'per-client', assign: 'random' },
            retry: {
              onReject: p.onReject,
              maxAttempts: p.maxAttempts,
              backoffBaseMs: 50,
              backoffCapMs: 800,
              turnaroundMs: 3,
            },
            deployment: {
              instances: p.instances,
              balancer: p.balancer,
              state: p.state,
              roundTripMs: 9,
            },
            clock: p.jump
              ? { mode: 'wall', jumps: [{ atMs: 3000, byMs: -700 }] }
              : { mode: 'monotonic', jumps: [] },
          });
          installPlainLaneLoop(null);
          const general = simulate(p.lanes, sc, 6000);
          installPlainLaneLoop(runPlainLane);
          const plain = simulate(p.lanes, sc, 6000);
          expect(data(plain)).toEqual(data(general));
          const a = new Seeker(general);
          const b = new Seeker(plain);
          for (const t of [5999, 1200, 3000, 2999, 2500]) {
            for (const key of general.keyNames)
              expect(b.stateAt(t, key)).toEqual(a.stateAt(t, key));
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
