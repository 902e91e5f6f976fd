/**
 * The charts' reductions of a simulated lane: passed and backend times, the rolling count of
 * passed requests per pixel column, delays, the nominal limit. Only the charts use them, so they
 * load with the charts' chunk rather than with the page (initial JavaScript). Linear
 * passes over the typed columns, no per-row objects.
 */
import { quotaOf } from '../../core';
import type { AlgorithmConfig } from '../../core';
import { OUTCOME_ADMIT, OUTCOME_DELAY, OUTCOME_REJECT } from '../../sim';
import type { LaneColumns, LaneResult } from '../../sim';
import { columnOf } from '../laneSeries';

/**
 * Arrival times of the rows that passed (admitted or delayed), ascending: decision times.
 * `count`: how many rows passed, when known (a lane's `metrics.total` admitted + delayed), which
 * saves the counting pass; a wrong count is noticed and the rows are counted.
 */
export function passedTimes(columns: LaneColumns, count = -1): Float64Array {
  const rows = columns.rows;
  const outcome = columns.outcome;
  const time = columns.arrivalMs;
  let n = count;
  if (n < 0) {
    n = 0;
    for (let r = 0; r < rows; r += 1) if (outcome[r] !== OUTCOME_REJECT) n += 1;
  }
  const out = new Float64Array(n);
  let k = 0;
  for (let r = 0; r < rows; r += 1) {
    if (outcome[r] !== OUTCOME_REJECT) out[k++] = time[r] as number;
  }
  return k === n ? out : passedTimes(columns);
}

/**
 * When each passed request reached the backend, ascending: admitted at arrival, delayed at release
 * (the lane's `releasesMs`, already sorted), merged.
 */
export function backendTimes(lane: LaneResult): Float64Array {
  const c = lane.columns;
  const rows = c.rows;
  const outcome = c.outcome;
  const time = c.arrivalMs;
  const rel = lane.releasesMs;
  let admitted = 0;
  for (let r = 0; r < rows; r += 1) if (outcome[r] === OUTCOME_ADMIT) admitted += 1;
  const out = new Float64Array(admitted + rel.length);
  let k = 0;
  let j = 0;
  for (let r = 0; r < rows; r += 1) {
    if (outcome[r] !== OUTCOME_ADMIT) continue;
    const t = time[r] as number;
    while (j < rel.length && (rel[j] as number) < t) out[k++] = rel[j++] as number;
    out[k++] = t;
  }
  while (j < rel.length) out[k++] = rel[j++] as number;
  return out;
}

/**
 * The rolling count f(t) = #{ times in (t − windowMs, t] } — the requests in the window of length W
 * that ends at t — reduced to its maximum in each of `cols` columns of [fromMs, toMs). Taking the
 * maximum keeps every peak visible at any zoom. One merged pass over the times and the times + W
 * (two pointers), O(n + cols). With whole-ms times, the largest f equals `peakWindow`'s count.
 */
export function rollingMax(
  times: Float64Array,
  windowMs: number,
  fromMs: number,
  toMs: number,
  cols: number,
): Float64Array {
  return rollingSweep(times, times.length, null, windowMs, fromMs, toMs, cols);
}

/**
 * `rollingMax(passedTimes(columns), …)` straight from a lane's rows: the two pointers step over the
 * rows that passed and skip the rejected ones, so no array of passed times is made (for
 * a 1,000,000-row lane that was a counting pass, a copy and its garbage on the page per edit).
 * tests/ui/viz-lane-series-counts checks it against rollingMax(passedTimes).
 */
export function rollingMaxPassed(
  columns: LaneColumns,
  windowMs: number,
  fromMs: number,
  toMs: number,
  cols: number,
): Float64Array {
  return rollingSweep(
    columns.arrivalMs,
    columns.rows,
    columns.outcome,
    windowMs,
    fromMs,
    toMs,
    cols,
  );
}

/**
 * The sweep behind `rollingMax` and `rollingMaxPassed`: the first `len` of ascending `time`, less
 * the rows whose `outcome` is a rejection (none skipped when null), counted in a window of
 * `windowMs` ending at each t.
 */
function rollingSweep(
  time: Float64Array | Int32Array,
  len: number,
  outcome: Uint8Array | null,
  windowMs: number,
  fromMs: number,
  toMs: number,
  cols: number,
): Float64Array {
  const n = Math.max(1, Math.floor(cols));
  const out = new Float64Array(n);
  if (!(toMs > fromMs) || !(windowMs > 0)) return out;
  // Value at fromMs: counted times in (fromMs − W, fromMs]. A rejected row is skipped by testing
  // `outcome` inline (a callback per row made a 1,000,000-row sweep 2–3× slower).
  let j = firstAfter(time, len, fromMs); // next counted time entering
  if (outcome !== null) while (j < len && outcome[j] === OUTCOME_REJECT) j += 1;
  let i = firstAfter(time, len, fromMs - windowMs); // next counted time leaving (at time + W)
  if (outcome !== null) while (i < len && outcome[i] === OUTCOME_REJECT) i += 1;
  let v = 0;
  for (let r = i; r < j; r += 1) if (outcome === null || outcome[r] !== OUTCOME_REJECT) v += 1;
  let col = 0;
  out[0] = v;
  for (;;) {
    const up = j < len ? (time[j] as number) : Number.POSITIVE_INFINITY;
    const down = i < j ? (time[i] as number) + windowMs : Number.POSITIVE_INFINITY;
    const t = up < down ? up : down;
    if (!(t < toMs)) break;
    const c = columnOf(t, fromMs, toMs, n);
    if (c > col) {
      // v, the value before t, holds from the last event until t: through the columns between,
      // and into column c unless c starts exactly at t.
      while (col < c - 1) {
        col += 1;
        out[col] = v;
      }
      col = c;
      out[c] = fromMs + (c * (toMs - fromMs)) / n < t ? v : 0;
    }
    // Apply every event at t: f is right-continuous, so the value at t counts both.
    while (j < len && (time[j] as number) === t) {
      j += 1;
      if (outcome !== null) while (j < len && outcome[j] === OUTCOME_REJECT) j += 1;
      v += 1;
    }
    while (i < j && (time[i] as number) + windowMs === t) {
      i += 1;
      if (outcome !== null) while (i < len && outcome[i] === OUTCOME_REJECT) i += 1;
      v -= 1;
    }
    if (v > (out[c] as number)) out[c] = v;
  }
  while (col < n - 1) {
    col += 1;
    out[col] = v;
  }
  return out;
}

/**
 * The limiter's nominal quota scaled to an interval of `windowMs`: `limit` per window for the window
 * algorithms, and the long-run rate × W for the others (quota from the core's `quotaOf`, as in the
 * RateLimit-Policy header). E.g. fixed window 10 per 1 s with W = 1 s → 10.
 */
export function nominalLimit(config: AlgorithmConfig, windowMs: number): number {
  const q = quotaOf(config);
  // A quota that is never restored (an anchored window of 0: points never expire): at most
  // `limit` pass in any interval, however long.
  const v = q.windowMs ? (q.limit * windowMs) / Math.max(1, q.windowMs) : q.limit;
  return Number.isFinite(v) ? v : 0;
}

/** Can this config ever delay a request? (nginx with `delay` below `burst`, Envoy with maxDelayMs.) */
export function canDelay(config: AlgorithmConfig): boolean {
  if (config.kind === 'token-bucket') return (config.maxDelayMs ?? 0) > 0;
  if (config.kind === 'leaky-bucket') return config.delay !== 'nodelay';
  return false;
}

/**
 * The waits of the delayed rows, in row order (ms). `count`: how many rows were delayed, when
 * known (a lane's `metrics.delay.count`): none saves the pass over the rows altogether, another
 * the counting pass (a wrong count is noticed and the rows are counted).
 */
export function delaysOf(columns: LaneColumns, count = -1): Float64Array {
  if (count === 0) return new Float64Array(0);
  const rows = columns.rows;
  const outcome = columns.outcome;
  const wait = columns.waitMs;
  let n = count;
  if (n < 0) {
    n = 0;
    for (let r = 0; r < rows; r += 1) if (outcome[r] === OUTCOME_DELAY) n += 1;
  }
  const out = new Float64Array(n);
  let k = 0;
  for (let r = 0; r < rows; r += 1) {
    if (outcome[r] === OUTCOME_DELAY) out[k++] = wait[r] as number;
  }
  return k === n ? out : delaysOf(columns);
}

/** The first index of the first `len` of ascending `time` whose time is > x. */
function firstAfter(time: Float64Array | Int32Array, len: number, x: number): number {
  let lo = 0;
  let hi = len;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((time[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
