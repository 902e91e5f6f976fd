/**
 * The trace as the page holds it (≤ 16 bytes a request for a 1M-request trace). The
 * parser's Trace keeps an 8-byte epoch arrival, a 2-byte cost and more; the page keeps less:
 * - times: whole ms since the first request (Int32, 4 bytes), which are also the replay's virtual
 *   times (src/trace/replay.ts `virtualTimes`), so the simulator, the sweep and the page share one
 *   array. Exact: every parser yields whole-ms arrivals, and this is used only when each arrival
 *   equals `baseMs + times[i]` exactly; otherwise (a span over 24 days, or a fractional arrival)
 *   the arrivals themselves are kept (Float64, `baseMs` 0) and the trace cannot be replayed.
 * - cost: dropped when every request costs 1 (the usual case: access logs carry no cost).
 * - the panel's statistics (top keys, requests per second), computed where the trace is parsed.
 * Computed in the parsing worker (src/store/trace.worker.ts), so the page never runs over the
 * requests to show a loaded log.
 */
import type { BuiltTrace } from './builder';
import { emptyKeyId } from './emptyKeys';
import { keysInTimeOrder, traceHashInTimeOrder } from './fingerprint';
import { markPhase } from './phase';
import { virtualTimes } from './replay';
import { keyCounts, nameWorst, topKeys, windowStatsById } from './stats';
import type { KeyVolume, WindowStats, WindowStatsById, WindowStatsInput } from './stats';

/** The W of the statistics computed with the trace, ms (the panel's default). */
export const HELD_STATS_WINDOW_MS = 1000;
/** Keys the panel lists by volume and by worst window. */
export const HELD_TOP_KEYS = 5;

export interface HeldTrace extends Omit<BuiltTrace, 'arrivalMs' | 'cost'> {
  /** Request i arrived at epoch ms `baseMs + times[i]`. */
  baseMs: number;
  /**
   * Int32: whole ms since the first request (baseMs is its arrival), the replay's virtual times.
   * Float64: the arrivals (baseMs 0), when they do not fit that exactly; no replay then.
   */
  times: Int32Array | Float64Array;
  /** Cost per request; null when every request costs 1. */
  cost: Uint16Array | null;
  /** The HELD_TOP_KEYS keys with most requests, the empty key left out (see `emptyRequests`). */
  top: KeyVolume[];
  /** Requests per HELD_STATS_WINDOW_MS per key (worst keys: HELD_TOP_KEYS), empty key left out. */
  stats: WindowStats;
  /**
   * Requests whose key is empty (src/trace/emptyKeys.ts): kept out of `top` and `stats`, since
   * each system has its own rule for them and the page says which.
   */
  emptyRequests: number;
}

/** Whether the trace can be replayed, with its fingerprint (over the virtual times, keys). */
export type HeldReplay = { ok: true; hash: string } | { ok: false; message: string };

/**
 * A trace on its way to the page's form (`beginHold`): its keys numbered in the order of their
 * first request, its times, and requests per key. The fingerprint (`holdFingerprint`) and the
 * per-window statistics (`holdStatsInput`, `windowStatsById`) are then computed from it, on this
 * thread or (the statistics) on another, and `endHold` puts the parts together.
 */
export interface HoldStart {
  /** The trace (keys in order of first request) without its arrivals and costs. */
  trace: Omit<BuiltTrace, 'arrivalMs' | 'cost'>;
  cost: Uint16Array;
  count: number;
  /** The virtual times, or the arrivals when they do not fit them exactly (see HeldTrace). */
  times: Int32Array | Float64Array;
  baseMs: number;
  /** Why the trace cannot be replayed (null: it can, `times` are its virtual times). */
  unreplayable: string | null;
  /** Requests per key id, counted once for the statistics, the top keys and the empty key. */
  counts: Uint32Array;
  /** The empty key's id (-1: none). */
  emptyId: number;
}

/**
 * The first steps of `holdTrace`: its keys numbered in the order of their first request (`keyId`
 * is rewritten in place), exact whole-ms times when the arrivals allow, and requests per key.
 */
export function beginHold(built: BuiltTrace): HoldStart {
  const trace = { ...built, keys: keysInTimeOrder(built.keyId, built.keys, built.count) };
  const { arrivalMs, cost, ...rest } = trace;
  const n = trace.count;
  let times: Int32Array | Float64Array = arrivalMs.subarray(0, n);
  let baseMs = 0;
  let unreplayable: string | null;
  try {
    markPhase('hold: keys in order');
    const t = virtualTimes(trace);
    const t0 = n > 0 ? (arrivalMs[0] as number) : 0;
    let exact = true;
    for (let i = 0; i < n && exact; i += 1) exact = t0 + (t[i] as number) === arrivalMs[i];
    markPhase('hold: times');
    if (exact) {
      times = t;
      baseMs = t0;
      unreplayable = null;
    } else {
      unreplayable = 'The trace cannot be replayed: its arrivals are not whole milliseconds.';
    }
  } catch (e) {
    unreplayable = (e as Error).message;
  }
  const counts = keyCounts(trace);
  return {
    trace: rest,
    cost,
    count: n,
    times,
    baseMs,
    unreplayable,
    counts,
    emptyId: emptyKeyId(trace),
  };
}

/** Whether the trace can be replayed, with its fingerprint (over the virtual times and keys). */
export function holdFingerprint(start: HoldStart): HeldReplay {
  const { trace, times, unreplayable, count } = start;
  // Its keys are numbered in the order of their first request (beginHold): not ranked again.
  const replay: HeldReplay =
    unreplayable === null && times instanceof Int32Array
      ? { ok: true, hash: traceHashInTimeOrder(times, trace.keyId.subarray(0, count), trace.keys) }
      : { ok: false, message: unreplayable ?? 'The trace cannot be replayed.' };
  markPhase('hold: fingerprint');
  return replay;
}

/**
 * What the per-window statistics are computed from (`windowStatsById` with HELD_STATS_WINDOW_MS
 * and HELD_TOP_KEYS): only typed arrays and numbers, so another thread can be given a copy.
 */
export function holdStatsInput(start: HoldStart): WindowStatsInput {
  return {
    count: start.count,
    keyId: start.trace.keyId.subarray(0, start.count),
    keyCount: start.trace.keys.length,
    arrivalMs: start.times,
    skip: start.emptyId,
    counts: start.counts,
  };
}

/** The page's form of the trace from its start, its fingerprint and its statistics by key id. */
export function endHold(
  start: HoldStart,
  replay: HeldReplay,
  statsById: WindowStatsById,
): { held: HeldTrace; replay: HeldReplay } {
  const { trace, cost, count: n, times, baseMs, counts, emptyId } = start;
  const stats = nameWorst(statsById, trace.keys);
  for (const w of stats.worst) w.startMs += baseMs;
  let allOne = true;
  for (let i = 0; i < n && allOne; i += 1) allOne = cost[i] === 1;
  const held: HeldTrace = {
    ...trace,
    baseMs,
    times,
    cost: allOne ? null : cost.subarray(0, n),
    top: topKeys(trace, HELD_TOP_KEYS, emptyId, counts),
    stats,
    emptyRequests: emptyId < 0 ? 0 : (counts[emptyId] as number),
  };
  markPhase('hold: top keys');
  return { held, replay };
}

/**
 * The page's form of `built`: its arrays are reused where they can be (transfer them), the
 * 8-byte arrivals are dropped when exact whole-ms offsets replace them, and its keys are numbered
 * in the order of their first request (`keyId` is rewritten in place), as the compact file of it
 * numbers them: the same trace lists its keys alike however it was read.
 */
export function holdTrace(built: BuiltTrace): { held: HeldTrace; replay: HeldReplay } {
  const start = beginHold(built);
  const replay = holdFingerprint(start);
  const stats = windowStatsById(holdStatsInput(start), HELD_STATS_WINDOW_MS, HELD_TOP_KEYS);
  markPhase('hold: window stats');
  return endHold(start, replay, stats);
}

/** The arrivals, epoch ms (a new array). */
export function arrivalsOf(held: Pick<HeldTrace, 'count' | 'baseMs' | 'times'>): Float64Array {
  const out = new Float64Array(held.count);
  for (let i = 0; i < held.count; i += 1) out[i] = held.baseMs + (held.times[i] as number);
  return out;
}

/** The costs (a new array of 1s when the trace holds none). */
export function costsOf(held: Pick<HeldTrace, 'count' | 'cost'>): Uint16Array {
  return held.cost === null ? new Uint16Array(held.count).fill(1) : held.cost.slice(0, held.count);
}

/** Arrival of request i, epoch ms. */
export function arrivalAt(held: Pick<HeldTrace, 'baseMs' | 'times'>, i: number): number {
  return held.baseMs + (held.times[i] as number);
}

/** The virtual times when the trace holds them (Int32), else null. */
export function heldVirtualTimes(held: Pick<HeldTrace, 'times'>): Int32Array | null {
  return held.times instanceof Int32Array ? held.times : null;
}

/** Computes the per-window statistics elsewhere (another thread), from a copy of `input`. */
export type StatsBeside = (
  input: WindowStatsInput,
  windowMs: number,
  top: number,
) => Promise<WindowStatsById>;

/**
 * `holdTrace` with the per-window statistics computed by `beside` (another thread) while this
 * one computes the fingerprint: the two passes over every request run at once, not one after the
 * other. The same result; should `beside` fail, the statistics are computed here.
 */
export async function holdTraceBeside(
  built: BuiltTrace,
  beside: StatsBeside,
): Promise<{ held: HeldTrace; replay: HeldReplay }> {
  const start = beginHold(built);
  const input = holdStatsInput(start);
  const elsewhere = beside(input, HELD_STATS_WINDOW_MS, HELD_TOP_KEYS);
  // Settled below; no rejection goes unhandled meanwhile.
  elsewhere.catch(() => {});
  const replay = holdFingerprint(start);
  let stats: WindowStatsById;
  try {
    stats = await elsewhere;
  } catch {
    stats = windowStatsById(input, HELD_STATS_WINDOW_MS, HELD_TOP_KEYS);
  }
  markPhase('hold: window stats');
  return endHold(start, replay, stats);
}
