/**
 * The streaming passes over a log too large to hold (src/trace/budget.ts), kept apart from the
 * held trace: one worker per statistics pass; a new pass or a cancel terminates the running one
 * (the newest wins). A pass that fails or is cancelled leaves the last finished result in place.
 * The sweep runs in a worker of its own: the one the last statistics pass over the same file ran
 * in when it is idle (it keeps the key volumes the sweep's p99 rule needs), else a new one.
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

/** How the page makes a pass worker (tests may pass their own). */
export type StreamWorkerFactory = () => Worker;

const defaultFactory: StreamWorkerFactory = () =>
  new Worker(new URL('./stream.worker.ts', import.meta.url), { type: 'module' });

export function createStreamStore(makeWorker: StreamWorkerFactory = defaultFactory) {
  const passes = new WorkerSlot(makeWorker);
  /** The span reader: a worker of its own, so the statistics pass and the sweep keep theirs. */
  const spans = new WorkerSlot(makeWorker);
  /** The statistics pass the idle worker in `passes` finished (it keeps that pass's key volumes). */
  let idleAfter: StreamAsked | null = null;
  let sweepWorker: Worker | null = null;
  /** The file and key the idle sweepWorker last swept (it keeps their key volumes). */
  let sweepIdleFor: { file: File; keySpec: KeySpec } | null = null;
  let sweepGen = 0;
  const stopSweep = (): void => {
    sweepWorker?.terminate();
    sweepWorker = null;
    sweepIdleFor = null;
    sweepGen += 1;
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
      idleAfter = null;
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
          // The worker stays, idle, holding the key volumes a sweep of this file starts from.
          idleAfter = asked;
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
      idleAfter = null;
      passes.cancel();
      set({ status: { kind: 'cancelled' } });
    },
    startSweep: (asked) => {
      // A worker that holds this file's key volumes: the last sweep's, or the statistics pass's.
      let w: Worker | null = null;
      if (same(sweepIdleFor, asked)) {
        w = sweepWorker;
        sweepWorker = null;
      }
      stopSweep();
      if (w === null && same(idleAfter, asked)) {
        w = passes.take();
        idleAfter = null;
      }
      w ??= makeWorker();
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
          // Kept, idle: it holds the key volumes for the next sweep of the same file.
          sweepIdleFor = { file: asked.file, keySpec: asked.keySpec };
        } else {
          stopSweep();
          update(() => ({ status: { kind: 'error', message: msg.message } }));
        }
      };
      w.onerror = (e) => {
        if (sweepGen !== mine) return;
        stopSweep();
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
      };
      w.postMessage(req);
    },
    cancelSweep: () => {
      stopSweep();
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
