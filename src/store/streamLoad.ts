/**
 * The streaming passes over a log too large to hold (src/trace/budget.ts), kept apart from the
 * held trace: one worker per statistics pass; a new pass or a cancel terminates the running one
 * (the newest wins). A pass that fails or is cancelled leaves the last finished result in place.
 * A finished pass hands the page its key volumes (the sweep's p99 rule needs them) and the compact
 * copy of the requests it wrote, and its worker is ended: its heap and the buffers the browser
 * made for its reads are let go with it. Every sweep runs in a new worker, given what the last
 * read of the same file left, so a sweep after the pass, or a second sweep, reads no text.
 */
import { createStore } from 'zustand/vanilla';
import type { AlgorithmConfig } from '../core';
import type {
  Baseline,
  CellResult,
  HeldReplay,
  HeldTrace,
  KeySpec,
  StreamEmptyOutcome,
  StreamFigures,
  StreamResult,
} from '../trace';
import type {
  StreamKept,
  StreamSpanReply,
  StreamSpanRequest,
  StreamReply,
  StreamRequest,
  StreamSweepReply,
  StreamSweepRequest,
} from './streamProtocol';
import { WorkerSlot } from './workerSlot';

export type StreamStatus =
  | { kind: 'idle' }
  | { kind: 'running'; bytes: number; total: number; figures: StreamFigures | null }
  | { kind: 'cancelled' }
  | { kind: 'error'; message: string };

/** What a finished pass was asked. */
export interface StreamAsked {
  file: File;
  keySpec: KeySpec;
  configs: AlgorithmConfig[];
  baseline: Baseline;
  /** The limiter's system's rule for requests with an empty key (src/trace/stream.ts). */
  emptyOutcome: StreamEmptyOutcome;
}

/** What a sweep was asked: the grid's configs, and the limiter the grid was laid around. */
export interface StreamSweepAsked {
  file: File;
  keySpec: KeySpec;
  base: AlgorithmConfig;
  configs: AlgorithmConfig[];
  /** W of the peak backend load, ms. */
  windowMs: number;
  /**
   * The limiter's system's rule for requests with an empty key (emptyKeyOutcome), or 'client':
   * keyed by their client address where their line has one (Kong).
   */
  emptyOutcome: 'admit' | 'reject' | 'client' | null;
}

export type StreamSweepStatus =
  | {
      kind: 'running';
      /**
       * Reading the file once first ('count'), deciding cells in pass `pass` of `passes` over the
       * text ('sweep') or over the recorded requests ('cells': `bytes` of `total` are the
       * request × cell decisions made).
       */
      phase: 'count' | 'sweep' | 'cells';
      pass: number;
      passes: number;
      bytes: number;
      total: number;
      requests: number;
    }
  | {
      kind: 'done';
      requests: number;
      outsideWindow: number;
      passes: number;
      /** Where the cells read the requests from, and how many workers decided them. */
      source: 'opfs' | 'blob' | 'text';
      workers: number;
    }
  | { kind: 'cancelled' }
  | { kind: 'error'; message: string };

export interface StreamSweepState {
  asked: StreamSweepAsked;
  /** One per config, in order; undefined until its pass ends (or when its config failed). */
  cells: Array<CellResult | undefined>;
  /** "cell N: message" for each config that failed. */
  errors: string[];
  status: StreamSweepStatus;
}

/** A span being read (or read) out of the streamed file for the stage. */
export type StreamSpanStatus =
  | { kind: 'running'; bytes: number; total: number; requests: number; inSpan: number }
  | { kind: 'done'; requests: number; cutAtMs: number | null }
  | { kind: 'cancelled' }
  | { kind: 'error'; message: string };

export interface StreamSpanAsked {
  file: File;
  keySpec: KeySpec;
  /** Epoch ms: [fromMs, toMs). */
  fromMs: number;
  toMs: number;
}

export interface StreamLoadState {
  /** The last span asked for and its state; null before the first. */
  span: { asked: StreamSpanAsked; status: StreamSpanStatus } | null;
  /**
   * Reads a span into a held trace, given to `onTrace` (the trace load store's holdSpan) with the
   * span it holds: [fromMs, toMs), or [fromMs, the cut) when the span was cut.
   */
  loadSpan: (
    asked: StreamSpanAsked,
    onTrace: (trace: HeldTrace, replay: HeldReplay, file: File, span: [number, number]) => void,
  ) => void;
  cancelSpan: () => void;
  /** The last pass that finished, with what it was asked. */
  result: { asked: StreamAsked; result: StreamResult } | null;
  /** What the running (or last started) pass was asked. */
  asked: StreamAsked | null;
  status: StreamStatus;
  start: (asked: StreamAsked) => void;
  cancel: () => void;
  /** The last sweep started, its cells so far and its state; null before the first. */
  sweep: StreamSweepState | null;
  startSweep: (asked: StreamSweepAsked) => void;
  cancelSweep: () => void;
}

/**
 * What the last read of a file left (stream.worker.ts), kept by the page for the next sweep of
 * the file. A copy in the private file system stays while the page holds its Web Lock: the page
 * steals the lock from the worker that wrote it before ending that worker (a file whose lock
 * nobody holds is a stopped worker's leftover, removed by the next read that opens one).
 */
class KeptRead {
  /** Resolves once the page holds the copy's lock; null when there is none to hold. */
  readonly held: Promise<void> | null;
  /** The volumes and the copy; a private file's copy is left out where the page has no locks. */
  readonly kept: StreamKept;
  private let: () => void = () => undefined;
  private gone = false;

  constructor(
    readonly file: File,
    readonly keySpec: KeySpec,
    kept: StreamKept,
  ) {
    const lock = kept.copy?.lock ?? null;
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    this.kept = lock !== null && locks === undefined ? { volumes: kept.volumes, copy: null } : kept;
    if (lock === null || locks === undefined) {
      this.held = null;
      return;
    }
    this.held = new Promise<void>((granted) => {
      locks
        .request(lock, { steal: true }, () => {
          granted();
          return new Promise<void>((r) => (this.let = r));
        })
        .catch(() => granted());
    });
  }

  /** Lets go of the copy: the private file is removed and its lock released. */
  drop(): void {
    if (this.gone) return;
    this.gone = true;
    const lock = this.kept.copy?.lock ?? null;
    if (lock === null || this.held === null) return;
    void this.held.then(async () => {
      try {
        const dir = await navigator.storage.getDirectory();
        await dir.removeEntry(lock);
      } catch {
        // Left for the next read's clean-up of leftovers, once the lock is gone.
      } finally {
        this.let();
      }
    });
  }
}

/** How the page makes a pass worker (tests may pass their own). */
export type StreamWorkerFactory = () => Worker;

const defaultFactory: StreamWorkerFactory = () =>
  new Worker(new URL('./stream.worker.ts', import.meta.url), { type: 'module' });

export function createStreamStore(makeWorker: StreamWorkerFactory = defaultFactory) {
  const passes = new WorkerSlot(makeWorker);
  /** The span reader: a worker of its own, so the statistics pass and the sweep keep theirs. */
  const spans = new WorkerSlot(makeWorker);
  /** What the last finished read (a pass, or a sweep's own) left, for a sweep of its file. */
  let last: KeptRead | null = null;
  /** What the running sweep was given (kept until it ends, even when `last` moves on). */
  let inSweep: KeptRead | null = null;
  const dropUnused = (k: KeptRead | null): void => {
    if (k !== null && k !== last && k !== inSweep) k.drop();
  };
  /** Keeps what a worker's read left, and ends the worker once the page holds the copy's lock. */
  const keep = (asked: { file: File; keySpec: KeySpec }, kept: StreamKept, w: Worker): void => {
    const old = last;
    last = new KeptRead(asked.file, asked.keySpec, kept);
    dropUnused(old);
    if (last.held === null) w.terminate();
    else void last.held.then(() => w.terminate());
  };
  const forget = (): void => {
    const old = last;
    last = null;
    dropUnused(old);
  };
  let sweepWorker: Worker | null = null;
  let sweepGen = 0;
  const stopSweep = (): void => {
    sweepWorker?.terminate();
    sweepWorker = null;
    const used = inSweep;
    inSweep = null;
    dropUnused(used);
    sweepGen += 1;
  };
  /**
   * Stops a sweep that was cancelled or failed; the copy it was given goes with it (it may be the
   * cause), so the next sweep reads the file once again.
   */
  const endSweep = (): void => {
    if (inSweep !== null && inSweep === last) forget();
    stopSweep();
  };
  const same = (a: { file: File; keySpec: KeySpec } | null, b: { file: File; keySpec: KeySpec }) =>
    a !== null && a.file === b.file && a.keySpec === b.keySpec;
  return createStore<StreamLoadState>()((set, get) => ({
    result: null,
    asked: null,
    status: { kind: 'idle' },
    sweep: null,
    span: null,
    loadSpan: (asked, onTrace) => {
      const { worker: w, gen: mine } = spans.start();
      const running = { kind: 'running' as const, bytes: 0, total: asked.file.size, requests: 0 };
      set({ span: { asked, status: { ...running, inSpan: 0 } } });
      w.onmessage = (e: MessageEvent<StreamSpanReply>) => {
        const msg = e.data;
        if (msg.gen !== mine || !spans.current(mine)) return;
        if (msg.type === 'span-progress') {
          const { bytes, total, requests, inSpan } = msg;
          set({ span: { asked, status: { kind: 'running', bytes, total, requests, inSpan } } });
          return;
        }
        spans.stop();
        if (msg.type === 'span-done') {
          onTrace(msg.trace, msg.replay, asked.file, [asked.fromMs, msg.cutAtMs ?? asked.toMs]);
          const status = { kind: 'done' as const, requests: msg.trace.count, cutAtMs: msg.cutAtMs };
          set({ span: { asked, status } });
        } else {
          set({ span: { asked, status: { kind: 'error', message: msg.message } } });
        }
      };
      w.onerror = (e) => {
        if (!spans.current(mine)) return;
        spans.stop();
        const message = `Reading the span stopped: ${e.message}`;
        set({ span: { asked, status: { kind: 'error', message } } });
      };
      const req: StreamSpanRequest = { type: 'span', gen: mine, ...asked };
      w.postMessage(req);
    },
    cancelSpan: () => {
      spans.cancel();
      const s = get().span;
      if (s !== null && s.status.kind === 'running')
        set({ span: { asked: s.asked, status: { kind: 'cancelled' } } });
    },
    start: (asked) => {
      // The new pass writes a new copy; a sweep running over the old one keeps it till it ends.
      forget();
      const { worker: w, gen: mine } = passes.start();
      set({
        asked,
        status: { kind: 'running', bytes: 0, total: asked.file.size, figures: null },
      });
      w.onmessage = (e: MessageEvent<StreamReply>) => {
        const msg = e.data;
        if (msg.gen !== mine || !passes.current(mine)) return;
        if (msg.type === 'progress') {
          set({
            status: { kind: 'running', bytes: msg.bytes, total: msg.total, figures: msg.figures },
          });
        } else if (msg.type === 'done') {
          // Its key volumes and copy are the page's now; the worker and all it held are let go.
          passes.take();
          keep(asked, msg.kept, w);
          set({ result: { asked, result: msg.result }, status: { kind: 'idle' } });
        } else {
          passes.stop();
          set({ status: { kind: 'error', message: msg.message } });
        }
      };
      w.onerror = (e) => {
        if (!passes.current(mine)) return;
        passes.stop();
        set({ status: { kind: 'error', message: `The pass stopped: ${e.message}` } });
      };
      const req: StreamRequest = {
        gen: mine,
        file: asked.file,
        keySpec: asked.keySpec,
        configs: asked.configs,
        baseline: asked.baseline,
        emptyOutcome: asked.emptyOutcome,
      };
      w.postMessage(req);
    },
    cancel: () => {
      passes.cancel();
      set({ status: { kind: 'cancelled' } });
    },
    startSweep: (asked) => {
      stopSweep();
      // A new worker, given what the last read of this file left (then it reads no text).
      const given = last !== null && same(last, asked) ? last : null;
      inSweep = given;
      const w = makeWorker();
      const mine = sweepGen;
      sweepWorker = w;
      set({
        sweep: {
          asked,
          cells: new Array<CellResult | undefined>(asked.configs.length).fill(undefined),
          errors: [],
          status: {
            kind: 'running',
            phase: 'sweep',
            pass: 0,
            passes: 0,
            bytes: 0,
            total: asked.file.size,
            requests: 0,
          },
        },
      });
      const update = (f: (s: StreamSweepState) => Partial<StreamSweepState>): void => {
        const s = get().sweep;
        if (s !== null) set({ sweep: { ...s, ...f(s) } });
      };
      w.onmessage = (e: MessageEvent<StreamSweepReply>) => {
        const msg = e.data;
        if (msg.gen !== mine || sweepGen !== mine) return;
        if (msg.type === 'sweep-progress') {
          update(() => ({
            status: {
              kind: 'running',
              phase: msg.phase,
              pass: msg.pass,
              passes: msg.passes,
              bytes: msg.bytes,
              total: msg.total,
              requests: msg.figures.requests,
            },
          }));
        } else if (msg.type === 'sweep-cells') {
          update((s) => {
            const cells = s.cells.slice();
            const errors = s.errors.slice();
            for (const c of msg.cells) {
              if (c.result !== null) cells[c.index] = c.result;
              else errors.push(`cell ${c.index + 1}: ${c.message ?? 'failed'}`);
            }
            return { cells, errors };
          });
        } else if (msg.type === 'sweep-done') {
          update(() => ({
            status: {
              kind: 'done',
              requests: msg.requests,
              outsideWindow: msg.outsideWindow,
              passes: msg.passes,
              source: msg.source,
              workers: msg.workers,
            },
          }));
          // Done: what its own read left is kept for the next sweep, and the worker let go.
          sweepWorker = null;
          const used = inSweep;
          inSweep = null;
          if (msg.kept !== null) keep(asked, msg.kept, w);
          else w.terminate();
          dropUnused(used);
        } else {
          endSweep();
          update(() => ({ status: { kind: 'error', message: msg.message } }));
        }
      };
      w.onerror = (e) => {
        if (sweepGen !== mine) return;
        endSweep();
        update(() => ({ status: { kind: 'error', message: `The sweep stopped: ${e.message}` } }));
      };
      const req: StreamSweepRequest = {
        type: 'sweep',
        gen: mine,
        file: asked.file,
        keySpec: asked.keySpec,
        configs: asked.configs,
        windowMs: asked.windowMs,
        emptyOutcome: asked.emptyOutcome,
        kept: given?.kept ?? null,
      };
      w.postMessage(req);
    },
    cancelSweep: () => {
      endSweep();
      const s = get().sweep;
      if (s !== null && s.status.kind === 'running') {
        set({ sweep: { ...s, status: { kind: 'cancelled' } } });
      }
    },
  }));
}

export type StreamStore = ReturnType<typeof createStreamStore>;

let instance: StreamStore | null = null;

/** The page's one pass store (created on first use). */
export function streamStore(): StreamStore {
  instance ??= createStreamStore();
  return instance;
}
