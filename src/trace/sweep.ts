/**
 * A parameter sweep over a trace: for the two parameters that matter for an
 * algorithm, a grid of configs, each cell an exact replay of the whole trace (no sampling) through
 * core's limiter, measured the way the simulator measures a lane (src/sim/metrics.ts): share
 * rejected, peak requests reaching the backend in any W, p95 delay (nearest rank over delayed
 * requests). So a cell's numbers are the ones the main view shows for that config, replaying the
 * same trace with no retries and one instance (tests/trace/sweep.test.ts checks it cell by cell).
 */
import type { AlgorithmConfig } from '../core';
import { createLimiter } from '../core';
import { nearestRank, peakWindow } from '../sim';
import type { SimTrace } from '../sim';
import type { EmptyKeyExempt } from './types';

/** One axis: the config field it sets, its label (official name and unit) and its values. */
export interface SweepAxis {
  field: string;
  label: string;
  values: number[];
}

export interface SweepPlan {
  x: SweepAxis;
  y: SweepAxis;
  /** The config of cell (xi, yi): the base config with both fields set. */
  configAt: (xi: number, yi: number) => AlgorithmConfig;
}

export interface CellResult {
  offered: number;
  rejected: number;
  delayed: number;
  /** rejected / offered (0 when nothing was offered). */
  rejectedShare: number;
  /** The same over requests of keys whose volume is at most the p99 of key volumes. */
  rejectedShareP99: number;
  /** Most requests reaching the backend (admitted at arrival, delayed at release) in any W. */
  peakBackend: number;
  /** p95 delay over delayed requests, nearest rank (0 when none was delayed). */
  p95DelayMs: number;
}

/** Up to `n` whole values from `lo` to `hi`, spaced geometrically, ascending and distinct. */
export function axisValues(lo: number, hi: number, n: number): number[] {
  // 0 (no burst) is a value of its own; the rest is geometric from 1.
  const zero = lo <= 0 && n > 1;
  const m = zero ? n - 1 : n;
  const a = Math.max(1, lo);
  const out: number[] = zero ? [0] : [];
  for (let i = 0; i < m; i += 1) {
    const v = Math.round(a * (hi / a) ** (m === 1 ? 0 : i / (m - 1)));
    if (out.length === 0 || v > (out[out.length - 1] as number)) out.push(v);
  }
  return out;
}

/** A range around `current`: from ⌊current / 10⌋ to 10·current (at least `min` .. min + n). */
function around(current: number, min: number, n: number): number[] {
  const lo = Math.max(min, Math.floor(current / 10));
  const hi = Math.max(lo + n, Math.ceil(current * 10));
  return axisValues(lo, hi, n);
}

/**
 * The grid for `base` (`n` × `n` at most): nginx `rate` × `burst`; Envoy `tokens_per_fill` ×
 * `max_tokens`; redis-cell `count` × `max_burst`; windows `limit` × window length. Null for the
 * algorithms without two such parameters here (anchored and calendar windows).
 */
export function sweepPlan(base: AlgorithmConfig, n = 20): SweepPlan | null {
  const set = (xf: string, yf: string, x: SweepAxis, y: SweepAxis): SweepPlan => ({
    x,
    y,
    configAt: (xi, yi) => ({
      ...base,
      [xf]: x.values[xi] as number,
      [yf]: y.values[yi] as number,
    }),
  });
  switch (base.kind) {
    case 'leaky-bucket':
      return set(
        'rate',
        'burst',
        { field: 'rate', label: `rate (${base.rateUnit})`, values: around(base.rate, 1, n) },
        { field: 'burst', label: 'burst', values: around(base.burst, 0, n) },
      );
    case 'token-bucket':
      return set(
        'tokensPerFill',
        'maxTokens',
        {
          field: 'tokensPerFill',
          label: `tokens_per_fill (per ${base.fillIntervalMs} ms)`,
          values: around(base.tokensPerFill, 1, n),
        },
        { field: 'maxTokens', label: 'max_tokens', values: around(base.maxTokens, 1, n) },
      );
    case 'gcra':
      return set(
        'count',
        'burst',
        {
          field: 'count',
          label: `count (per ${base.periodMs} ms)`,
          values: around(base.count, 1, n),
        },
        { field: 'burst', label: 'max_burst', values: around(base.burst, 0, n) },
      );
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
      return set(
        'limit',
        'windowMs',
        { field: 'limit', label: 'limit', values: around(base.limit, 1, n) },
        {
          field: 'windowMs',
          label: 'window (ms)',
          values: around(base.windowMs, 1, n).filter((v) => v <= 86_400_000),
        },
      );
    default:
      return null;
  }
}

/** Keys whose volume is at most the p99 of key volumes (nearest rank): 1 per such key id. */
export function belowP99(trace: {
  keyId: Uint32Array;
  keys: { readonly length: number };
}): Uint8Array {
  const counts = new Uint32Array(trace.keys.length);
  for (let i = 0; i < trace.keyId.length; i += 1) {
    const k = trace.keyId[i] as number;
    counts[k] = (counts[k] as number) + 1;
  }
  return belowP99OfCounts(counts);
}

/** belowP99 from each key's request count (a streamed log's counts, from the pass that read it). */
export function belowP99OfCounts(counts: ArrayLike<number>): Uint8Array {
  const sorted = Float64Array.from(counts).sort();
  const p99 =
    sorted.length === 0 ? 0 : (sorted[Math.max(0, Math.ceil(0.99 * sorted.length) - 1)] as number);
  const out = new Uint8Array(counts.length);
  for (let k = 0; k < counts.length; k += 1) out[k] = (counts[k] as number) <= p99 ? 1 : 0;
  return out;
}

/**
 * One cell: the whole trace through a fresh limiter built from `config`, in time order, each request
 * with its own key. `below` is `belowP99(trace)` (computed once per sweep). The requests of key
 * `empty.id` skip the limiter and get `empty.outcome` when given (the system's empty-key rule).
 */
export function sweepCell(
  trace: SimTrace,
  config: AlgorithmConfig,
  windowMs: number,
  below: Uint8Array,
  empty: EmptyKeyExempt | null = null,
): CellResult {
  const limiter = createLimiter(config);
  const n = trace.timeMs.length;
  const admittedAt = new Float64Array(n);
  const delays: number[] = [];
  const releases: number[] = [];
  let nAdmitted = 0;
  let rejected = 0;
  let offeredBelow = 0;
  let rejectedBelow = 0;
  const emptyId = empty === null ? -1 : empty.id;
  const emptyAdmitted = empty?.outcome === 'admit';
  for (let i = 0; i < n; i += 1) {
    const t = trace.timeMs[i] as number;
    const k = trace.keyId[i] as number;
    const isBelow = below[k] === 1;
    if (isBelow) offeredBelow += 1;
    if (k === emptyId) {
      if (emptyAdmitted) admittedAt[nAdmitted++] = t;
      else {
        rejected += 1;
        if (isBelow) rejectedBelow += 1;
      }
      continue;
    }
    const d = limiter.decide(t, trace.keys[k]);
    if (d.outcome === 'admit') admittedAt[nAdmitted++] = t;
    else if (d.outcome === 'delay') {
      delays.push(d.delayMs);
      releases.push(t + d.delayMs);
    } else {
      rejected += 1;
      if (isBelow) rejectedBelow += 1;
    }
  }
  // Backend arrivals in time order: admitted (ascending already) merged with sorted releases.
  releases.sort((a, b) => a - b);
  delays.sort((a, b) => a - b);
  const backend = new Float64Array(nAdmitted + releases.length);
  let b = 0;
  let r = 0;
  for (let i = 0; i < nAdmitted; i += 1) {
    const t = admittedAt[i] as number;
    while (r < releases.length && (releases[r] as number) < t)
      backend[b++] = releases[r++] as number;
    backend[b++] = t;
  }
  while (r < releases.length) backend[b++] = releases[r++] as number;
  return {
    offered: n,
    rejected,
    delayed: delays.length,
    rejectedShare: n > 0 ? rejected / n : 0,
    rejectedShareP99: offeredBelow > 0 ? rejectedBelow / offeredBelow : 0,
    peakBackend: peakWindow(backend, b, windowMs).count,
    p95DelayMs: nearestRank(delays, 0.95),
  };
}

/** What a person asks of a limit; absent fields ask nothing. */
export interface SweepConstraints {
  /** The backend takes at most this many requests in any W. */
  maxBackend?: number;
  /** At most this share (0 – 1) of the requests of keys below the p99 may be rejected. */
  maxRejectedP99?: number;
}

export function satisfies(cell: CellResult, c: SweepConstraints): boolean {
  return (
    (c.maxBackend === undefined || cell.peakBackend <= c.maxBackend) &&
    (c.maxRejectedP99 === undefined || cell.rejectedShareP99 <= c.maxRejectedP99)
  );
}
