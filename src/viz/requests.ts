/**
 * Pure helpers over the requests a view is given: which key, which phase of the journey, which queue
 * slot. No React here, so they are tested directly.
 */
import { toSeconds } from '../core';
import type { VizRequest } from './types';

/** Most requests the request-flow strip draws on their way in (it counts all of them). */
export const MAX_INCOMING = 16;

/** Virtual ms a request stays drawn at the client or the backend after it got there, by default. */
export const FLOW_LINGER_MS = 300;

/**
 * The requests counted against `key`, in arrival order (then id): `requests` itself when it is that
 * already. Read only.
 */
export function requestsOfKey(requests: readonly VizRequest[], key: string): readonly VizRequest[] {
  // The usual case, one key and rows in arrival order: the list itself, not a sorted copy per view
  // and frame (allocation per frame).
  let same = true;
  for (let k = 0; k < requests.length && same; k += 1) {
    const r = requests[k] as VizRequest;
    same = r.key === key && (k === 0 || byArrival(requests[k - 1] as VizRequest, r) <= 0);
  }
  return same ? requests : requests.filter((r) => r.key === key).sort(byArrival);
}

export function byArrival(a: VizRequest, b: VizRequest): number {
  return a.arrivalMs - b.arrivalMs || a.id - b.id;
}

/** The `Retry-After` value the client received, in whole seconds (RFC 9110 delay-seconds). */
export function retryAfterSeconds(r: VizRequest): number {
  return toSeconds(r.retryAfterMs);
}

/**
 * "429 · retry in 2 s" for a rejected request, "200" otherwise: the status the system sends and
 * when the limiter would next let the request through (whole seconds, rounded up). Deliberately
 * not written as a `Retry-After` header: nginx and Envoy's local_ratelimit send none;
 * the inspector shows each system's real headers.
 */
export function responseLabel(r: VizRequest): string {
  return r.outcome === 'reject'
    ? `${r.status} · retry in ${retryAfterSeconds(r)} s`
    : `${r.status}`;
}

/** A stable lane for a request: spreads simultaneous requests without randomness. */
export function laneOf(id: number, lanes: number): number {
  const n = Math.max(1, Math.floor(lanes));
  return ((Math.floor(id) % n) + n) % n;
}

/** A release time from an inspection, with the request it belongs to when one was given. */
export interface QueuedRelease {
  releaseMs: number;
  request: VizRequest | undefined;
}

/**
 * Pairs the limiter's pending release times (ascending) with the delayed requests of `key` that
 * leave at those times; each request is used once. Requests not given leave `request` undefined.
 */
export function matchReleases(
  releases: readonly number[],
  requests: readonly VizRequest[],
  key: string,
): QueuedRelease[] {
  const delayed = requests
    .filter((r) => r.key === key && r.outcome === 'delay')
    .sort((a, b) => a.releaseMs - b.releaseMs || a.id - b.id);
  let i = 0;
  return releases.map((releaseMs) => {
    while (i < delayed.length && (delayed[i] as VizRequest).releaseMs < releaseMs) i += 1;
    const r = delayed[i];
    if (r !== undefined && r.releaseMs === releaseMs) {
      i += 1;
      return { releaseMs, request: r };
    }
    return { releaseMs, request: undefined };
  });
}

/** Where a request is in the client → limiter → backend strip at a given time. */
export type FlowPhase =
  /** On its way from the client; decided when it reaches the limiter at arrivalMs. */
  | { phase: 'incoming'; progress: number }
  /** Delayed, held in the limiter; `leftMs` until its release. */
  | { phase: 'waiting'; leftMs: number }
  /** Passed: on its way to the backend. */
  | { phase: 'to-backend'; progress: number }
  /** Reached the backend; `progress` 0–1 of the time it stays drawn there. */
  | { phase: 'at-backend'; progress: number }
  /** Rejected: on its way back to the client. */
  | { phase: 'bounce'; progress: number }
  /** Back at the client with its status; `progress` 0–1 of the time it stays drawn there. */
  | { phase: 'at-client'; progress: number };

/**
 * The phase of `r` at `nowMs`, or null when it is not drawn (not sent yet, or long gone). A request
 * takes `travelMs` per leg and stays `lingerMs` at its destination. Positions derive from the virtual
 * clock alone, so a paused frame is still and a seek lands on the same picture.
 */
export function flowPhase(
  r: VizRequest,
  nowMs: number,
  travelMs: number,
  lingerMs: number,
): FlowPhase | null {
  const travel = Math.max(1, travelMs);
  const linger = Math.max(0, lingerMs);
  const age = nowMs - r.arrivalMs;
  if (!Number.isFinite(age)) return null;
  if (age < 0) return age >= -travel ? { phase: 'incoming', progress: 1 + age / travel } : null;
  if (r.outcome === 'reject') {
    if (age < travel) return { phase: 'bounce', progress: age / travel };
    return age < travel + linger ? { phase: 'at-client', progress: (age - travel) / linger } : null;
  }
  const release = r.outcome === 'delay' ? Math.max(r.releaseMs, r.arrivalMs) : r.arrivalMs;
  if (nowMs < release) return { phase: 'waiting', leftMs: release - nowMs };
  const since = nowMs - release;
  if (since < travel) return { phase: 'to-backend', progress: since / travel };
  return since < travel + linger
    ? { phase: 'at-backend', progress: (since - travel) / linger }
    : null;
}

/** A mark placed by `stackColumns`. */
export interface Column<T> {
  item: T;
  x: number;
  level: number;
}

/**
 * The place `stackColumns` last gave each object item: handed out again while it is the same, so a
 * frame on a sliding axis allocates nothing for the marks that stayed put (a playing
 * page's allocation per frame fed the garbage collections of its slowest frames).
 */
const placedBefore = new WeakMap<object, Column<unknown>>();

/**
 * The level of each mark in its pixel column (0 at the baseline), for marks given one at a time.
 * Marks in x order (the views' case) fill one column after another: a running count. The first
 * mark to the left of the one before switches to a count per column, started from the marks
 * placed so far (as when the clock jumped). Shared by `stackColumns` and the sliding log's entries.
 */
export class ColumnLevels {
  private heights: Map<number, number> | null = null;
  private lastBin = Number.NEGATIVE_INFINITY;
  private run = 0;

  /** The level of the next mark, in column `bin`; `placed` are the marks before it, in `binOf`'s columns. */
  next<P>(bin: number, placed: readonly P[], binOf: (p: P) => number): number {
    let heights = this.heights;
    if (heights === null && bin < this.lastBin) {
      heights = new Map<number, number>();
      for (let k = 0; k < placed.length; k += 1) {
        const b = binOf(placed[k] as P);
        heights.set(b, (heights.get(b) ?? 0) + 1);
      }
      this.heights = heights;
    }
    if (heights !== null) {
      const level = heights.get(bin) ?? 0;
      heights.set(bin, level + 1);
      return level;
    }
    this.run = bin === this.lastBin ? this.run + 1 : 0;
    this.lastBin = bin;
    return this.run;
  }
}

/**
 * Stacks marks that would land on the same pixel column: each gets a `level` (0 at the baseline, 1
 * above it, …). Input order is kept within a column. Columns are `columnPx` wide and start at
 * `originPx` (default 0). On an axis that slides with the clock, pass where t = 0 is drawn: the
 * columns then slide with the marks, and a mark keeps its level (and its element) from frame to
 * frame instead of hopping between columns fixed to the screen. An item that is an object gets
 * the same entry object as last time when its place is the same. Read only.
 */
export function stackColumns<T>(
  items: readonly T[],
  xOf: (item: T) => number,
  columnPx = 6,
  originPx = 0,
): Array<Column<T>> {
  const origin = Number.isFinite(originPx) ? originPx : 0;
  const binOf = (x: number) => Math.round(((Number.isFinite(x) ? x : 0) - origin) / columnPx);
  const out: Array<Column<T>> = [];
  const levels = new ColumnLevels();
  const placedBin = (placed: Column<T>) => binOf(placed.x);
  for (let k = 0; k < items.length; k += 1) {
    const item = items[k] as T;
    const x = xOf(item);
    const level = levels.next(binOf(x), out, placedBin);
    const key = typeof item === 'object' && item !== null ? (item as object) : null;
    const before = key === null ? undefined : (placedBefore.get(key) as Column<T> | undefined);
    if (before !== undefined && before.x === x && before.level === level) out.push(before);
    else {
      const placed = { item, x, level };
      if (key !== null) placedBefore.set(key, placed);
      out.push(placed);
    }
  }
  return out;
}
