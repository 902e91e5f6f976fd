/**
 * A trace replayed through one limiter, exactly: every request in arrival order, at its whole-ms
 * virtual time (whole ms since the first request's whole ms), with its own key, through core's
 * createLimiter placed on the log's clock (virtual 0 = the first request's whole epoch ms, so
 * windows on the clock fall where the system's fall). No sampling: the decision of request i is the one the limiter makes for it.
 * This is the building block of the dry run (what a limit would change) and of the sweep.
 */
import { createLimiter } from '../core';
import type { AlgorithmConfig } from '../core';
import type { Trace } from './types';

/** Outcome codes in Replay.outcome. */
export const ADMIT = 0;
export const DELAY = 1;
export const REJECT = 2;

/** The longest trace span a replay takes: virtual times are Int32. */
export const MAX_REPLAY_SPAN_MS = 2 ** 31 - 1;

export interface Replay {
  count: number;
  /** ADMIT, DELAY or REJECT per request (trace order). */
  outcome: Uint8Array;
  /** Wait of a delayed request, ms (0 otherwise). */
  delayMs: Uint32Array;
  admitted: number;
  delayed: number;
  rejected: number;
}

/**
 * The epoch ms a replay's virtual time 0 stands for: the first request's whole ms (0 when there is
 * none), so that virtual time + origin = ⌊arrival⌋ for every request.
 */
export function virtualOrigin(trace: Pick<Trace, 'count' | 'arrivalMs'>): number {
  return trace.count === 0 || trace.arrivalMs.length === 0
    ? 0
    : Math.floor(trace.arrivalMs[0] as number);
}

/** Whole-ms virtual times: ⌊arrival⌋ − ⌊first arrival⌋ (virtualOrigin). */
export function virtualTimes(trace: Pick<Trace, 'count' | 'arrivalMs'>): Int32Array {
  const out = new Int32Array(trace.count);
  if (trace.count === 0) return out;
  const t0 = virtualOrigin(trace);
  const span = Math.floor(trace.arrivalMs[trace.count - 1] as number) - t0;
  if (span > MAX_REPLAY_SPAN_MS) {
    throw new Error(
      `The trace spans ${Math.round(span / 86_400_000)} days; a replay takes at most 24 days (${MAX_REPLAY_SPAN_MS} ms).`,
    );
  }
  for (let i = 0; i < trace.count; i += 1) out[i] = Math.floor(trace.arrivalMs[i] as number) - t0;
  return out;
}

/**
 * Replays `trace` through a fresh limiter built from `config` (throws on an invalid config), at
 * virtual `times` whose 0 stands for epoch ms `originMs`. By default the trace's own times, and
 * the origin that makes the first request's time + origin its whole-ms arrival (virtualOrigin
 * with virtualTimes; 0 without arrivals).
 */
export function replayTrace(
  trace: Pick<Trace, 'count' | 'arrivalMs' | 'keyId' | 'keys'>,
  config: AlgorithmConfig,
  times: Int32Array = virtualTimes(trace),
  originMs: number = trace.count === 0 || trace.arrivalMs.length === 0
    ? 0
    : Math.floor(trace.arrivalMs[0] as number) - (times[0] as number),
): Replay {
  const limiter = createLimiter(config, { originMs });
  const n = trace.count;
  const outcome = new Uint8Array(n);
  const delayMs = new Uint32Array(n);
  let admitted = 0;
  let delayed = 0;
  let rejected = 0;
  for (let i = 0; i < n; i += 1) {
    const d = limiter.decide(times[i] as number, trace.keys[trace.keyId[i] as number]);
    if (d.outcome === 'admit') {
      admitted += 1;
    } else if (d.outcome === 'delay') {
      outcome[i] = DELAY;
      delayMs[i] = d.delayMs;
      delayed += 1;
    } else {
      outcome[i] = REJECT;
      rejected += 1;
    }
  }
  return { count: n, outcome, delayMs, admitted, delayed, rejected };
}
