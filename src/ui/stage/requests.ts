import type { AlgorithmConfig } from '../../core';
import { rejectStatus } from '../../core';
import { OUTCOMES, OUTCOME_DELAY, OUTCOME_REJECT, rowRange } from '../../sim';
import type { SimResult } from '../../sim';
import type { VizRequest } from '../../viz/types';

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

/** Most rows handed to a view per frame (the newest): a fast stream cuts the oldest window short, shown as a lower bound. */
export const MAX_ROWS = 400;

/**
 * From when the rows `requestsNear` hands out are complete: the start of its look-back, or, when
 * the newest `maxRows` cut older rows off, just after the first row kept. Views count past windows
 * only from this time on (earlier ones are drawn as lower bounds).
 */
export function requestsCompleteFromMs(
  result: SimResult,
  lane: number,
  tMs: number,
  aheadMs: number,
  maxRows = MAX_ROWS,
): number {
  const l = result.lanes[lane];
  if (l === undefined) return tMs;
  const from = tMs - lookbackMs(l.config);
  const [start, end] = rowRange(l.columns, from, tMs + aheadMs + 1);
  return end - start > maxRows ? (l.columns.arrivalMs[end - maxRows] as number) + 1 : from;
}

/** The last rows handed out per result and lane, so the next frame's overlap reuses them. */
const handedOut = new WeakMap<SimResult, Map<number, { start: number; rows: VizRequest[] }>>();

/**
 * The requests of `lane` that arrived in [tMs − lookback, tMs + aheadMs], newest `maxRows` of them,
 * as the views draw them (id = row in the lane). A row is the same object as in the previous call
 * for this lane, while it stays in range: a memoised mark then sees the same request from one frame
 * to the next. Read only.
 */
export function requestsNear(
  result: SimResult,
  lane: number,
  tMs: number,
  aheadMs: number,
  maxRows = MAX_ROWS,
): VizRequest[] {
  const l = result.lanes[lane];
  if (l === undefined) return [];
  const c = l.columns;
  const [start0, end] = rowRange(c, tMs - lookbackMs(l.config), tMs + aheadMs + 1);
  const start = Math.max(start0, end - maxRows);
  const status = rejectStatus(l.config);
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
      key: result.keyNames[result.clientKey[client] as number] as string,
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
