/** Per-key figures of a trace: volumes, top keys, and requests-per-W (a window the user picks). */
import { nearestRank } from '../sim';
import type { Trace } from './types';

/** Requests per key id. */
export function keyCounts(trace: Pick<Trace, 'count' | 'keyId' | 'keys'>): Uint32Array {
  const counts = new Uint32Array(trace.keys.length);
  for (let i = 0; i < trace.count; i += 1) {
    const k = trace.keyId[i] as number;
    counts[k] = (counts[k] as number) + 1;
  }
  return counts;
}

export interface KeyVolume {
  key: string;
  requests: number;
  /** Share of all requests, 0 – 1. */
  share: number;
}

/**
 * The `n` keys with the most requests (ties: first seen first), leaving out key id `skip` (the
 * empty key, which the page lists on its own with its system's rule; -1: none left out).
 */
export function topKeys(
  trace: Pick<Trace, 'count' | 'keyId' | 'keys'>,
  n: number,
  skip = -1,
  /** The trace's `keyCounts`, when counted already. */
  counts: Uint32Array = keyCounts(trace),
): KeyVolume[] {
  const ids = Array.from({ length: counts.length }, (_, i) => i).filter((i) => i !== skip);
  ids.sort((a, b) => (counts[b] as number) - (counts[a] as number) || a - b);
  return ids.slice(0, n).map((id) => ({
    key: trace.keys[id] as string,
    requests: counts[id] as number,
    share: trace.count > 0 ? (counts[id] as number) / trace.count : 0,
  }));
}

/** A key's busiest window of W ms: [startMs, startMs + W) holding `requests` of its requests. */
export interface WorstBurst {
  key: string;
  requests: number;
  /** Epoch ms of the first request in that window. */
  startMs: number;
}

export interface WindowStats {
  windowMs: number;
  /**
   * Over all keys, the most requests each key sent in any W-long window (sliding: every window
   * starting at one of its requests), as nearest-rank percentiles. A limit of `limit` per W admits
   * every request of the keys whose worst window is ≤ limit.
   */
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** The keys with the largest worst windows, most first (at most `top`). */
  worst: WorstBurst[];
}

/** Nearest-rank percentile of ascending values (p in 0 – 100). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  return nearestRank(sorted, p / 100);
}

/** WindowStats with key ids instead of names (what a worker without the key names returns). */
export interface WindowStatsById extends Omit<WindowStats, 'worst'> {
  worst: { keyId: number; requests: number; startMs: number }[];
}

/** The requests-per-W input: times ascending (any origin; `startMs` in the answer uses it). */
export interface WindowStatsInput {
  count: number;
  keyId: Uint32Array;
  keyCount: number;
  arrivalMs: ArrayLike<number>;
  /**
   * A key id left out of the percentiles and the worst keys (the empty key: its requests are no
   * one client's, and each system has its own rule for them); absent or -1: none.
   */
  skip?: number;
  /** Requests per key id (`keyCounts`), when counted already. */
  counts?: Uint32Array;
}

/** Requests-per-W per key (see WindowStats), worst keys by id. O(requests + keys). */
export function windowStatsById(
  trace: WindowStatsInput,
  windowMs: number,
  top = 10,
): WindowStatsById {
  if (!Number.isInteger(windowMs) || windowMs < 1) {
    throw new Error(`windowMs must be a whole number ≥ 1 (got ${windowMs})`);
  }
  const nKeys = trace.keyCount;
  let counts = trace.counts;
  if (counts === undefined) {
    counts = new Uint32Array(nKeys);
    for (let i = 0; i < trace.count; i += 1) {
      const k = trace.keyId[i] as number;
      counts[k] = (counts[k] as number) + 1;
    }
  }
  // Requests grouped by key, in time order (counting sort keeps the trace's order).
  const start = new Uint32Array(nKeys + 1);
  for (let k = 0; k < nKeys; k += 1) start[k + 1] = (start[k] as number) + (counts[k] as number);
  const fill = start.slice(0, nKeys);
  // Whole-ms times from an Int32Array (the page's virtual times) are grouped in one of their own
  // kind: the same values in half the bytes, which the scattered writes below touch.
  const byKey =
    trace.arrivalMs instanceof Int32Array
      ? new Int32Array(trace.count)
      : new Float64Array(trace.count);
  for (let i = 0; i < trace.count; i += 1) {
    const k = trace.keyId[i] as number;
    byKey[fill[k] as number] = trace.arrivalMs[i] as number;
    fill[k] = (fill[k] as number) + 1;
  }
  const worst = new Uint32Array(nKeys);
  const worstStart = new Float64Array(nKeys);
  for (let k = 0; k < nKeys; k += 1) {
    const lo = start[k] as number;
    const hi = start[k + 1] as number;
    let best = 0;
    let bestAt = 0;
    let j = lo;
    for (let i = lo; i < hi; i += 1) {
      const t0 = byKey[i] as number;
      while (j < hi && (byKey[j] as number) < t0 + windowMs) j += 1;
      if (j - i > best) {
        best = j - i;
        bestAt = t0;
      }
    }
    worst[k] = best;
    worstStart[k] = bestAt;
  }
  const skip = trace.skip ?? -1;
  const ids = Array.from({ length: nKeys }, (_, i) => i).filter((i) => i !== skip);
  const sorted = Uint32Array.from(ids, (i) => worst[i] as number).sort();
  const ranked = sorted.length;
  ids.sort((a, b) => (worst[b] as number) - (worst[a] as number) || a - b);
  return {
    windowMs,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: ranked > 0 ? (sorted[ranked - 1] as number) : 0,
    worst: ids.slice(0, top).map((id) => ({
      keyId: id,
      requests: worst[id] as number,
      startMs: worstStart[id] as number,
    })),
  };
}

/** Names the worst keys of `stats` from `keys`. */
export function nameWorst(stats: WindowStatsById, keys: readonly string[]): WindowStats {
  return {
    ...stats,
    worst: stats.worst.map((w) => ({
      key: keys[w.keyId] as string,
      requests: w.requests,
      startMs: w.startMs,
    })),
  };
}

/** Requests-per-W per key (see WindowStats). O(requests + keys). */
export function windowStats(
  trace: Pick<Trace, 'count' | 'keyId' | 'keys'> & {
    arrivalMs: ArrayLike<number>;
    skip?: number;
    counts?: Uint32Array;
  },
  windowMs: number,
  top = 10,
): WindowStats {
  return nameWorst(
    windowStatsById({ ...trace, keyCount: trace.keys.length }, windowMs, top),
    trace.keys,
  );
}
