import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Limiter } from '../../src/core';
import { StateTracker } from '../../src/sim/state-tracker';

/** A small deterministic generator (the test's own draws, not the simulator's). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 2, fillIntervalMs: 100 },
  { kind: 'gcra', count: 4, periodMs: 200, burst: 2 },
  { kind: 'fixed-window', limit: 3, windowMs: 150 },
  { kind: 'sliding-log', limit: 3, windowMs: 150 },
];

/**
 * Two trackers over two identical sets of stores fed the same decisions: one through `after`
 * alone, one through `afterOne` first (as the lane loop does). Peaks, their time and every
 * measured total must agree after every decision, and the one-step case must be taken.
 */
function compare(config: AlgorithmConfig, instances: number, keys: number, seed: number): number {
  const names = Array.from({ length: keys }, (_, i) => `k${i}`);
  const index = new Map(names.map((n, i) => [n, i]));
  const make = (): Limiter[] =>
    Array.from({ length: instances }, () => {
      const l = createLimiter(config);
      l.useKeyIndex(index);
      return l;
    });
  const storesA = make();
  const storesB = make();
  const a = new StateTracker(names, storesA);
  const b = new StateTracker(names, storesB);
  a.keysIndexed();
  b.keysIndexed();
  const draw = lcg(seed);
  let t = 0;
  let oneStep = 0;
  for (let i = 0; i < 3000; i += 1) {
    t += Math.floor(draw() * (draw() < 0.1 ? 400 : 20));
    const k = Math.floor(draw() * draw() * keys);
    const s = Math.floor(draw() * instances);
    const key = names[k]!;
    const da = storesA[s]!.decideKey(t, key, k).outcome;
    const db = storesB[s]!.decideKey(t, key, k).outcome;
    expect(db).toBe(da);
    const passed = da !== 'reject';
    a.after(key, t, t, false, [s], k, passed);
    if (b.afterOne(k, s, t, passed)) oneStep += 1;
    else b.after(key, t, t, false, [s], k, passed);
    expect([b.peakTotalBytes, b.peakTotalEntries, b.peakAtMs]).toEqual([
      a.peakTotalBytes,
      a.peakTotalEntries,
      a.peakAtMs,
    ]);
    if (i % 97 === 0) expect(b.measure(t, t)).toEqual(a.measure(t, t));
  }
  expect(Array.from(b.peakBytes)).toEqual(Array.from(a.peakBytes));
  expect(Array.from(b.peakEntries)).toEqual(Array.from(a.peakEntries));
  return oneStep;
}

describe('StateTracker.afterOne', () => {
  for (const config of CONFIGS) {
    it(`changes nothing after does not: ${config.kind}`, () => {
      let oneStep = 0;
      for (const [instances, keys, seed] of [
        [1, 1, 1],
        [1, 5, 2],
        [3, 4, 3],
      ] as const)
        oneStep += compare(config, instances, keys, seed);
      // Fixed-size states take the one step often; a log (its size varies) never does.
      if (config.kind === 'sliding-log') expect(oneStep).toBe(0);
      else expect(oneStep).toBeGreaterThan(1000);
    });
  }
});
