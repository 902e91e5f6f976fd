/**
 * The streamed sweep's backend peak (src/trace/streamSweep.ts `BackendPeak`): the most arrivals in
 * any W, as `peakWindow` counts them over the same sorted times, and its runs slid in place once
 * their arrays are big enough (no new arrays at every slide: a cell worker held tens of MB of the
 * old ones as garbage outside the heap).
 */
import { describe, expect, it } from 'vitest';
import { peakWindow } from '../../src/sim/metrics';
import { BackendPeak } from '../../src/trace/streamSweep';

/** Deterministic arrival times: gaps of 0..maxGap ms from a small linear congruential generator. */
function arrivals(n: number, maxGap: number, seed: number): Float64Array {
  const out = new Float64Array(n);
  let x = seed >>> 0;
  let t = 1_000;
  for (let i = 0; i < n; i += 1) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    t += x % (maxGap + 1);
    out[i] = t;
  }
  return out;
}

/** Feeds `times` as admitted arrivals, `chunk` at a time, as the cells do. */
function feed(peak: BackendPeak, times: Float64Array, chunk: number, after?: (i: number) => void) {
  const none = new Float64Array(0);
  for (let at = 0; at < times.length; at += chunk) {
    const part = times.subarray(at, Math.min(times.length, at + chunk));
    peak.chunk(part, part.length, none, 0, part[part.length - 1] as number);
    after?.(at + part.length);
  }
}

const ring = (peak: BackendPeak) => peak as unknown as { t: Float64Array; c: Float64Array };

describe('streamed sweep backend peak', () => {
  it('counts the most arrivals in any W as peakWindow does', () => {
    for (const [maxGap, windowMs, seed] of [
      [3, 50, 1],
      [10, 1000, 7],
      [0, 10, 3],
      [40, 200, 11],
    ] as const) {
      const times = arrivals(20_000, maxGap, seed);
      const peak = new BackendPeak(windowMs);
      feed(peak, times, 997);
      expect(peak.finish(), `gap ${maxGap}, W ${windowMs}`).toBe(
        peakWindow(times, times.length, windowMs).count,
      );
    }
  });

  it('slides its runs in place once its arrays hold a W of them: no new arrays after that', () => {
    // About 100 runs live in any W (a distinct ms every 1..3 ms, W 200 ms): arrays of 256 hold them.
    const times = arrivals(200_000, 3, 5);
    const peak = new BackendPeak(200);
    let settled: Float64Array | null = null;
    let replaced = 0;
    feed(peak, times, 4096, (done) => {
      const t = ring(peak).t;
      if (done < 20_000) return;
      if (settled !== null && t !== settled) replaced += 1;
      settled = t;
    });
    expect(ring(peak).t.length).toBeLessThanOrEqual(256);
    expect(replaced).toBe(0);
    expect(peak.finish()).toBe(peakWindow(times, times.length, 200).count);
  });
});
