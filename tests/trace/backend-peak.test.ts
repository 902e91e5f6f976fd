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

describe('streamed sweep backend peak with delayed requests', () => {
  /**
   * `n` requests, gaps of 0..4 ms; every third delayed by 0..maxDelay ms (as a kernel records
   * them, in request order: admitted times, and the delays beside the release times).
   */
  function requests(n: number, maxDelay: number, seed: number) {
    const t = arrivals(n, 4, seed);
    const adm: number[] = [];
    const del: number[] = [];
    const rel: number[] = [];
    let x = seed;
    for (let i = 0; i < n; i += 1) {
      x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
      const at = t[i] as number;
      if (i % 3 === 0) {
        const d = 1 + (x % maxDelay);
        del.push(d);
        rel.push(at + d);
      } else adm.push(at);
    }
    return { t, adm, del, rel };
  }

  it('lets each release join when its request comes: the same peak, a heap of what is still to come', () => {
    for (const [maxDelay, windowMs, seed] of [
      [50, 100, 3],
      [2_000, 1_000, 9],
      [7, 10, 12],
    ] as const) {
      const { t, adm, del, rel } = requests(60_000, maxDelay, seed);
      const chunk = 4_096;
      const fed = (withDelays: boolean) => {
        const peak = new BackendPeak(windowMs);
        let a = 0;
        let r = 0;
        let most = 0;
        for (let at = 0; at < t.length; at += chunk) {
          const end = Math.min(t.length, at + chunk);
          const last = t[end - 1] as number;
          let a2 = a;
          while (a2 < adm.length && (adm[a2] as number) <= last) a2 += 1;
          let r2 = r;
          while (r2 < rel.length && (rel[r2] as number) - (del[r2] as number) <= last) r2 += 1;
          peak.chunk(
            Float64Array.from(adm.slice(a, a2)),
            a2 - a,
            Float64Array.from(rel.slice(r, r2)),
            r2 - r,
            last,
            withDelays ? Float64Array.from(del.slice(r, r2)) : undefined,
          );
          most = Math.max(
            most,
            (peak as unknown as { pending: { a: Float64Array } }).pending.a.length,
          );
          a = a2;
          r = r2;
        }
        return { best: peak.finish(), most };
      };
      const all = Float64Array.from([...adm, ...rel].sort((p, q) => p - q));
      const want = peakWindow(all, all.length, windowMs).count;
      const plain = fed(false);
      const joined = fed(true);
      expect(plain.best, `delay ≤ ${maxDelay}, W ${windowMs}`).toBe(want);
      expect(joined.best, `delay ≤ ${maxDelay}, W ${windowMs}`).toBe(want);
      // A chunk's releases all at once need a heap of about 1,365; those still to come, about
      // maxDelay / 2 ms of requests' worth (a request every 2 ms, a third of them delayed).
      expect(plain.most).toBeGreaterThanOrEqual(1_024);
      expect(joined.most).toBeLessThanOrEqual(Math.max(64, 2 * maxDelay));
    }
  });
});
