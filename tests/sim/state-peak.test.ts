import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { requestAt, simulate } from '../../src/sim';
import { scenario } from './helpers';

/**
 * Replays one lane's decisions on fresh limiters and, after every decision, sums stateSize over
 * every key: the exact peak the simulation must report (one instance, monotonic clock).
 */
function recomputedPeak(
  config: AlgorithmConfig,
  result: ReturnType<typeof simulate>,
  lane: number,
): { bytes: number; entries: number; perKeyBytes: number[] } {
  const limiter = createLimiter(config);
  let bytes = 0;
  let entries = 0;
  const perKeyBytes = result.keyNames.map(() => 0);
  const rows = result.lanes[lane]!.columns.rows;
  for (let row = 0; row < rows; row += 1) {
    const info = requestAt(result, lane, row);
    const d = limiter.decide(info.arrivalMs, info.key);
    expect(d.outcome).toBe(info.decision.outcome);
    let b = 0;
    let e = 0;
    for (const [k, key] of result.keyNames.entries()) {
      const size = limiter.stateSize(info.arrivalMs, key);
      b += size.bytes;
      e += size.entries;
      perKeyBytes[k] = Math.max(perKeyBytes[k]!, size.bytes);
    }
    bytes = Math.max(bytes, b);
    entries = Math.max(entries, e);
  }
  return { bytes, entries, perKeyBytes };
}

const window10per2s = { limit: 10, windowMs: 2000 };

describe('peak state is exact', () => {
  it('a short boundary burst: the log holds 10 entries, the windows their counters', () => {
    const configs: AlgorithmConfig[] = [
      { kind: 'fixed-window', ...window10per2s },
      { kind: 'sliding-log', ...window10per2s, logRejected: false },
      { kind: 'sliding-window-counter', ...window10per2s },
    ];
    const result = simulate(
      configs,
      scenario({
        sources: [{ kind: 'boundary-burst', boundaryMs: 4000, count: 10, spreadMs: 1000 }],
      }),
      8000,
    );
    configs.forEach((config, lane) => {
      const want = recomputedPeak(config, result, lane);
      const got = result.lanes[lane]!.metrics.state;
      expect(got.peakBytes).toBe(want.bytes);
      expect(got.peakEntries).toBe(want.entries);
      expect(got.peakBytes).toBeGreaterThan(0);
    });
    // The sliding log's own view shows 10 entries at its fullest.
    expect(result.lanes[1]!.metrics.state.peakEntries).toBe(10);
  });

  it('many keys, every algorithm: the peak is the per-decision maximum', () => {
    const configs: AlgorithmConfig[] = [
      { kind: 'fixed-window', limit: 5, windowMs: 1000 },
      { kind: 'sliding-log', limit: 5, windowMs: 1000, logRejected: true },
      { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
      { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 2, fillIntervalMs: 500 },
      { kind: 'leaky-bucket', rate: 4, rateUnit: 'r/s', burst: 3, delay: 'nodelay' },
      { kind: 'gcra', count: 4, periodMs: 1000, burst: 3 },
    ];
    const result = simulate(
      configs,
      scenario({
        clients: { count: 7, keying: 'per-client', assign: 'random' },
        sources: [
          { kind: 'poisson', ratePerSec: 40, startMs: 0, endMs: 3000 },
          { kind: 'burst', atMs: 6000, count: 30 },
        ],
      }),
      9000,
    );
    configs.forEach((config, lane) => {
      const want = recomputedPeak(config, result, lane);
      const got = result.lanes[lane]!.metrics.state;
      expect({ lane, bytes: got.peakBytes, entries: got.peakEntries }).toEqual({
        lane,
        bytes: want.bytes,
        entries: want.entries,
      });
      expect(Array.from(got.perKeyPeakBytes)).toEqual(want.perKeyBytes);
    });
  });
});
