/**
 * The dry run off the main thread, for the whole trace: the replay through the
 * limiter's kernel (src/trace/kernels.ts; core for an algorithm without one), then the changes
 * grouped a slice at a time, each slice's groups posted to the page as they grow. A newer run
 * stops an older one between slices; the page cancels by terminating the worker.
 */
import {
  DryRunGrouper,
  dryRun,
  dryRunCsv,
  fastOutcomes,
  arrivalsOf,
  prepareSweep,
  replayTrace,
  virtualTimes,
} from '../trace';
import type { PreparedSweep, Replay } from '../trace';
import type { DryRunReply, DryRunRequest } from './dryRunProtocol';

/** Requests grouped between two progress messages. */
const SLICE = 100_000;

interface Held {
  /** Epoch ms, made when first needed (the CSV, a replay without a kernel). */
  arrivalMs: Float64Array | null;
  baseMs: number;
  times: Int32Array | Float64Array;
  keyId: Uint32Array;
  status: Uint16Array;
  keys: string[];
  timeMs: Int32Array | null;
  timeError: string | null;
  prep: PreparedSweep | null;
}

let held: Held | null = null;
let latest = -1;
let last: { gen: number; replay: Replay; baseline: 'recorded' | 'no-limit' } | null = null;

/** The held requests' arrivals, epoch ms (made once). */
function arrivals(h: Held): Float64Array {
  h.arrivalMs ??= arrivalsOf({ count: h.times.length, baseMs: h.baseMs, times: h.times });
  return h.arrivalMs;
}

const post = (m: DryRunReply) => (self as unknown as Worker).postMessage(m);
const yieldToMessages = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function run(gen: number, m: Extract<DryRunRequest, { type: 'run' }>): Promise<void> {
  const h = held;
  if (h === null) return;
  if (h.timeMs === null) {
    post({ type: 'error', gen, message: h.timeError ?? 'The trace cannot be replayed.' });
    return;
  }
  h.prep ??= prepareSweep({ timeMs: h.timeMs, keyId: h.keyId, keyCount: h.keys.length });
  const n = h.timeMs.length;
  let replay: Replay;
  const fast = fastOutcomes(h.prep, m.config);
  if (fast !== null) {
    replay = {
      count: n,
      outcome: fast.outcome,
      delayMs: Uint32Array.from(fast.delayMs),
      admitted: fast.tally.admitted,
      delayed: fast.tally.delayed,
      rejected: fast.tally.rejected,
    };
  } else {
    replay = replayTrace(
      { count: n, arrivalMs: arrivals(h), keyId: h.keyId, keys: h.keys },
      m.config,
      h.timeMs,
    );
  }
  last = { gen, replay, baseline: m.baseline };
  const counts = { admitted: replay.admitted, delayed: replay.delayed, rejected: replay.rejected };
  const grouper = new DryRunGrouper(
    {
      timeMs: h.timeMs,
      keyId: h.keyId,
      keyCount: h.keys.length,
      status: h.status,
      keys: h.keys,
      // Slices on the log's clock: the epoch ms a time of 0 stands for.
      zeroEpochMs: n === 0 ? 0 : (arrivals(h)[0] as number) - (h.timeMs[0] as number),
    },
    replay.outcome,
    replay.delayMs,
    m.baseline,
  );
  while (grouper.step(SLICE)) {
    post({ type: 'progress', gen, counts, groups: grouper.snapshot() });
    await yieldToMessages();
    if (latest !== gen) return;
  }
  post({ type: 'done', gen, counts, groups: grouper.snapshot() });
}

self.onmessage = (e: MessageEvent<DryRunRequest>) => {
  const m = e.data;
  if (m.type === 'init') {
    held = { ...m, arrivalMs: null, timeMs: null, timeError: null, prep: null };
    if (m.times instanceof Int32Array) {
      held.timeMs = m.times;
    } else {
      const arrivalMs = arrivals(held);
      try {
        held.timeMs = virtualTimes({ count: arrivalMs.length, arrivalMs });
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
    const trace = {
      count: h.times.length,
      arrivalMs: arrivals(h),
      keyId: h.keyId,
      keys: h.keys,
      status: h.status,
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
