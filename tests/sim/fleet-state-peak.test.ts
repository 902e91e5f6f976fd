/**
 * (speed): a fleet decision re-reads only the stores that held the key and the ones the
 * decision touched. The peaks must be exactly those of reading every store after every decision.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { simulate } from '../../src/sim';
import type { Deployment, Scenario } from '../../src/sim';
import { FleetEngine } from '../../src/sim/fleet';
import { scenario } from './helpers';

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 6, windowMs: 1000 },
  { kind: 'sliding-log', limit: 6, windowMs: 1000 },
  { kind: 'token-bucket', maxTokens: 4, tokensPerFill: 6, fillIntervalMs: 1000 },
  { kind: 'leaky-bucket', rate: 6, rateUnit: 'r/s', burst: 3, delay: 1 },
];

function states(s: Scenario): unknown[] {
  const r = simulate(CONFIGS, s, 12_000);
  return r.lanes.map((l) => {
    const st = l.metrics.state;
    return {
      ...st,
      perKeyPeakBytes: [...st.perKeyPeakBytes],
      perKeyPeakEntries: [...st.perKeyPeakEntries],
    };
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('fleet memory peaks', () => {
  it('reading only the touched and holding stores gives the same peaks as reading all 65', () => {
    const deployment = fc.record({
      instances: fc.integer({ min: 1, max: 6 }),
      balancer: fc.constantFrom('round-robin', 'random', 'hash', 'least-outstanding'),
      state: fc.constantFrom('local', 'local-divided', 'shared-atomic', 'layered'),
      onDown: fc.constantFrom('open', 'closed', 'local'),
      scaleTo: fc.integer({ min: 1, max: 8 }),
    });
    fc.assert(
      fc.property(deployment, fc.integer({ min: 1, max: 1000 }), (d, seed) => {
        const dep: Deployment = {
          instances: d.instances,
          balancer: d.balancer,
          state: d.state,
          roundTripMs: 5,
          fleet: {
            scale: [{ atMs: 6000, instances: d.scaleTo }],
            store: {
              rttMs: 1,
              jitterMs: 2,
              outages: [{ fromMs: 3000, toMs: 5000 }],
              onDown: d.onDown,
            },
          },
        };
        const s = scenario({
          seed,
          clients: { count: 5, keying: 'per-client', assign: 'random' },
          sources: [{ kind: 'poisson', ratePerSec: 30, startMs: 0, endMs: 12_000 }],
          deployment: dep,
        });
        const fast = states(s);
        // null: "any store may have changed", the tracker then reads every store.
        vi.spyOn(FleetEngine.prototype, 'touched').mockReturnValue(null as unknown as number[]);
        const all = states(s);
        vi.restoreAllMocks();
        expect(fast).toEqual(all);
      }),
      { numRuns: 25 },
    );
  });
});
