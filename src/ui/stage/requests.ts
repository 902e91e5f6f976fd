import type { AlgorithmConfig } from '../../core';
import { rejectStatus } from '../../core';
import { OUTCOMES, OUTCOME_DELAY, OUTCOME_REJECT, rowRange, rowsDecidedBy } from '../../sim';
import type { LaneColumns, SimResult } from '../../sim';
import { FLOW_LINGER_MS, MAX_INCOMING } from '../../viz/requests';
import type { FlowCounts, RequestCounter, VizRequest } from '../../viz/types';

/**
 * How far back a view looks for requests to draw: three windows for the window algorithms (their
 * axes show the windows around now, starting up to 2.75 windows back), two periods otherwise.
 */
export function lookbackMs(config: AlgorithmConfig): number {
  switch (config.kind) {
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
    case 'anchored-window':
      return 3 * config.windowMs;
    case 'calendar-windows':
      return 5000;
    case 'token-bucket':
      return Math.max(2 * config.fillIntervalMs, 2000, config.maxDelayMs ?? 0);
    case 'leaky-bucket':
      return 5000;
    case 'gcra':
      return Math.max(2000, Math.ceil((2 * config.periodMs * (config.burst + 1)) / config.count));
  }
}

/**
 * Most rows handed to a view per frame. The rows still on their way in get only as many as the
 * request-flow strip draws (`MAX_INCOMING`); the rest go to the newest rows of the look-back. A fast
 * stream cuts the oldest part of the look-back short: views count from `requestsCompleteFromMs` on
 * (earlier windows as lower bounds), and the strip's counts come from `flowCounts`, not the rows.
 */
export const MAX_ROWS = 400;

/**
 * The rows handed out, as [start, end): the first `aheadRows` rows after tMs (those nearest to the
 * limiter), then the newest rows of [tMs − lookback, tMs] that fit in `maxRows`. One contiguous
 * range, so a frame can reuse the previous frame's rows. `lookbackStart` is the first row of the
 * look-back, whether handed out or not.
 */
function handedRange(
  c: LaneColumns,
  lookback: number,
  tMs: number,
  aheadMs: number,
  maxRows: number,
  aheadRows: number,
): { start: number; end: number; lookbackStart: number } {
  const [from, to] = rowRange(c, tMs - lookback, tMs + aheadMs + 1);
  const firstAhead = Math.min(to, Math.max(from, rowsDecidedBy(c, tMs)));
  const end = Math.min(to, firstAhead + Math.max(0, Math.min(aheadRows, maxRows)));
  return { start: Math.max(from, end - Math.max(0, maxRows)), end, lookbackStart: from };
}

/**
 * From when the rows `requestsNear` hands out are complete: the start of its look-back, or, when
 * `maxRows` cut older rows off, just after the first row kept. Views count past windows only from
 * this time on (earlier ones are drawn as lower bounds). Takes the same arguments as `requestsNear`.
 */
export function requestsCompleteFromMs(
  result: SimResult,
  lane: number,
  tMs: number,
  aheadMs: number,
  maxRows = MAX_ROWS,
  aheadRows = MAX_INCOMING,
): number {
  const l = result.lanes[lane];
  if (l === undefined) return tMs;
  const lookback = lookbackMs(l.config);
  const { start, lookbackStart } = handedRange(
    l.columns,
    lookback,
    tMs,
    aheadMs,
    maxRows,
    aheadRows,
  );
  return start > lookbackStart ? (l.columns.arrivalMs[start] as number) + 1 : tMs - lookback;
}

/** Rows per block of the rejected-row counts (2^6). */
const BLOCK_SHIFT = 6;
const BLOCK = 1 << BLOCK_SHIFT;
/** A block whose rejected rows are not counted yet. */
const UNCOUNTED = 255;

/**
 * What `flowCounts` reads a lane by, kept per lane result (its columns never change). Only a lane
 * that delays reads its rows up front, once (to list the delayed ones); rejected rows are counted
 * per block as frames need them.
 */
interface LaneIndex {
  /** Rejected rows per block of 64 rows, counted the first time a count needs the block. */
  blockRejects: Uint8Array;
  /** The rows that were delayed, ascending (so also by arrival). */
  delayed: Int32Array;
  /** The longest delay of any delayed row, ms (0 when none). */
  maxDelayMs: number;
}

const indexes = new WeakMap<LaneColumns, LaneIndex>();

function laneIndex(c: LaneColumns, delayedRows: number): LaneIndex {
  const known = indexes.get(c);
  if (known !== undefined) return known;
  const n = c.rows;
  // Most lanes delay nothing (their metrics say so): then no row is read here at all.
  const delayed = new Int32Array(delayedRows);
  let count = 0;
  let maxDelayMs = 0;
  const outcome = c.outcome;
  for (let row = 0; row < n && count < delayedRows; row += 1) {
    if (outcome[row] !== OUTCOME_DELAY) continue;
    delayed[count] = row;
    count += 1;
    maxDelayMs = Math.max(maxDelayMs, c.waitMs[row] as number);
  }
  const index = {
    blockRejects: new Uint8Array((n >> BLOCK_SHIFT) + 1).fill(UNCOUNTED),
    // Fewer than the metrics said (never expected): the rest of the array is unused.
    delayed: count === delayedRows ? delayed : delayed.subarray(0, count),
    maxDelayMs,
  };
  indexes.set(c, index);
  return index;
}

/** Rejected rows in rows [from, to): whole blocks from their (cached) counts, the ends row by row. */
function rejectsIn(c: LaneColumns, index: LaneIndex, from: number, to: number): number {
  const out = c.outcome;
  const firstBlock = (from + BLOCK - 1) >> BLOCK_SHIFT;
  const endBlock = to >> BLOCK_SHIFT;
  let n = 0;
  if (firstBlock >= endBlock) {
    for (let r = from; r < to; r += 1) if (out[r] === OUTCOME_REJECT) n += 1;
    return n;
  }
  for (let r = from; r < firstBlock << BLOCK_SHIFT; r += 1) if (out[r] === OUTCOME_REJECT) n += 1;
  for (let r = endBlock << BLOCK_SHIFT; r < to; r += 1) if (out[r] === OUTCOME_REJECT) n += 1;
  const blocks = index.blockRejects;
  for (let k = firstBlock; k < endBlock; k += 1) {
    let m = blocks[k] as number;
    if (m === UNCOUNTED) {
      m = 0;
      for (let r = k << BLOCK_SHIFT, e = r + BLOCK; r < e; r += 1)
        if (out[r] === OUTCOME_REJECT) m += 1;
      blocks[k] = m;
    }
    n += m;
  }
  return n;
}

/** The first k with sorted[k] ≥ value. */
function lowerBound(sorted: Int32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Exact counts of a lane's requests by arrival time, for the views (`RequestCounter`), where the
 * rows they are handed were cut: the lane's rows in a time range, less its rejected and delayed
 * ones, found as `flowCounts` finds them. Only where that is cheap and exact: a run with one key
 * (every row is that key's) and the lane drawn whole (not one instance of several); otherwise
 * undefined, and the views mark what they count from the rows as lower bounds. `offsetMs` is what
 * the views' time adds to virtual time (a wall clock after a jump).
 */
export function requestCounter(
  result: SimResult,
  lane: number,
  offsetMs: number,
  wholeLane: boolean,
): RequestCounter | undefined {
  const l = result.lanes[lane];
  if (l === undefined || !wholeLane || result.keyNames.length !== 1) return undefined;
  const c = l.columns;
  const only = result.keyNames[0];
  return (key, fromMs, toMs) => {
    if (key !== only) return null;
    const index = laneIndex(c, l.metrics.total.delayed);
    const [start, end] = rowRange(c, fromMs - offsetMs, toMs - offsetMs);
    const rejected = rejectsIn(c, index, start, end);
    const delayed = lowerBound(index.delayed, end) - lowerBound(index.delayed, start);
    return { admitted: end - start - rejected - delayed, delayed, rejected };
  };
}

/**
 * The request-flow strip's counts at virtual time `nowMs`, exact, from the lane's columns rather
 * than from the rows `requestsNear` hands out (which a fast stream cuts): the phases `flowPhase`
 * gives each request with this `travelMs` and `lingerMs`. Passed: admitted or released within the
 * last travel + linger ms; rejected: arrived within them; waiting: delayed and not yet released;
 * incoming: arriving within the next `travelMs`. With `instance`, only the rows the balancer sent
 * to that instance (as the lane draws one instance's store).
 *
 * Cost per call: binary searches, the rejected count (a cached count per 64 rows, and at most
 * 2 × 63 rows), and the delayed rows of the last travel + linger + longest-delay ms (none in a
 * lane that delays nothing). With `instance` it reads every row of the strip's window instead.
 * No allocation but the result.
 */
export function flowCounts(
  result: SimResult,
  lane: number,
  nowMs: number,
  travelMs: number,
  lingerMs = FLOW_LINGER_MS,
  instance?: number,
): FlowCounts {
  const l = result.lanes[lane];
  if (l === undefined || !Number.isFinite(nowMs)) {
    return { passed: 0, waiting: 0, rejected: 0, incoming: 0, nextOutInMs: null };
  }
  const c = l.columns;
  const index = laneIndex(c, l.metrics.total.delayed);
  // As flowPhase: an age in [0, travel + linger) is drawn; −travel ≤ age < 0 is on its way in.
  const shownMs = Math.max(1, travelMs) + Math.max(0, lingerMs);
  const from = rowsDecidedBy(c, nowMs - shownMs); // first row with age < travel + linger
  const now = rowsDecidedBy(c, nowMs); // first row still on its way in
  const ahead = rowsDecidedBy(c, nowMs + Math.max(1, travelMs));
  let passed = 0;
  let waiting = 0;
  let rejected = 0;
  let incoming = 0;
  let nextOutMs = Number.POSITIVE_INFINITY;
  const delayed = index.delayed;
  const firstDelayed = lowerBound(delayed, rowsDecidedBy(c, nowMs - shownMs - index.maxDelayMs));
  const delayedFrom = lowerBound(delayed, from);
  const delayedTo = lowerBound(delayed, now);
  if (instance === undefined) {
    rejected = rejectsIn(c, index, from, now);
    // Admitted in the window: its rows less the rejected and the delayed ones.
    passed = now - from - rejected - (delayedTo - delayedFrom);
    incoming = ahead - now;
  } else {
    for (let row = from; row < now; row += 1) {
      if (c.instance[row] !== instance) continue;
      const o = c.outcome[row];
      if (o === OUTCOME_REJECT) rejected += 1;
      else if (o !== OUTCOME_DELAY) passed += 1;
    }
    for (let row = now; row < ahead; row += 1) if (c.instance[row] === instance) incoming += 1;
  }
  // A delayed row is released at arrival + delay (≤ the longest delay after it arrived).
  for (let k = firstDelayed; k < delayedTo; k += 1) {
    const row = delayed[k] as number;
    if (instance !== undefined && c.instance[row] !== instance) continue;
    const releaseMs = (c.arrivalMs[row] as number) + (c.waitMs[row] as number);
    if (releaseMs > nowMs) {
      waiting += 1;
      nextOutMs = Math.min(nextOutMs, releaseMs);
    } else if (nowMs - releaseMs < shownMs) passed += 1;
  }
  return {
    passed,
    waiting,
    rejected,
    incoming,
    nextOutInMs: waiting > 0 ? nextOutMs - nowMs : null,
  };
}

/** The last rows handed out per result and lane, so the next frame's overlap reuses them. */
const handedOut = new WeakMap<SimResult, Map<number, { start: number; rows: VizRequest[] }>>();

/**
 * The requests of `lane` that arrive in [tMs − lookback, tMs + aheadMs] (see `handedRange`: at
 * most `aheadRows` of them after tMs, at most `maxRows` in all, the newest of the past), as the
 * views draw them (id = row in the lane). A row is the same object as in the previous call
 * for this lane, while it stays in range: a memoised mark then sees the same request from one frame
 * to the next. Read only.
 */
export function requestsNear(
  result: SimResult,
  lane: number,
  tMs: number,
  aheadMs: number,
  maxRows = MAX_ROWS,
  aheadRows = MAX_INCOMING,
): VizRequest[] {
  const l = result.lanes[lane];
  if (l === undefined) return [];
  const c = l.columns;
  const { start, end } = handedRange(c, lookbackMs(l.config), tMs, aheadMs, maxRows, aheadRows);
  const status = rejectStatus(l.config);
  const clientKey = l.clientKey ?? result.clientKey;
  let lanes = handedOut.get(result);
  if (lanes === undefined) {
    lanes = new Map();
    handedOut.set(result, lanes);
  }
  const previous = lanes.get(lane);
  const out: VizRequest[] = [];
  for (let row = start; row < end; row += 1) {
    const kept = previous?.rows[row - previous.start];
    if (kept !== undefined) {
      out.push(kept);
      continue;
    }
    const code = c.outcome[row] as number;
    const wait = c.waitMs[row] as number;
    const arrivalMs = c.arrivalMs[row] as number;
    const client = result.arrivals.client[c.origin[row] as number] as number;
    out.push({
      id: row,
      arrivalMs,
      key: result.keyNames[clientKey[client] as number] as string,
      outcome: OUTCOMES[code] ?? 'admit',
      delayMs: code === OUTCOME_DELAY ? wait : 0,
      releaseMs: code === OUTCOME_DELAY ? arrivalMs + wait : arrivalMs,
      retryAfterMs: code === OUTCOME_REJECT ? wait : 0,
      status: code === OUTCOME_REJECT ? status : 200,
      attempt: c.attempt[row] as number,
      number: (c.origin[row] as number) + 1,
    });
  }
  lanes.set(lane, { start, rows: out });
  return out;
}
