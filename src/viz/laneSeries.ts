/**
 * Pure reductions of a simulated lane for the timeline: outcome counts per pixel column, a first
 * attempt's row, the row nearest a time (the charts' own are in charts/series.ts).
 * Linear passes over the typed columns, no per-row objects, so 600,000 rows stay cheap.
 */
import type { Outcome } from '../core';
import {
  OUTCOMES,
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  rowRange,
  rowsDecidedBy,
} from '../sim';
import type { LaneColumns, SimResult } from '../sim';

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

/** The rejects `codeSum` counted (set by each call: no object per column). */
let rejectsCounted = 0;

/**
 * The outcome column as 32-bit words, from its first byte at a multiple of 4 up to its last whole
 * word (word i holds bytes 4i … 4i + 3 of the buffer from `outcome.byteOffset` rounded up), or
 * null when the column holds no whole word. Byte order does not matter: a word's codes are only
 * summed, and bit 1 is taken from each of its bytes alike.
 */
function wordsOf(outcome: Uint8Array): Uint32Array | null {
  const start = Math.ceil(outcome.byteOffset / 4) * 4;
  const end = Math.floor((outcome.byteOffset + outcome.length) / 4) * 4;
  return end > start ? new Uint32Array(outcome.buffer, start, (end - start) / 4) : null;
}

const LOW_BITS = 0x01010101;

/**
 * The sum of the outcome codes of rows [from, to), and (in `rejectsCounted`) how many are rejects.
 * Codes are 0 (admit), 1 (delay), 2 (reject): the sum and the number of codes with bit 1 set give
 * all three counts. Four rows at a time where the rows fill whole words: a word's four bytes
 * (each ≤ 2) summed by one multiplication, its top byte holding the sum (at most 8, no carry out of
 * a byte). A 1,000,000-row lane's pass is a quarter of the reads; it runs once per new result, so
 * mostly before V8 has optimised it, where each read costs most (the 1M edit).
 */
function codeSum(outcome: Uint8Array, words: Uint32Array | null, from: number, to: number): number {
  if (words === null) return byteSum(outcome, from, to);
  // Row k is byte k − base of the words (base: the first word's offset, in rows).
  const base = (words.byteOffset - outcome.byteOffset) | 0;
  // ⌈(from − base) / 4⌉ and ⌊(to − base) / 4⌋ in integer arithmetic (rows are int32).
  const firstWord = Math.max(0, (from - base + 3) >> 2);
  const endWord = Math.min(words.length, (to - base) >> 2);
  if (endWord <= firstWord) return byteSum(outcome, from, to);
  let sum = byteSum(outcome, from, base + 4 * firstWord);
  let reject = rejectsCounted;
  for (let w = firstWord; w < endWord; w += 1) {
    const v = words[w] as number;
    sum += Math.imul(v, LOW_BITS) >>> 24;
    reject += Math.imul((v >>> 1) & LOW_BITS, LOW_BITS) >>> 24;
  }
  sum += byteSum(outcome, base + 4 * endWord, to);
  // byteSum has just set rejectsCounted to the tail's rejects: add the head's and the words'.
  rejectsCounted += reject;
  return sum;
}

/** `codeSum` one row at a time (a function of its own: its loop is warm whichever calls it). */
function byteSum(outcome: Uint8Array, from: number, to: number): number {
  let sum = 0;
  let reject = 0;
  for (let k = from; k < to; k += 1) {
    const o = outcome[k] as number;
    sum += o;
    reject += o >> 1;
  }
  rejectsCounted = reject;
  return sum;
}

/**
 * Counts of each outcome per column of [fromMs, toMs) (at least one column). Rows are in time
 * order and `columnOf` never decreases with time, so each column's rows are one run: its end is
 * found by galloping over `columnOf` (a few calls per column, not one per row), and the run's
 * outcomes are counted four rows at a time (`codeSum`). Six lanes of 666,666 rows took about 85 ms
 * with one `columnOf` per row; the counts are the same.
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
  const words = wordsOf(outcome);
  // columnOf is called directly, not through a closure made here: a new closure per call changed
  // the call target in the code V8 kept from the last call (compiled on stack replacement), which
  // was thrown away there at every edit's first call ("wrong call target", traced with
  // tests/bench/deoptTrace.ts), and the pass went on unoptimised.
  let maxCount = 0;
  let r = start;
  while (r < end) {
    const c = columnOf(time[r] as number, fromMs, toMs, n);
    // The first row after r in another column: gallop, then bisect.
    let lo = r + 1; // every row before lo is in column c
    let step = 1;
    while (
      lo < end &&
      columnOf(time[Math.min(end, lo + step) - 1] as number, fromMs, toMs, n) === c
    ) {
      lo = Math.min(end, lo + step);
      step *= 2;
    }
    let hi = Math.min(end, lo + step); // some row before hi is past c (or hi = end)
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (columnOf(time[mid] as number, fromMs, toMs, n) === c) lo = mid + 1;
      else hi = mid;
    }
    const sum = codeSum(outcome, words, r, lo);
    const reject = rejectsCounted;
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
