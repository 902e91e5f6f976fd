/**
 * Calendar windows work out a window's period again only when a request leaves the last one: a
 * streamed log's dry run decides millions of requests through core's limiter, and a new
 * [start, end] pair for every window of every request was garbage enough to grow the pass
 * worker's heap. The decisions are core's either way (tests/core/differential.test.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';

/** Counts the limiter's calls of its private `period` (the only place it makes a pair). */
function periodCalls(config: AlgorithmConfig, times: readonly number[], originMs: number) {
  const limiter = createLimiter(config, { originMs });
  const spy = vi.spyOn(limiter as unknown as { period: () => unknown }, 'period');
  const outcomes = times.map((t, i) => limiter.decide(t, `k${i % 7}`).outcome);
  return { calls: spy.mock.calls.length, outcomes };
}

describe('calendar windows reuse the period they worked out last', () => {
  it('one period per window while the requests stay in it, a new one when they leave it', () => {
    const config: AlgorithmConfig = { kind: 'calendar-windows', minute: 50, hour: 400 };
    // 10,000 requests within one minute of the clock (origin at its start): two windows, two.
    const origin = Date.UTC(2026, 11, 7, 12, 0, 0);
    const inMinute = Array.from({ length: 10_000 }, (_, i) => Math.floor(i / 200));
    expect(periodCalls(config, inMinute, origin).calls).toBe(2);
    // Into the next minute (same hour): one more for the minute's window.
    expect(periodCalls(config, [...inMinute, 60_000, 60_001], origin).calls).toBe(3);
  });

  it('a time going backwards into an earlier period is worked out again, and decided as before', () => {
    const config: AlgorithmConfig = { kind: 'calendar-windows', second: 1, countRejected: true };
    const { calls, outcomes } = periodCalls(config, [0, 1500, 200, 1600], 0);
    // Core decides each key at its latest time: k0 at 0, k1 at 1500, k2 at 200, k3 at 1600.
    expect(outcomes).toEqual(['admit', 'admit', 'admit', 'admit']);
    expect(calls).toBe(4);
  });
});
