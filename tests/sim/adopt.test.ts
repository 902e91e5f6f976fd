/**
 * A result copied across threads (structured clone, as a worker's answer arrives) loses its
 * checkpoints; `adoptResult` makes it seekable again and it draws every state the original draws,
 * with checkpoints recorded as it replays — racy shared state, retries and clock jumps included.
 */
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import {
  PORTABLE_CHECKPOINTS,
  Seeker,
  adoptResult,
  portableCheckpoints,
  simulate,
} from '../../src/sim';
import { scenario } from './helpers';

const LIMITERS: AlgorithmConfig[] = [
  { kind: 'sliding-log', limit: 20, windowMs: 1000, logRejected: true },
  { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 20, fillIntervalMs: 1000, maxDelayMs: 300 },
  { kind: 'leaky-bucket', rate: 20, rateUnit: 'r/s', burst: 10, delay: 2 },
  { kind: 'gcra', count: 20, periodMs: 1000, burst: 5 },
  { kind: 'fixed-window', limit: 20, windowMs: 1000 },
  { kind: 'sliding-window-counter', limit: 20, windowMs: 1000 },
];

const BUSY = scenario({
  seed: 3,
  sources: [
    { kind: 'poisson', ratePerSec: 300, startMs: 0, endMs: 20_000 },
    { kind: 'boundary-burst', boundaryMs: 5000, count: 15 },
  ],
  clients: { count: 4, keying: 'per-client', assign: 'random' },
  retry: {
    onReject: 'backoff',
    maxAttempts: 3,
    backoffBaseMs: 50,
    backoffCapMs: 800,
    turnaroundMs: 2,
  },
  deployment: { instances: 3, balancer: 'random', state: 'shared-racy', roundTripMs: 7 },
  clock: { mode: 'wall', jumps: [{ atMs: 8000, byMs: -1500 }] },
});

describe('adoptResult', () => {
  it('draws the states the original draws, forwards, backwards and again', () => {
    const original = simulate(LIMITERS, BUSY, 20_000);
    const copy = adoptResult(structuredClone(original));
    expect(() => new Seeker(structuredClone(original))).toThrow(/seeking needs/);
    const a = new Seeker(original);
    const b = new Seeker(copy);
    // Far forward first (records checkpoints all the way), then back, then around them.
    const times = [19_999, 300, 12_345, 7999, 8000, 8001, 15_000.5, 2, 19_000, 6000, 6007, 6003];
    for (const t of times) {
      for (const key of original.keyNames) expect(b.stateAt(t, key)).toEqual(a.stateAt(t, key));
    }
    for (let lane = 0; lane < LIMITERS.length; lane += 1) {
      for (const row of [5000, 17, 2600, 2599]) {
        const rows = original.lanes[lane]?.columns.rows ?? 0;
        if (row >= rows) continue;
        const sa = a.storesBefore(lane, row);
        const sb = b.storesBefore(lane, row);
        expect(sb.wallMs).toBe(sa.wallMs);
        expect(sb.stores.map((s) => [...s.keys()].map((k) => s.getState(k)))).toEqual(
          sa.stores.map((s) => [...s.keys()].map((k) => s.getState(k))),
        );
      }
    }
  });

  it('with its portable checkpoints (sent as plain data) draws the same states', () => {
    const original = simulate(LIMITERS, BUSY, 20_000);
    const sent = structuredClone({ result: original, checkpoints: portableCheckpoints(original) });
    const copy = adoptResult(sent.result, sent.checkpoints);
    const a = new Seeker(original);
    const b = new Seeker(copy);
    for (const t of [19_999, 300, 12_345, 7999, 8000, 8001, 15_000.5, 2, 19_000, 6000, 6007]) {
      for (const key of original.keyNames) expect(b.stateAt(t, key)).toEqual(a.stateAt(t, key));
    }
    // Every lane seeks to just before rows around its checkpoints.
    for (let lane = 0; lane < LIMITERS.length; lane += 1) {
      const rows = original.lanes[lane]?.columns.rows ?? 0;
      for (const row of [rows - 1, 511, 512, 513, 1024, 3, rows >> 1]) {
        if (row < 0 || row >= rows) continue;
        const sa = a.storesBefore(lane, row);
        const sb = b.storesBefore(lane, row);
        expect(sb.stores.map((s) => [...s.keys()].map((k) => s.getState(k)))).toEqual(
          sa.stores.map((s) => [...s.keys()].map((k) => s.getState(k))),
        );
      }
    }
  });

  it('with its checkpoints thinned to a bound on key states, draws the same states', () => {
    const original = simulate(LIMITERS, BUSY, 20_000);
    const all = portableCheckpoints(original);
    const states = (p: typeof all) =>
      p.lanes.map((l) => l.checkpoints.reduce((a, cp) => a + cp.stores.flat().length, 0));
    const full = states(all);
    const bound = 60;
    const thin = portableCheckpoints(original, bound * LIMITERS.length);
    // Thinned to the bound where a lane had more, with fewer checkpoints, the first one kept.
    states(thin).forEach((n, lane) => {
      if ((full[lane] as number) > bound) {
        expect(n).toBeLessThanOrEqual(bound);
        expect(thin.lanes[lane]?.checkpoints.length).toBeLessThan(
          all.lanes[lane]?.checkpoints.length ?? 0,
        );
      } else expect(n).toBe(full[lane]);
      expect(thin.lanes[lane]?.checkpoints[0]?.row).toBe(all.lanes[lane]?.checkpoints[0]?.row);
    });
    expect(full.some((n) => n > bound)).toBe(true);
    const sent = structuredClone({ result: original, checkpoints: thin });
    const a = new Seeker(original);
    const b = new Seeker(adoptResult(sent.result, sent.checkpoints));
    for (const t of [19_999, 300, 12_345, 7999, 8000, 8001, 15_000.5, 2, 19_000, 6000, 6007]) {
      for (const key of original.keyNames) expect(b.stateAt(t, key)).toEqual(a.stateAt(t, key));
    }
  });

  it('sends at most PORTABLE_CHECKPOINTS checkpoints a lane, and draws the same states', () => {
    const long = scenario({
      sources: [{ kind: 'constant', ratePerSec: 1000, startMs: 0, endMs: 300_000 }],
    });
    const original = simulate(
      [{ kind: 'token-bucket', maxTokens: 50, tokensPerFill: 100, fillIntervalMs: 1000 }],
      long,
      300_000,
    );
    const thin = portableCheckpoints(original);
    const kept = thin.lanes[0]?.checkpoints ?? [];
    expect(original.lanes[0]?.columns.rows).toBe(300_000);
    // About 586 checkpoints made (every 512 rows), every 4th sent.
    expect(kept.length).toBeLessThanOrEqual(PORTABLE_CHECKPOINTS);
    expect(kept.length).toBeGreaterThan(PORTABLE_CHECKPOINTS / 2);
    expect(kept[0]?.row).toBe(0);
    const sent = structuredClone({ result: original, checkpoints: thin });
    const a = new Seeker(original);
    const b = new Seeker(adoptResult(sent.result, sent.checkpoints));
    for (const t of [299_999, 1, 150_000, 150_001, 2047, 2048, 77_777, 0, 250_000]) {
      expect(b.stateAt(t)).toEqual(a.stateAt(t));
    }
  });

  it('leaves a result of this thread as it is', () => {
    const result = simulate(LIMITERS, BUSY, 2000);
    expect(adoptResult(result)).toBe(result);
  });
});
