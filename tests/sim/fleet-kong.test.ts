/**
 * Kong's cluster and redis policies in a fleet: Kong nodes are the replicas, the
 * policy is the store's behaviour. Hand-computed answers for small fleets, and properties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { createLimiter } from '../../src/core';
import {
  OUTCOMES,
  WHY_DOWN_OPEN,
  WHY_KONG_READ,
  WHY_STORE,
  simulate,
  validateRun,
} from '../../src/sim';
import type { Deployment, LaneResult, SimResult, StoreModel } from '../../src/sim';
import { scenario } from './helpers';

const KONG = (second: number, minute?: number): AlgorithmConfig => ({
  kind: 'calendar-windows',
  second,
  ...(minute === undefined ? {} : { minute }),
});

function run(
  config: AlgorithmConfig,
  store: Partial<StoreModel>,
  timesMs: number[],
  deployment: Partial<Deployment> = {},
  untilMs = 5000,
): SimResult {
  return simulate(
    [config],
    scenario({
      sources: [{ kind: 'manual', timesMs }],
      deployment: {
        instances: 2,
        balancer: 'round-robin',
        state: 'shared-atomic',
        roundTripMs: 5,
        fleet: { store: { rttMs: 5, jitterMs: 0, outages: [], onDown: 'open', ...store } },
        ...deployment,
      },
    }),
    untilMs,
  );
}

const lane0 = (r: SimResult): LaneResult => r.lanes[0] as LaneResult;
const outcomes = (r: SimResult): string =>
  Array.from(lane0(r).columns.outcome.subarray(0, lane0(r).columns.rows), (o) =>
    (OUTCOMES[o] as string)[0]?.toUpperCase(),
  ).join('');

describe('Kong cluster policy: increments land a round trip after the read', () => {
  it('2 nodes, 3/second, store 5 ms away: 7 of 8 pass before the count catches up', () => {
    // Reads at 0–4 ms all see 0 (no increment has landed: each lands 5 ms after its read); at
    // 5 ms the first has landed (count 1), at 6 ms two (count 2): both pass. At 10 ms six have
    // landed (0–5 ms): 6 ≥ 3, rejected. 7 passed where the limit is 3: 4 beyond it.
    const r = run(KONG(3), { kong: 'cluster' }, [0, 1, 2, 3, 4, 5, 6, 10]);
    expect(outcomes(r)).toBe('AAAAAAAR');
    const f = lane0(r).fleet;
    expect(Array.from(f?.why ?? [])).toEqual(new Array<number>(8).fill(WHY_KONG_READ));
    expect(f?.metrics.beyond.count).toBe(4);
    expect(f?.metrics.beyond.firstMs).toBe(3);
    expect(Array.from(lane0(r).columns.instance.subarray(0, 8))).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
  });

  it('requests a round trip apart see every earlier pass: exactly 3 pass', () => {
    const r = run(KONG(3), { kong: 'cluster' }, [0, 5, 10, 15, 20]);
    expect(outcomes(r)).toBe('AAARR');
    expect(lane0(r).fleet?.metrics.beyond.count).toBe(0);
  });

  it('an increment counts in its own second even when it lands in the next one', () => {
    // Passes at 996–999 ms (4 of them, the reads saw 0,0,0,0 … the first lands at 1001).
    // At 1000 ms a new second: its count is 0 → pass; the late increments went to second 0.
    const r = run(KONG(3), { kong: 'cluster' }, [996, 997, 998, 999, 1000, 1006, 1007, 1008]);
    // 996–999: reads see 0, 0, 0, 0 (nothing landed before 1001) → 4 pass. 1000: second 1 is
    // empty → pass (lands 1005). 1006: 1 in second 1 → pass (lands 1011). 1007: 2 → pass.
    // 1008: still 2 landed (1006's lands at 1011) → pass. Then 4 passed in second 1 too.
    expect(outcomes(r)).toBe('AAAAAAAA');
    const late = run(
      KONG(3),
      { kong: 'cluster' },
      [996, 997, 998, 999, 1000, 1006, 1007, 1008, 1013],
    );
    // By 1013: 1000, 1006, 1007, 1008 have landed in second 1: 4 ≥ 3 → rejected.
    expect(outcomes(late)).toBe('AAAAAAAAR');
  });

  it('store down with fault_tolerant (open): passes uncounted, unless the store is back when the increment lands', () => {
    // Down [0, 3): requests at 0, 1 pass without asking (their increments land at 5, 6 — store
    // back: counted). 2 passes too (lands 7). At 10: 3 landed → rejected.
    const r = run(KONG(3), { kong: 'cluster', outages: [{ fromMs: 0, toMs: 3 }] }, [0, 1, 2, 10]);
    expect(outcomes(r)).toBe('AAAR');
    expect(lane0(r).fleet?.why[0]).toBe(WHY_DOWN_OPEN);
    // Down [0, 8): the increments of 0 and 1 land at 5 and 6, still down: lost. 10 passes.
    const lost = run(
      KONG(3),
      { kong: 'cluster', outages: [{ fromMs: 0, toMs: 8 }] },
      [0, 1, 10, 20, 30],
    );
    // 10: nothing counted → pass (lands 15); 20: 1 → pass (lands 25); 30: 2 → pass.
    expect(outcomes(lost)).toBe('AAAAA');
  });

  it('fault_tolerant false (closed, 500): every request while the store is down is refused', () => {
    const r = run(
      KONG(3),
      { kong: 'cluster', onDown: 'closed', downStatus: 500, outages: [{ fromMs: 0, toMs: 3 }] },
      [0, 1, 2, 10],
    );
    expect(outcomes(r)).toBe('RRRA');
  });
});

describe('Kong redis policy, sync_rate −1: INCR before the comparison', () => {
  it('is atomic across nodes: 3 of 8 pass at once', () => {
    const r = run(KONG(3), { kong: 'redis' }, [0, 1, 2, 3, 4, 5, 6, 10]);
    expect(outcomes(r)).toBe('AAARRRRR');
    expect(lane0(r).fleet?.why[0]).toBe(WHY_STORE);
  });

  it('counts rejected requests too: a client that keeps trying uses up the minute', () => {
    // 3/second and 5/minute. Second 0: 4 requests, the 4th rejected but INCRed (minute 4).
    // Second 1: the first passes (minute 5), the next is rejected by the minute limit. Under the
    // cluster policy the rejected one is not counted: both pass.
    const times = [0, 10, 20, 30, 1000, 1010];
    expect(outcomes(run(KONG(3, 5), { kong: 'redis' }, times))).toBe('AAARAR');
    expect(outcomes(run(KONG(3, 5), { kong: 'cluster', rttMs: 0 }, times))).toBe('AAARAA');
  });
});

describe('properties', () => {
  const times = fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 1, maxLength: 60 });
  it('cluster with a 0 ms store equals the Kong local model, decision by decision', () => {
    fc.assert(
      fc.property(
        times,
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (ts, limit, n) => {
          const sorted = ts.slice().sort((a, b) => a - b);
          const cfg = KONG(limit, limit * 3);
          const r = run(cfg, { kong: 'cluster', rttMs: 0 }, sorted, { instances: n });
          const local = createLimiter(cfg);
          const want = sorted
            .map((t) => (local.decide(t).outcome === 'reject' ? 'R' : 'A'))
            .join('');
          expect(outcomes(r)).toBe(want);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('cluster never passes fewer than an atomic store on the same requests', () => {
    fc.assert(
      fc.property(times, fc.integer({ min: 0, max: 20 }), (ts, rtt) => {
        const sorted = ts.slice().sort((a, b) => a - b);
        const passed = (r: SimResult): number => outcomes(r).replaceAll('R', '').length;
        const cluster = run(KONG(3), { kong: 'cluster', rttMs: rtt }, sorted);
        const atomic = run(KONG(3), {}, sorted);
        expect(passed(cluster)).toBeGreaterThanOrEqual(passed(atomic));
      }),
      { numRuns: 40 },
    );
  });

  it('a Kong policy with sync_rate batching is refused, naming the field', () => {
    const errors = validateRun(
      [KONG(3)],
      scenario({
        deployment: {
          instances: 2,
          balancer: 'round-robin',
          state: 'shared-atomic',
          roundTripMs: 5,
          fleet: {
            store: {
              rttMs: 5,
              jitterMs: 0,
              outages: [],
              onDown: 'open',
              kong: 'redis',
              syncMs: 1000,
            },
          },
        },
      }),
      1000,
    );
    expect(JSON.stringify(errors)).toMatch(/fleet\.store\.syncMs.*Kong/);
  });
});
