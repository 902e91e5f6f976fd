/**
 * Runs a sweep in Web Workers. Each worker gets the trace once (its own copy of the typed arrays,
 * transferred), then cells one at a time with one more queued behind it, in an order that covers
 * the grid coarsely first: the first results spread over the whole grid and arrive after one cell's
 * work, and a worker that finishes early takes more. Each result goes to `onCell` as it arrives.
 * The returned function cancels (terminates the workers). Without Worker support (tests) the cells
 * are computed here, one per task, so the page stays responsive.
 */
import type { AlgorithmConfig } from '../core';
import type { SimTrace } from '../sim';
import { fastSweepCell, keyEmptyIdByClient, prepareSweep } from '../trace';
import type { CellResult, EmptyKeyExempt } from '../trace';
import type { SweepReply, SweepRequest } from './sweepProtocol';

export interface SweepCallbacks {
  onCell: (index: number, result: CellResult) => void;
  onError: (index: number, message: string) => void;
}

/** Cells a worker holds at once: the one it computes and the next, so it never waits for the page. */
const IN_FLIGHT = 2;

let gen = 0;

/** Cell indices in an order that covers the grid coarsely first (strided passes). */
export function spreadOrder(count: number): number[] {
  const seen = new Uint8Array(count);
  const out: number[] = [];
  for (
    let stride = 1 << Math.max(0, Math.ceil(Math.log2(Math.max(1, count))));
    stride >= 1;
    stride >>= 1
  ) {
    for (let i = 0; i < count; i += stride) {
      if (seen[i] === 0) {
        seen[i] = 1;
        out.push(i);
      }
    }
  }
  return out;
}

/** How many workers a sweep uses: one per core, at most 4, at most one per cell. */
export function sweepWorkers(cells: number): number {
  const cores = typeof navigator === 'undefined' ? 2 : navigator.hardwareConcurrency || 2;
  return Math.max(1, Math.min(4, cores, cells));
}

/** Each trace as a system that keys its empty-key requests by their address sees it. */
const byAddress = new WeakMap<SimTrace, SimTrace>();

/**
 * `trace` with each empty-key request that has an address (`SimTrace.emptyClients`) under that
 * address's key, as the stage's lane for such a system (Kong) and the dry run count it; `trace`
 * itself when none has one. Made once per trace.
 */
export function traceByAddress(trace: SimTrace): SimTrace {
  let out = byAddress.get(trace);
  if (out === undefined) {
    const moved = keyEmptyIdByClient(
      { keyId: trace.keyId, keys: trace.keys, count: trace.keyId.length },
      trace.emptyKeyId ?? -1,
      trace.emptyClients,
    );
    out = moved === null ? trace : { ...trace, keyId: moved.keyId, keys: moved.keys };
    byAddress.set(trace, out);
  }
  return out;
}

/**
 * Sweeps `configs` over `trace`. `emptyOutcome`: what the limiter's system does with the trace's
 * empty-key requests (`SimTrace.emptyKeyId`) — admit or deny them without the limiter, or key
 * each by its client address (`'client'`, see `traceByAddress`) — or null to give them to the
 * limiter under one key, like the stage and the dry run do for that system. `originMs`: the epoch
 * ms the trace's time 0 stands for (its first request's arrival), from which the clock-aligned
 * algorithms place their windows, as the dry run does.
 */
export function runSweep(
  given: SimTrace,
  configs: readonly AlgorithmConfig[],
  windowMs: number,
  cb: SweepCallbacks,
  emptyOutcome: 'admit' | 'reject' | 'client' | null = null,
  originMs = 0,
): () => void {
  const trace = emptyOutcome === 'client' ? traceByAddress(given) : given;
  gen += 1;
  const mine = gen;
  const order = spreadOrder(configs.length);
  let next = 0;
  const emptyId = trace.emptyKeyId ?? -1;
  const emptyKey: EmptyKeyExempt | null =
    emptyOutcome === null || emptyOutcome === 'client' || emptyId < 0
      ? null
      : { id: emptyId, outcome: emptyOutcome };
  if (typeof Worker === 'undefined') {
    let prep: ReturnType<typeof prepareSweep> | null = null;
    let stopped = false;
    const step = () => {
      if (stopped) return;
      prep ??= prepareSweep({
        timeMs: trace.timeMs,
        keyId: trace.keyId,
        keyCount: trace.keys.length,
        keys: trace.keys,
        emptyKey,
        originMs,
      });
      const i = order[next++] as number;
      try {
        cb.onCell(i, fastSweepCell(prep, configs[i] as AlgorithmConfig, windowMs));
      } catch (e) {
        cb.onError(i, (e as Error).message);
      }
      if (next < order.length) setTimeout(step, 0);
    };
    setTimeout(step, 0);
    return () => {
      stopped = true;
    };
  }
  const workers: Worker[] = [];
  const timers: ReturnType<typeof setTimeout>[] = [];
  const deal = (worker: Worker) => {
    if (next >= order.length) return;
    const index = order[next++] as number;
    const req: SweepRequest = {
      type: 'cells',
      gen: mine,
      cells: [{ index, config: configs[index] as AlgorithmConfig }],
    };
    worker.postMessage(req);
  };
  const start = () => {
    const worker = new Worker(new URL('./sweep.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<SweepReply>) => {
      const m = e.data;
      if (m.gen !== mine) return;
      deal(worker);
      if (m.type === 'cell') cb.onCell(m.index, m.result);
      else cb.onError(m.index, m.message);
    };
    // A copy per worker, transferred: slicing also drops whatever else the buffers hold.
    const timeMs = trace.timeMs.slice();
    const keyId = trace.keyId.slice();
    const init: SweepRequest = {
      type: 'init',
      gen: mine,
      timeMs,
      keyId,
      keyCount: trace.keys.length,
      windowMs,
      emptyKey,
      originMs,
    };
    worker.postMessage(init, [timeMs.buffer, keyId.buffer]);
    for (let k = 0; k < IN_FLIGHT; k += 1) deal(worker);
    workers.push(worker);
  };
  // Each worker's copy of the trace is made in a task of its own (8 MB each for a 1M-request
  // trace): the click that starts the sweep is not one long task.
  for (let w = 0; w < sweepWorkers(configs.length); w += 1) timers.push(setTimeout(start, 0));
  return () => {
    for (const t of timers) clearTimeout(t);
    for (const w of workers) w.terminate();
  };
}
