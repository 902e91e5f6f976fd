/**
 * Reading a result: rows by time, one request's full fate, the HTTP response a client saw (built on
 * demand from the stored numbers through the core's `toHttpResponse`; no strings are stored per row).
 */
import { quotaOf, rejectStatus, toHttpResponse } from '../core';
import type { Decision, HttpResponse, Outcome } from '../core';
import { internalsOf } from './internal';
import { OUTCOMES, OUTCOME_DELAY, OUTCOME_REJECT } from './types';
import type { LaneColumns, SimResult } from './types';

/** The first row whose arrival is > tMs (or ≥ tMs with `inclusive`), by binary search. */
function bound(columns: LaneColumns, tMs: number, inclusive: boolean): number {
  const a = columns.arrivalMs;
  let lo = 0;
  let hi = columns.rows;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = a[mid] as number;
    if (inclusive ? v < tMs : v <= tMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Rows with fromMs ≤ arrival < toMs, as [start, end). */
export function rowRange(columns: LaneColumns, fromMs: number, toMs: number): [number, number] {
  const start = bound(columns, fromMs, true);
  return [start, Math.max(start, bound(columns, toMs, true))];
}

/** The number of rows decided at or before tMs (their arrival ≤ tMs). */
export function rowsDecidedBy(columns: LaneColumns, tMs: number): number {
  return bound(columns, tMs, false);
}

/** The first value > tMs in ascending `sorted`, or +Infinity. */
function firstAfter(sorted: Int32Array | Float64Array, n: number, tMs: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) <= tMs) lo = mid + 1;
    else hi = mid;
  }
  return lo < n ? (sorted[lo] as number) : Number.POSITIVE_INFINITY;
}

/**
 * The next moment after tMs when something happens in any lane: an attempt arrives, a delayed
 * request reaches the backend, or the wall clock jumps. null when nothing happens after tMs before
 * the end of the run. For "step to next event".
 */
export function nextEventAfter(result: SimResult, tMs: number): number | null {
  let next = Number.POSITIVE_INFINITY;
  for (const lane of result.lanes) {
    next = Math.min(
      next,
      firstAfter(lane.columns.arrivalMs, lane.columns.rows, tMs),
      firstAfter(lane.releasesMs, lane.releasesMs.length, tMs),
    );
  }
  next = Math.min(next, internalsOf(result).clock.nextJumpAfter(tMs));
  return next < result.untilMs ? next : null;
}

/** One attempt, as a client and the limiter saw it. */
export interface RequestInfo {
  lane: number;
  /** Row index in the lane (request id within the lane). */
  row: number;
  /** The first attempt it belongs to (same across lanes). */
  origin: number;
  /** Index of the traffic source of the first attempt. */
  source: number;
  arrivalMs: number;
  /** When it reaches the backend: arrival + delay (rejected requests never do: −1). */
  releaseMs: number;
  client: number;
  key: string;
  instance: number;
  attempt: number;
  isRetry: boolean;
  decision: Decision;
  /** 200, or the limiter's reject status (429, nginx's 503). */
  status: number;
}

/** The full Decision stored for a row. */
export function decisionAt(result: SimResult, lane: number, row: number): Decision {
  const l = result.lanes[lane];
  if (l === undefined || !Number.isInteger(row) || row < 0 || row >= l.columns.rows) {
    throw new RangeError(`no row ${row} in lane ${lane}`);
  }
  const c = l.columns;
  const code = c.outcome[row] as number;
  const wait = c.waitMs[row] as number;
  const outcome: Outcome = OUTCOMES[code] ?? 'reject';
  return {
    outcome,
    delayMs: code === OUTCOME_DELAY ? wait : 0,
    retryAfterMs: code === OUTCOME_REJECT ? wait : 0,
    remaining: c.remaining[row] as number,
    limit: quotaOf(l.config).limit,
    resetMs: c.resetMs[row] as number,
  };
}

/**
 * The key index per client lane `lane` decided with: its own (`LaneResult.clientKey`, a lane that
 * keys a trace's empty-key requests by their address), else the run's.
 */
export function laneClientKey(result: SimResult, lane: number): Uint16Array | Uint32Array {
  return result.lanes[lane]?.clientKey ?? result.clientKey;
}

/** Everything about one row. */
export function requestAt(result: SimResult, lane: number, row: number): RequestInfo {
  const decision = decisionAt(result, lane, row);
  const l = result.lanes[lane] as NonNullable<(typeof result.lanes)[number]>;
  const c = l.columns;
  const origin = c.origin[row] as number;
  const client = result.arrivals.client[origin] as number;
  const arrivalMs = c.arrivalMs[row] as number;
  return {
    lane,
    row,
    origin,
    source: result.arrivals.source[origin] as number,
    arrivalMs,
    releaseMs: decision.outcome === 'reject' ? -1 : arrivalMs + decision.delayMs,
    client,
    key: result.keyNames[laneClientKey(result, lane)[client] as number] as string,
    instance: c.instance[row] as number,
    attempt: c.attempt[row] as number,
    isRetry: (c.attempt[row] as number) > 1,
    decision,
    status: decision.outcome === 'reject' ? rejectStatus(l.config) : 200,
  };
}

/** The HTTP response (status line and rate-limit headers) the client got for a row. */
export function responseAt(result: SimResult, lane: number, row: number): HttpResponse {
  const l = result.lanes[lane];
  const decision = decisionAt(result, lane, row);
  return toHttpResponse((l as NonNullable<typeof l>).config, decision, {
    policyName: (l as NonNullable<typeof l>).name,
  });
}

/** Rows of one request (its first attempt and retries) in a lane, ascending. */
export function attemptsOf(result: SimResult, lane: number, origin: number): number[] {
  const l = result.lanes[lane];
  if (l === undefined) return [];
  const c = l.columns;
  // Its first attempt arrives at the origin's time; nothing of it comes earlier.
  const start = rowRange(c, result.arrivals.timeMs[origin] as number, Number.POSITIVE_INFINITY)[0];
  const rows: number[] = [];
  const maxAttempts =
    result.scenario.retry.onReject === 'give-up' ? 1 : result.scenario.retry.maxAttempts;
  for (let r = start; r < c.rows; r += 1) {
    if (c.origin[r] !== origin) continue;
    rows.push(r);
    // A passed attempt, or the last one allowed, ends the request.
    if (c.outcome[r] !== OUTCOME_REJECT || rows.length >= maxAttempts) break;
  }
  return rows;
}
