/**
 * The streaming pass over a log too large to hold (src/trace/budget.ts), kept apart from the held
 * trace: one worker per pass; a new pass or a cancel terminates the running one (the newest
 * wins). A pass that fails or is cancelled leaves the last finished result in place.
 */
import { createStore } from 'zustand/vanilla';
import type { AlgorithmConfig } from '../core';
import type { Baseline, KeySpec, StreamFigures, StreamResult } from '../trace';
import type { StreamReply, StreamRequest } from './streamProtocol';

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
}

export interface StreamLoadState {
  /** The last pass that finished, with what it was asked. */
  result: { asked: StreamAsked; result: StreamResult } | null;
  /** What the running (or last started) pass was asked. */
  asked: StreamAsked | null;
  status: StreamStatus;
  start: (asked: StreamAsked) => void;
  cancel: () => void;
}

/** How the page makes a pass worker (tests may pass their own). */
export type StreamWorkerFactory = () => Worker;

const defaultFactory: StreamWorkerFactory = () =>
  new Worker(new URL('./stream.worker.ts', import.meta.url), { type: 'module' });

export function createStreamStore(makeWorker: StreamWorkerFactory = defaultFactory) {
  let worker: Worker | null = null;
  let gen = 0;
  const stop = (): void => {
    worker?.terminate();
    worker = null;
  };
  return createStore<StreamLoadState>()((set) => ({
    result: null,
    asked: null,
    status: { kind: 'idle' },
    start: (asked) => {
      stop();
      gen += 1;
      const mine = gen;
      set({
        asked,
        status: { kind: 'running', bytes: 0, total: asked.file.size, figures: null },
      });
      const w = makeWorker();
      worker = w;
      w.onmessage = (e: MessageEvent<StreamReply>) => {
        const msg = e.data;
        if (msg.gen !== mine || mine !== gen) return;
        if (msg.type === 'progress') {
          set({
            status: { kind: 'running', bytes: msg.bytes, total: msg.total, figures: msg.figures },
          });
        } else if (msg.type === 'done') {
          stop();
          set({ result: { asked, result: msg.result }, status: { kind: 'idle' } });
        } else {
          stop();
          set({ status: { kind: 'error', message: msg.message } });
        }
      };
      w.onerror = (e) => {
        if (gen !== mine) return;
        stop();
        set({ status: { kind: 'error', message: `The pass stopped: ${e.message}` } });
      };
      const req: StreamRequest = {
        gen: mine,
        file: asked.file,
        keySpec: asked.keySpec,
        configs: asked.configs,
        baseline: asked.baseline,
      };
      w.postMessage(req);
    },
    cancel: () => {
      stop();
      gen += 1;
      set({ status: { kind: 'cancelled' } });
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
