/**
 * The whole of a long trace at a glance, and the span of it the stage replays: requests and the
 * current limiter's rejections per minute from the first request to the last, the busiest span
 * of a given length, and an exact replay of the whole trace or of one span. Pure: the page calls
 * these in workers (src/store/overview.worker.ts, dryRun.worker.ts).
 *
 * `TraceSpanSource` is what the overview asks of a trace. A trace held in memory answers from its
 * columns (`heldSpanSource`); a trace too large to hold can answer the same questions with passes
 * over its file.
 */
import type { AlgorithmConfig } from '../core';
import { traceSpan } from '../sim';
import type { DryRunGroups } from './dryrunGroups';
import { fastOutcomes, prepareSweep } from './fastSweep';
import type { PreparedSweep } from './fastSweep';
import { REJECT, replayTrace } from './replay';
import type { Replay } from './replay';

/** The overview's bin: one minute. */
export const OVERVIEW_BIN_MS = 60_000;
/** Bins an overview draws at most; a longer trace is drawn in bins of several minutes. */
export const OVERVIEW_MAX_BINS = 6000;

/** The bin an overview of a trace `lengthMs` long uses: whole minutes, at most OVERVIEW_MAX_BINS. */
export function overviewBinMs(lengthMs: number): number {
  const minutes = Math.ceil((lengthMs + 1) / OVERVIEW_BIN_MS);
  return OVERVIEW_BIN_MS * Math.max(1, Math.ceil(minutes / OVERVIEW_MAX_BINS));
}

/** A trace as the overview reads it: whole-ms times from its first request, ascending; key ids. */
export interface OverviewColumns {
  timeMs: Int32Array;
  keyId: Uint32Array;
  keys: readonly string[];
  /**
   * The epoch ms time 0 stands for (the first request's arrival, or a span's start): windows on
   * the clock are placed from it (createLimiter's originMs). Absent: 0.
   */
  originMs?: number;
}

/**
 * Counts per bin of `binMs` from time 0: every request, or with `outcome`, only the requests
 * whose outcome is `code`. The last bin holds the last request.
 */
export function perBin(
  timeMs: Int32Array,
  binMs: number,
  outcome?: Uint8Array,
  code: number = REJECT,
): Uint32Array {
  const n = timeMs.length;
  const bins = new Uint32Array(n === 0 ? 0 : Math.floor((timeMs[n - 1] as number) / binMs) + 1);
  for (let i = 0; i < n; i += 1) {
    if (outcome !== undefined && outcome[i] !== code) continue;
    const b = Math.floor((timeMs[i] as number) / binMs);
    bins[b] = (bins[b] as number) + 1;
  }
  return bins;
}

/**
 * The start of the busiest span `lengthMs` long: the time t (a request's) for which
 * [t, t + lengthMs) holds the most requests, the earliest of equals. 0 for an empty trace.
 */
export function busiestStart(timeMs: Int32Array, lengthMs: number): number {
  let best = 0;
  let bestCount = 0;
  let hi = 0;
  for (let lo = 0; lo < timeMs.length; lo += 1) {
    const start = timeMs[lo] as number;
    if (lo > 0 && start === timeMs[lo - 1]) continue;
    while (hi < timeMs.length && (timeMs[hi] as number) < start + lengthMs) hi += 1;
    if (hi - lo > bestCount) {
      bestCount = hi - lo;
      best = start;
    }
  }
  return best;
}

/**
 * Whether the kernels `prep` runs place windows on the clock from `originMs`: always at origin 0
 * or for an algorithm whose windows are not on the clock; otherwise only when the sweep was
 * prepared with that origin and its kernels read it (their input's `originMs`).
 */
function kernelsAt(prep: PreparedSweep, config: AlgorithmConfig, originMs: number): boolean {
  const onClock =
    config.kind === 'fixed-window' ||
    config.kind === 'calendar-windows' ||
    (config.kind === 'sliding-window-counter' && config.anchor !== 'entry');
  if (originMs === 0 || !onClock) return true;
  const io = prep.io as { originMs?: number } | null;
  return io?.originMs === originMs;
}

/**
 * Every request of `columns` through a fresh limiter built from `config`, placed on the clock at
 * `columns.originMs`, exactly: the kernel of its algorithm where there is one (`prep`, made once
 * per trace by `prepareSweep`), else core's limiter. Throws on an invalid config.
 */
export function replayColumns(
  columns: OverviewColumns,
  config: AlgorithmConfig,
  prep: PreparedSweep = prepareSweep({ ...columns, keyCount: columns.keys.length }),
): Replay {
  const originMs = columns.originMs ?? 0;
  const fast = kernelsAt(prep, config, originMs) ? fastOutcomes(prep, config) : null;
  const n = columns.timeMs.length;
  if (fast === null) {
    // replayTrace reads arrivals only to make the times it is given here.
    const { timeMs, keyId, keys } = columns;
    return replayTrace(
      { count: n, arrivalMs: new Float64Array(0), keyId, keys: keys as string[] },
      config,
      timeMs,
      originMs,
    );
  }
  return {
    count: n,
    outcome: fast.outcome,
    delayMs: Uint32Array.from(fast.delayMs),
    admitted: fast.tally.admitted,
    delayed: fast.tally.delayed,
    rejected: fast.tally.rejected,
  };
}

/** A span of a trace: from `fromMs` after its first request, `lengthMs` long (a run's untilMs). */
export interface SpanChoice {
  fromMs: number;
  lengthMs: number;
}

/**
 * The requests a replay of `span` takes (all of `whole` when null), with the index of the first
 * of them in `whole`.
 */
export function spanColumns(
  whole: OverviewColumns,
  span: SpanChoice | null,
): { columns: OverviewColumns; first: number } {
  if (span === null) return { columns: whole, first: 0 };
  const { trace, first } = traceSpan({ hash: '', ...whole }, span.fromMs, span.lengthMs);
  // The span's time 0 is its start, `fromMs` after the trace's.
  const originMs = (whole.originMs ?? 0) + span.fromMs;
  return {
    columns: { timeMs: trace.timeMs, keyId: trace.keyId, keys: whole.keys, originMs },
    first,
  };
}

/**
 * The dry-run groups of a span's requests (`columns`, from index `first` of `whole`) as the page
 * reads them: request indices in the whole trace, time slices from its first request.
 */
export function groupsInTrace(
  groups: DryRunGroups,
  whole: OverviewColumns,
  columns: OverviewColumns,
  first: number,
): DryRunGroups {
  const n = columns.timeMs.length;
  const shiftMs = n === 0 ? 0 : (whole.timeMs[first] as number) - (columns.timeMs[0] as number);
  if (first === 0 && shiftMs === 0) return groups;
  return {
    ...groups,
    byTime: groups.byTime.map((s) => ({
      ...s,
      startMs: s.startMs + shiftMs,
      endMs: s.endMs + shiftMs,
    })),
    first: groups.first.map((c) => ({ ...c, index: c.index + first })),
  };
}

/** The requests of the span [fromMs, fromMs + lengthMs) of a trace, as the stage replays them. */
export interface TraceSpan {
  /** Whole ms from the span's start, ascending. */
  timeMs: Int32Array;
  /** Key ids of the trace's key list. */
  keyId: Uint32Array;
  /** Index in the trace of the span's first request. */
  first: number;
}

/** What the overview asks of a trace (see the file's comment). */
export interface TraceSpanSource {
  /** Requests in the whole trace. */
  count: number;
  /** ms from the first request to the last. */
  lengthMs: number;
  /** Requests per bin of `binMs` from the first request. */
  requestsPerBin(binMs: number): Uint32Array;
  /** Rejections per bin of the whole trace replayed through `config` from its first request. */
  rejectionsPerBin(config: AlgorithmConfig, binMs: number): Uint32Array;
  /** See `busiestStart`. */
  busiestStart(lengthMs: number): number;
  /** The span's requests (`traceSpan` in src/sim, which the stage's run uses). */
  span(fromMs: number, lengthMs: number): TraceSpan;
}

/** The TraceSpanSource of a trace held in memory. */
export function heldSpanSource(columns: OverviewColumns): TraceSpanSource {
  let prep: PreparedSweep | null = null;
  const { timeMs } = columns;
  const n = timeMs.length;
  return {
    count: n,
    lengthMs: n === 0 ? 0 : (timeMs[n - 1] as number) - (timeMs[0] as number),
    requestsPerBin: (binMs) => perBin(timeMs, binMs),
    rejectionsPerBin: (config, binMs) => {
      prep ??= prepareSweep({ ...columns, keyCount: columns.keys.length });
      return perBin(timeMs, binMs, replayColumns(columns, config, prep).outcome);
    },
    busiestStart: (lengthMs) => busiestStart(timeMs, lengthMs),
    span: (fromMs, lengthMs) => {
      const { columns: c, first } = spanColumns(columns, { fromMs, lengthMs });
      return { timeMs: c.timeMs, keyId: c.keyId, first };
    },
  };
}
