/**
 * simulate's cache: editing a limiter reuses the arrivals and the other lanes' runs, and
 * a result made with the cache is the result made without it, seeking included.
 */
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { Seeker, createSimCache, simulate } from '../../src/sim';
import type { Scenario, SimResult } from '../../src/sim';
import { scenario } from './helpers';

const TB: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 10,
  tokensPerFill: 20,
  fillIntervalMs: 1000,
};
const LB: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 20,
  rateUnit: 'r/s',
  burst: 10,
  delay: 2,
};
const SL: AlgorithmConfig = { kind: 'sliding-log', limit: 20, windowMs: 1000 };
const LANES: AlgorithmConfig[] = [TB, LB, SL];

function traffic(overrides: Partial<Scenario> = {}): Scenario {
  return scenario({
    seed: 7,
    sources: [{ kind: 'poisson', ratePerSec: 40, startMs: 0, endMs: 10_000 }],
    clients: { count: 3, keying: 'per-client', assign: 'random' },
    ...overrides,
  });
}

/** The result without the typed-array identity: what a person or a test can observe. */
function same(a: SimResult, b: SimResult): void {
  expect(a).toEqual(b);
  const sa = new Seeker(a);
  const sb = new Seeker(b);
  for (const t of [0, 2500, 9999, 4000]) {
    for (const key of a.keyNames) expect(sa.stateAt(t, key)).toEqual(sb.stateAt(t, key));
  }
}

describe('simulate with a cache', () => {
  it('gives the result a fresh run gives, edit after edit', () => {
    const cache = createSimCache();
    const edits: Array<[AlgorithmConfig[], Scenario, number]> = [
      [LANES, traffic(), 10_000],
      [[{ ...TB, maxTokens: 3 }, LB, SL], traffic(), 10_000],
      [LANES, traffic(), 10_000],
      [LANES, traffic({ seed: 8 }), 10_000],
      [LANES, traffic({ seed: 8 }), 6000],
      [
        LANES,
        traffic({
          seed: 8,
          retry: {
            onReject: 'backoff',
            maxAttempts: 3,
            backoffBaseMs: 50,
            backoffCapMs: 500,
            turnaroundMs: 0,
          },
        }),
        6000,
      ],
      [[TB, TB], traffic({ seed: 8 }), 6000],
    ];
    for (const [limiters, sc, until] of edits) {
      same(simulate(limiters, sc, until, { cache }), simulate(limiters, sc, until));
    }
  });

  it('does not regenerate the arrivals or re-run unchanged lanes when one limiter changes', () => {
    const cache = createSimCache();
    const before = simulate(LANES, traffic(), 10_000, { cache });
    const edited: AlgorithmConfig[] = [TB, { ...LB, burst: 3 }, SL];
    const after = simulate(edited, traffic(), 10_000, { cache });
    expect(after.arrivals.timeMs).toBe(before.arrivals.timeMs);
    expect(after.lanes[0]?.columns.outcome).toBe(before.lanes[0]?.columns.outcome);
    expect(after.lanes[2]?.columns.outcome).toBe(before.lanes[2]?.columns.outcome);
    expect(after.lanes[1]?.columns.outcome).not.toBe(before.lanes[1]?.columns.outcome);
    // A new run length is new traffic: the arrivals are made again.
    const longer = simulate(edited, traffic(), 12_000, { cache });
    expect(longer.arrivals.timeMs).not.toBe(after.arrivals.timeMs);
  });

  it('gives each lane a copy of its config: changing the input afterwards changes no result', () => {
    const cache = createSimCache();
    const mine: AlgorithmConfig = { ...TB };
    const first = simulate([mine, LB], traffic(), 10_000, { cache });
    expect(first.lanes[0]?.config).toEqual(TB);
    expect(first.lanes[0]?.config).not.toBe(mine);
    (mine as { maxTokens: number }).maxTokens = 99;
    expect(first.lanes[0]?.config).toEqual(TB);
    // Run again with the changed config: a new lane with its own copy; the old one is as it was.
    const second = simulate([mine, LB], traffic(), 10_000, { cache });
    expect(second.lanes[0]?.config).toEqual({ ...TB, maxTokens: 99 });
    expect(second.lanes[0]?.config).not.toBe(mine);
    expect(first.lanes[0]?.config).toEqual(TB);
    // The unchanged lane is handed back with the config it had.
    expect(second.lanes[1]?.config).toBe(first.lanes[1]?.config);
  });

  it('hands unchanged lanes back as the same LaneResult objects, and recomputes the edited one', () => {
    const cache = createSimCache();
    const before = simulate(LANES, traffic(), 10_000, { cache });
    const edited: AlgorithmConfig[] = [TB, { ...LB, burst: 3 }, SL];
    const after = simulate(edited, traffic(), 10_000, { cache });
    expect(after.lanes[0]).toBe(before.lanes[0]);
    expect(after.lanes[2]).toBe(before.lanes[2]);
    expect(after.lanes[1]).not.toBe(before.lanes[1]);
    expect(after.lanes[1]?.config).toEqual({ ...LB, burst: 3 });
    // The divergences, computed from memoised pairs, are those of a fresh run.
    const fresh = simulate(edited, traffic(), 10_000);
    expect(after.pairDivergence).toEqual(fresh.pairDivergence);
    expect(after.divergence).toEqual(fresh.divergence);
    // Lanes swapped: same runs, other names and places; the divergences name the new places.
    const swapped = simulate([SL, TB, LB], traffic(), 10_000, { cache });
    same(swapped, simulate([SL, TB, LB], traffic(), 10_000));
    // A renamed lane is a new LaneResult (its name is in it).
    const named = simulate([{ name: 'edge', config: TB }, LB, SL], traffic(), 10_000, { cache });
    expect(named.lanes[0]).not.toBe(before.lanes[0]);
    expect(named.lanes[0]?.name).toBe('edge');
    expect(named.lanes[2]).toBe(before.lanes[2]);
    // Another metrics window is another lane result.
    const windowed = simulate(LANES, traffic({ metrics: { binMs: 250, windowMs: 500 } }), 10_000, {
      cache,
    });
    expect(windowed.lanes[0]).not.toBe(before.lanes[0]);
    same(windowed, simulate(LANES, traffic({ metrics: { binMs: 250, windowMs: 500 } }), 10_000));
  });

  it('keeps the lanes in use however many edits came before (the least recently used go first)', () => {
    // Small on purpose: 3 lanes in use, room for 5 runs. Dropped first in, first out, the lanes in
    // use reached the front after a few edits to one limiter and were all run again (every
    // eighteen edits of a six-lane page with the default 24).
    const cache = { ...createSimCache(), maxLanes: 5 };
    const before = simulate(LANES, traffic(), 10_000, { cache });
    let last = before;
    for (let n = 1; n <= 12; n += 1) {
      const edited: AlgorithmConfig[] = [{ ...TB, maxTokens: 10 + n }, LB, SL];
      last = simulate(edited, traffic(), 10_000, { cache });
      expect(last.lanes[1]).toBe(before.lanes[1]);
      expect(last.lanes[2]).toBe(before.lanes[2]);
    }
    same(last, simulate([{ ...TB, maxTokens: 22 }, LB, SL], traffic(), 10_000));
    // Runs not used lately are dropped: the first token bucket is run again (a new object).
    const again = simulate(LANES, traffic(), 10_000, { cache });
    expect(again.lanes[0]).not.toBe(before.lanes[0]);
    expect(again.lanes[1]).toBe(before.lanes[1]);
    same(again, before);
  });

  it("gives one lane's state alone as stateAt gives it with every lane, in any order of times", () => {
    const result = simulate(LANES, traffic(), 10_000);
    const alone = new Seeker(result);
    const all = new Seeker(result);
    for (const t of [0, 2500, 9999, 4000, 4000, 120]) {
      for (const key of result.keyNames) {
        const every = all.stateAt(t, key);
        for (let i = 0; i < LANES.length; i += 1) {
          expect(alone.laneStateAt(i, t, key)).toEqual(every.lanes[i]);
        }
      }
    }
    expect(() => alone.laneStateAt(LANES.length, 0)).toThrow(RangeError);
  });

  it('reports progress from 0 to 1, rising, without changing the result', () => {
    const seen: number[] = [];
    const result = simulate(LANES, traffic(), 10_000, { onProgress: (f) => seen.push(f) });
    expect(result).toEqual(simulate(LANES, traffic(), 10_000));
    expect(seen[0]).toBe(0);
    expect(seen.at(-1)).toBe(1);
    for (let i = 1; i < seen.length; i += 1) {
      expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1] as number);
    }
  });
});
