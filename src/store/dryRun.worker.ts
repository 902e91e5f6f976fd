/**
 * The dry run off the main thread, for the whole trace or for the span the
 * stage replays (its requests only, from an idle limiter, as the stage runs them): the replay
 * through the limiter's kernel (src/trace/kernels.ts; core for an algorithm without one), then the
 * changes grouped a slice at a time, each slice's groups posted to the page as they grow. A newer
 * run stops an older one between slices; the page cancels by terminating the worker.
 */
import {
  DryRunGrouper,
  dryRun,
  dryRunCsv,
  arrivalsOf,
  groupsInTrace,
  prepareSweep,
  replayColumns,
  replayWithEmptyKey,
  spanColumns,
  virtualOrigin,
  virtualTimes,
} from '../trace';
import type { OverviewColumns, PreparedSweep, Replay, SpanChoice } from '../trace';
import type { DryRunReply, DryRunRequest } from './dryRunProtocol';

/** Requests grouped between two progress messages. */
const SLICE = 100_000;

interface Held {
  /** Epoch ms, made when first needed (the CSV). */
  arrivalMs: Float64Array | null;
  baseMs: number;
  times: Int32Array | Float64Array;
  keyId: Uint32Array;
  status: Uint16Array;
  keys: string[];
  timeMs: Int32Array | null;
  /** The epoch ms `timeMs` 0 stands for (the first request's): windows on the clock start from it. */
  originMs: number;
  timeError: string | null;
  prep: PreparedSweep | null;
  /** The last span replayed, its requests and their kernel scratch. */
  span: { key: string; columns: OverviewColumns; first: number; prep: PreparedSweep } | null;
}

let held: Held | null = null;
let latest = -1;
let last: {
  gen: number;
  replay: Replay;
  baseline: 'recorded' | 'no-limit';
  /** The replayed requests: `count` from index `first` of the trace. */
  first: number;
  count: number;
} | null = null;

/** The held requests' arrivals, epoch ms (made once). */
function arrivals(h: Held): Float64Array {
  h.arrivalMs ??= arrivalsOf({ count: h.times.length, baseMs: h.baseMs, times: h.times });
  return h.arrivalMs;
}

const post = (m: DryRunReply) => (self as unknown as Worker).postMessage(m);
const yieldToMessages = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** The requests a run replays: the whole trace, or the span's (made once per span). */
function requestsOf(
  h: Held,
  whole: OverviewColumns,
  span: SpanChoice | null,
): { columns: OverviewColumns; first: number; prep: PreparedSweep } {
  if (span === null) {
    h.prep ??= prepareSweep({ ...whole, keyCount: h.keys.length });
    return { columns: whole, first: 0, prep: h.prep };
  }
  const key = `${span.fromMs}+${span.lengthMs}`;
  if (h.span?.key !== key) {
    const { columns, first } = spanColumns(whole, span);
    h.span = { key, columns, first, prep: prepareSweep({ ...columns, keyCount: h.keys.length }) };
  }
  return h.span;
}

async function run(gen: number, m: Extract<DryRunRequest, { type: 'run' }>): Promise<void> {
  const h = held;
  if (h === null) return;
  if (h.timeMs === null) {
    post({ type: 'error', gen, message: h.timeError ?? 'The trace cannot be replayed.' });
    return;
  }
  const whole = { timeMs: h.timeMs, keyId: h.keyId, keys: h.keys, originMs: h.originMs };
  const { columns, first, prep } = requestsOf(h, whole, m.span);
  const n = columns.timeMs.length;
  // Requests the system does not limit (or denies) for an empty key skip the limiter; the rest
  // reuse the span's kernel scratch when none is skipped.
  const replay = replayWithEmptyKey(columns, m.config, m.emptyKey ?? null, (c, config) =>
    replayColumns(c, config, c === columns ? prep : undefined),
  );
  last = { gen, replay, baseline: m.baseline, first, count: n };
  const counts = { admitted: replay.admitted, delayed: replay.delayed, rejected: replay.rejected };
  const status = h.status.subarray(first, first + n);
  const grouper = new DryRunGrouper(
    {
      ...columns,
      keyCount: h.keys.length,
      status,
      // Slices on the log's clock: the epoch ms the span's time 0 stands for.
      zeroEpochMs: n === 0 ? 0 : (arrivals(h)[first] as number) - (columns.timeMs[0] as number),
    },
    replay.outcome,
    replay.delayMs,
    m.baseline,
  );
  const groups = () => groupsInTrace(grouper.snapshot(), whole, columns, first);
  while (grouper.step(SLICE)) {
    post({ type: 'progress', gen, counts, groups: groups() });
    await yieldToMessages();
    if (latest !== gen) return;
  }
  post({ type: 'done', gen, counts, groups: groups() });
}

self.onmessage = (e: MessageEvent<DryRunRequest>) => {
  const m = e.data;
  if (m.type === 'init') {
    held = {
      ...m,
      arrivalMs: null,
      timeMs: null,
      originMs: m.baseMs,
      timeError: null,
      prep: null,
      span: null,
    };
    if (m.times instanceof Int32Array) {
      held.timeMs = m.times;
    } else {
      const arrivalMs = arrivals(held);
      try {
        held.timeMs = virtualTimes({ count: arrivalMs.length, arrivalMs });
        held.originMs = virtualOrigin({ count: arrivalMs.length, arrivalMs });
      } catch (err) {
        held.timeError = (err as Error).message;
      }
    }
    last = null;
    return;
  }
  if (m.type === 'keys') {
    if (held !== null) for (const k of m.keys) held.keys.push(k);
    return;
  }
  if (m.type === 'csv') {
    const h = held;
    if (h === null || last === null || last.gen !== m.gen) return;
    const end = last.first + last.count;
    const trace = {
      count: last.count,
      arrivalMs: arrivals(h).subarray(last.first, end),
      keyId: h.keyId.subarray(last.first, end),
      keys: h.keys,
      status: h.status.subarray(last.first, end),
    };
    const csv = dryRunCsv(trace, dryRun(trace, last.replay, last.baseline));
    post({ type: 'csv', gen: m.gen, csv: new Blob([csv], { type: 'text/csv' }) });
    return;
  }
  latest = m.gen;
  run(m.gen, m).catch((err: unknown) => {
    post({ type: 'error', gen: m.gen, message: err instanceof Error ? err.message : String(err) });
  });
};
