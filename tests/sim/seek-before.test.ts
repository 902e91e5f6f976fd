import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { Seeker, WHY_BATCHED, decisionAt, requestAt, simulate } from '../../src/sim';
import { scenario } from './helpers';

const LIMITERS: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 3, windowMs: 500 },
  { kind: 'sliding-log', limit: 3, windowMs: 500, logRejected: true },
  { kind: 'sliding-window-counter', limit: 3, windowMs: 500 },
  { kind: 'token-bucket', maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 200, maxDelayMs: 300 },
  { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 2, delay: 1 },
  { kind: 'gcra', count: 5, periodMs: 1000, burst: 2 },
];

describe('Seeker.storesBefore', () => {
  it('gives the state each row was decided on: deciding the row again on a copy reproduces it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.constantFrom<Array<'local' | 'shared-atomic'>>('local', 'shared-atomic'),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom<Array<'give-up' | 'immediate' | 'retry-after'>>(
          'give-up',
          'immediate',
          'retry-after',
        ),
        (seed, state, instances, onReject) => {
          const result = simulate(
            LIMITERS,
            scenario({
              seed,
              sources: [
                { kind: 'poisson', ratePerSec: 30, startMs: 0, endMs: 3000 },
                { kind: 'burst', atMs: 1000, count: 6 },
              ],
              clients: { count: 2, keying: 'per-client', assign: 'random' },
              deployment: { instances, balancer: 'random', state, roundTripMs: 5 },
              retry: {
                onReject,
                maxAttempts: 3,
                backoffBaseMs: 100,
                backoffCapMs: 1000,
                turnaroundMs: 10,
              },
            }),
            3000,
          );
          const seeker = new Seeker(result);
          for (let lane = 0; lane < result.lanes.length; lane += 1) {
            const rows = result.lanes[lane]!.columns.rows;
            // Walk backwards and forwards so cursors are both reused and restored.
            const order = [...Array(rows).keys()].filter((r) => r % 7 === seed % 7);
            for (const row of [...order.reverse(), ...order.reverse()]) {
              const { stores, store, wallMs } = seeker.storesBefore(lane, row);
              const info = requestAt(result, lane, row);
              const again = stores[store]!.clone().decide(wallMs, info.key);
              expect(again).toEqual(decisionAt(result, lane, row));
            }
          }
        },
      ),
      { numRuns: 25, seed: 7 },
    );
  });

  it('refuses a row that does not exist', () => {
    const result = simulate(LIMITERS.slice(0, 1), scenario({}), 1000);
    expect(() => new Seeker(result).storesBefore(0, result.lanes[0]!.columns.rows)).toThrow(
      RangeError,
    );
  });

  it("a fleet row decided on a replica's batched copy of the store gets that copy", () => {
    const result = simulate(
      LIMITERS.slice(0, 3),
      scenario({
        seed: 3,
        sources: [{ kind: 'poisson', ratePerSec: 40, startMs: 0, endMs: 3000 }],
        clients: { count: 2, keying: 'per-client', assign: 'random' },
        deployment: {
          instances: 3,
          balancer: 'round-robin',
          state: 'shared-atomic',
          roundTripMs: 0,
          fleet: { store: { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open', syncMs: 400 } },
        },
      }),
      3000,
    );
    const seeker = new Seeker(result);
    let batched = 0;
    for (let lane = 0; lane < result.lanes.length; lane += 1) {
      const l = result.lanes[lane]!;
      for (let row = 0; row < l.columns.rows; row += 1) {
        if (l.fleet?.why[row] === WHY_BATCHED) batched += 1;
        const { stores, store, wallMs } = seeker.storesBefore(lane, row);
        const again = stores[store]!.clone().decide(wallMs, requestAt(result, lane, row).key);
        expect(again).toEqual(decisionAt(result, lane, row));
      }
    }
    expect(batched).toBeGreaterThan(100);
  });
});
