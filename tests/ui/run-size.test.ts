/**
 * The run-size estimate (src/store/simRunner.ts) counts every event a run makes before the run is
 * made: each decision (first attempts and retries, every lane), each store sync and autoscaler tick
 * the fleet engine processes, each scale event. The page decides from it whether a run is computed
 * in the render or in the worker, so it must never say less than the run does.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { decodeConfig } from '../../src/config/url';
import { defaultScenario, simulate } from '../../src/sim';
import type { Scenario } from '../../src/sim';
import { FleetEngine } from '../../src/sim/fleet';
import type { RunInputs } from '../../src/store/derived';
import { SYNC_DECISIONS, newDecisions } from '../../src/store/simRunner';

afterEach(() => vi.restoreAllMocks());

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 4, windowMs: 1000 },
  { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 2, fillIntervalMs: 300 },
  { kind: 'gcra', count: 4, periodMs: 1000, burst: 2 },
];

/** What the run did: its decisions, and the syncs and replica changes the fleet processed. */
function work(limiters: AlgorithmConfig[], scenario: Scenario, untilMs: number): number {
  const proto = FleetEngine.prototype as unknown as Record<string, () => void>;
  const syncs = vi.spyOn(proto, 'sync');
  const alive = vi.spyOn(proto, 'setAlive');
  const r = simulate(limiters, scenario, untilMs);
  const rows = r.lanes.reduce((n, lane) => n + lane.columns.rows, 0);
  const n = rows + syncs.mock.calls.length + alive.mock.calls.length;
  vi.restoreAllMocks();
  return n;
}

const inputsOf = (limiters: AlgorithmConfig[], scenario: Scenario, untilMs: number): RunInputs =>
  ({ limiters: limiters.map((config) => ({ config })), scenario, untilMs }) as unknown as RunInputs;

describe('run size', () => {
  it('never counts less than the run does: decisions, retries, syncs, ticks, scale events', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 200 }),
        fc.constantFrom('give-up', 'immediate', 'retry-after'),
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
        fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
        fc.array(fc.integer({ min: 0, max: 9000 }), { maxLength: 3 }),
        fc.integer({ min: 1000, max: 20_000 }),
        (lanes, rate, onReject, maxAttempts, syncMs, everyMs, scaleAt, untilMs) => {
          const base = defaultScenario();
          const scenario: Scenario = {
            ...base,
            sources: [{ kind: 'poisson', ratePerSec: rate, startMs: 0, endMs: 8000 }],
            clients: { count: 4, keying: 'per-client', assign: 'round-robin' },
            retry: { ...base.retry, onReject, maxAttempts },
            deployment: {
              instances: 3,
              balancer: 'round-robin',
              state: 'shared-atomic',
              roundTripMs: 5,
              fleet: {
                store: {
                  rttMs: 1,
                  jitterMs: 0,
                  outages: [{ fromMs: 2000, toMs: 3000 }],
                  onDown: 'open',
                  ...(syncMs === undefined ? {} : { syncMs }),
                },
                scale: scaleAt.map((atMs, i) => ({ atMs, instances: 1 + i })),
                ...(everyMs === undefined
                  ? {}
                  : { autoscale: { everyMs, min: 1, max: 6, perReplicaRps: 5 } }),
              },
            },
          };
          const limiters = CONFIGS.slice(0, lanes);
          expect(newDecisions(inputsOf(limiters, scenario, untilMs), null)).toBeGreaterThanOrEqual(
            work(limiters, scenario, untilMs),
          );
        },
      ),
      { numRuns: 60, seed: 45 },
    );
  });

  it('a day of 1 ms syncs is as small as its requests; 10,000 keys over 10,000 requests is large', () => {
    const size = (link: string): number => {
      const { config } = decodeConfig(link);
      return newDecisions(
        { limiters: config.limiters, scenario: config.scenario, untilMs: config.view.untilMs },
        null,
      );
    };
    // The fleet engine skips idle syncs: a day of them costs what the default traffic costs.
    expect(
      size('?v=1&until=24h&deploy=64:state=shared-atomic&fleet=store_rtt=1ms,down=open,sync=1ms'),
    ).toBeLessThan(SYNC_DECISIONS);
    // Every checkpoint copies every client's key: 20 checkpoints × 10,000 keys.
    expect(
      size('?v=1&until=10s&src=poisson:rate=1000r/s,from=0,to=10s&clients=10000'),
    ).toBeGreaterThan(SYNC_DECISIONS);
    // The default page stays in the render: its first frame is its exact result.
    expect(size('?v=1')).toBeLessThan(SYNC_DECISIONS);
    // Retries count each attempt: 100 attempts of 1,000 requests.
    expect(size('?v=1&src=burst:count=1000,at=0&retry=immediate:attempts=100')).toBeGreaterThan(
      SYNC_DECISIONS,
    );
  });
});
