/**
 * Pure reductions of a simulated lane for the timeline and the charts: outcome counts per pixel
 * column, the rolling count of passed requests, delays, the nominal limit, a first attempt's row.
 * Linear passes over the typed columns, no per-row objects, so 600,000 rows stay cheap.
 */
import { quotaOf } from '../core';
import type { AlgorithmConfig, Outcome } from '../core';
import {
  OUTCOMES,
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  rowRange,
  rowsDecidedBy,
} from '../sim';
import type { LaneColumns, LaneResult, SimResult } from '../sim';

/** A lane's rows counted by outcome in equal-width time columns. */
export interface OutcomeColumns {
  /** Number of columns over [fromMs, toMs). */
  cols: number;
  fromMs: number;
  toMs: number;
  /** Rows [start, end) of the lane inside [fromMs, toMs). */
  start: number;
  end: number;
  /** Counts per column, indexed by outcome code (admit, delay, reject). */
  counts: [Uint32Array, Uint32Array, Uint32Array];
  /** Rows of each outcome inside the range. */
  totals: [number, number, number];
  /** The largest count of one outcome in one column. */
  maxCount: number;
}

/** The column (0 … cols − 1) of a time inside [fromMs, toMs). */
export function columnOf(tMs: number, fromMs: number, toMs: number, cols: number): number {
  // Multiply first: with whole-ms times and columns the product is exact.
  const c = Math.floor(((tMs - fromMs) * cols) / (toMs - fromMs));
  return c < 0 ? 0 : c >= cols ? cols - 1 : c;
}

/**
 * Counts of each outcome per column of [fromMs, toMs) (at least one column). Rows are in time
 * order and `columnOf` never decreases with time, so each column's rows are one run: its end is
 * found by galloping over `columnOf` (a few calls per column, not one per row), and the run's
 * outcomes are counted in a tight loop. Six lanes of 666,666 rows took about 85 ms with one
 * `columnOf` per row (issue 11); the counts are the same.
 */
export function outcomeColumns(
  columns: LaneColumns,
  fromMs: number,
  toMs: number,
  cols: number,
): OutcomeColumns {
  const n = Math.max(1, Math.floor(cols));
  const counts: [Uint32Array, Uint32Array, Uint32Array] = [
    new Uint32Array(n),
    new Uint32Array(n),
    new Uint32Array(n),
  ];
  const totals: [number, number, number] = [0, 0, 0];
  const [start, end] = toMs > fromMs ? rowRange(columns, fromMs, toMs) : [0, 0];
  const time = columns.arrivalMs;
  const outcome = columns.outcome;
  const col = (r: number) => columnOf(time[r] as number, fromMs, toMs, n);
  let maxCount = 0;
  let r = start;
  while (r < end) {
    const c = col(r);
    // The first row after r in another column: gallop, then bisect.
    let lo = r + 1; // every row before lo is in column c
    let step = 1;
    while (lo < end && col(Math.min(end, lo + step) - 1) === c) {
      lo = Math.min(end, lo + step);
      step *= 2;
    }
    let hi = Math.min(end, lo + step); // some row before hi is past c (or hi = end)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (col(mid) === c) lo = mid + 1;
      else hi = mid;
    }
    // Codes are 0 (admit), 1 (delay), 2 (reject): their sum and the sum of code >> 1 give the
    // counts without a branch per row.
    let sum = 0;
    let reject = 0;
    for (let k = r; k < lo; k += 1) {
      const o = outcome[k] as number;
      sum += o;
      reject += o >> 1;
    }
    const delay = sum - 2 * reject;
    const admit = lo - r - delay - reject;
    counts[OUTCOME_ADMIT][c] = admit;
    counts[OUTCOME_DELAY][c] = delay;
    counts[OUTCOME_REJECT][c] = reject;
    totals[OUTCOME_ADMIT] += admit;
    totals[OUTCOME_DELAY] += delay;
    totals[OUTCOME_REJECT] += reject;
    maxCount = Math.max(maxCount, admit, delay, reject);
    r = lo;
  }
  return { cols: n, fromMs, toMs, start, end, counts, totals, maxCount };
}

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

/** First index of ascending `a` whose value is > x. */
function upperBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  const n = Math.max(1, Math.floor(cols));
  const out = new Float64Array(n);
  if (!(toMs > fromMs) || !(windowMs > 0)) return out;
  // Value at fromMs: times in (fromMs − W, fromMs].
  let j = upperBound(times, fromMs); // next time entering
  let i = upperBound(times, fromMs - windowMs); // next time leaving (at time + W)
  let v = j - i;
  let col = 0;
  out[0] = v;
  const len = times.length;
  for (;;) {
    const up = j < len ? (times[j] as number) : Number.POSITIVE_INFINITY;
    const down = i < j ? (times[i] as number) + windowMs : Number.POSITIVE_INFINITY;
    const t = Math.min(up, down);
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
    while (j < len && (times[j] as number) === t) {
      j += 1;
      v += 1;
    }
    while (i < j && (times[i] as number) + windowMs === t) {
      i += 1;
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
 * `rollingMax(passedTimes(columns), …)` straight from a lane's rows: the two pointers step over the
 * rows that passed and skip the rejected ones, so no array of passed times is made (issue 11: for
 * a 1,000,000-row lane that was a counting pass, a copy and its garbage on the page per edit).
 */
export function rollingMaxPassed(
  columns: LaneColumns,
  windowMs: number,
  fromMs: number,
  toMs: number,
  cols: number,
): Float64Array {
  const n = Math.max(1, Math.floor(cols));
  const out = new Float64Array(n);
  if (!(toMs > fromMs) || !(windowMs > 0)) return out;
  const rows = columns.rows;
  const time = columns.arrivalMs;
  const outcome = columns.outcome;
  // The first row at or after r that passed (rows when none).
  const passedFrom = (r: number): number => {
    while (r < rows && outcome[r] === OUTCOME_REJECT) r += 1;
    return r;
  };
  // The first row whose time is > x (rows are in time order).
  const after = (x: number): number => {
    let lo = 0;
    let hi = rows;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((time[mid] as number) <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let j = passedFrom(after(fromMs)); // next passed row entering
  let i = passedFrom(after(fromMs - windowMs)); // next passed row leaving (at its time + W)
  let v = 0;
  for (let r = i; r < j; r += 1) if (outcome[r] !== OUTCOME_REJECT) v += 1;
  let col = 0;
  out[0] = v;
  for (;;) {
    const up = j < rows ? (time[j] as number) : Number.POSITIVE_INFINITY;
    const down = i < j ? (time[i] as number) + windowMs : Number.POSITIVE_INFINITY;
    const t = Math.min(up, down);
    if (!(t < toMs)) break;
    const c = columnOf(t, fromMs, toMs, n);
    if (c > col) {
      while (col < c - 1) {
        col += 1;
        out[col] = v;
      }
      col = c;
      out[c] = fromMs + (c * (toMs - fromMs)) / n < t ? v : 0;
    }
    while (j < rows && (time[j] as number) === t) {
      j = passedFrom(j + 1);
      v += 1;
    }
    while (i < j && (time[i] as number) + windowMs === t) {
      i = passedFrom(i + 1);
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
  const v = (q.limit * windowMs) / Math.max(1, q.windowMs);
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

/** The row of `origin`'s first attempt in a lane, or −1 when the lane never decided it. */
export function firstAttemptRow(result: SimResult, lane: number, origin: number): number {
  const l = result.lanes[lane];
  const t = result.arrivals.timeMs[origin];
  if (l === undefined || t === undefined) return -1;
  const c = l.columns;
  const [start, end] = rowRange(c, t, t + 1);
  for (let r = start; r < end; r += 1) {
    if (c.origin[r] === origin && c.attempt[r] === 1) return r;
  }
  return -1;
}

/** The outcome of `origin`'s first attempt in a lane, or null when the lane never decided it. */
export function firstAttemptOutcome(
  result: SimResult,
  lane: number,
  origin: number,
): Outcome | null {
  const row = firstAttemptRow(result, lane, origin);
  if (row < 0) return null;
  return OUTCOMES[result.lanes[lane]?.columns.outcome[row] as number] ?? null;
}

/** The last row of a lane that arrived at or before tMs, or −1. */
export function lastRowAtOrBefore(columns: LaneColumns, tMs: number): number {
  return rowsDecidedBy(columns, tMs) - 1;
}

/**
 * The row of `outcome` (code) nearest to tMs among arrivals within [tMs − toleranceMs,
 * tMs + toleranceMs], or −1. For clicks on aggregated marks.
 */
export function nearestRow(
  columns: LaneColumns,
  outcome: number,
  tMs: number,
  toleranceMs: number,
): number {
  const [start, end] = rowRange(columns, tMs - toleranceMs, tMs + toleranceMs + 1);
  let best = -1;
  let bestD = Number.POSITIVE_INFINITY;
  for (let r = start; r < end; r += 1) {
    if (columns.outcome[r] !== outcome) continue;
    const d = Math.abs((columns.arrivalMs[r] as number) - tMs);
    if (d < bestD) {
      best = r;
      bestD = d;
    }
  }
  return best;
}
