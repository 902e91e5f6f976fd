/**
 * The loaded access log and the state of loading one. Kept apart from the playground store: the
 * trace is not part of the PlaygroundConfig a link carries, and its worker is self-contained.
 * One worker per load; a new load or a cancel terminates the running one (the newest wins).
 */
import { createStore } from 'zustand/vanilla';
import { emptyKeyId, heldVirtualTimes, keySpecText, overBudget, streamsFromStart } from '../trace';
import type { SimTrace } from '../sim';
import type { HeldReplay, HeldTrace, KeySpec } from '../trace';
import { markPhase } from '../trace/phase';
import { setLoadedTrace } from './traceSim';
import type { TraceWorkerReply, TraceWorkerRequest, TraceWorkerWarm } from './traceProtocol';
import type { TraceOrigin } from './traceKeep';
import { WorkerSlot } from './workerSlot';

export type TraceLoadStatus =
  | { kind: 'idle' }
  | {
      kind: 'loading';
      fileName: string;
      bytes: number;
      total: number;
      requests: number;
      lines: number;
      malformed: number;
    }
  | { kind: 'error'; message: string };

export interface TraceLoadState {
  /** The last trace that loaded (kept while another loads or fails). */
  trace: HeldTrace | null;
  /** The file it came from, to re-key it without asking again. */
  file: File | null;
  /**
   * The file a link names for it: the one read, or for a kept copy (src/store/traceKeep.ts) the
   * file it was first read from. Null while none is loaded.
   */
  origin: TraceOrigin | null;
  /** The trace as the simulator replays it (null when none, or when it cannot be replayed). */
  replay: SimTrace | null;
  /** Why the loaded trace cannot be replayed (null when it can). */
  replayError: string | null;
  keySpec: KeySpec;
  status: TraceLoadStatus;
  /**
   * A log too large to hold (src/trace/budget.ts), read by streaming passes instead
   * (src/store/streamLoad.ts); the held trace, if any, stays. Null when none.
   */
  streamed: { file: File; keySpec: KeySpec } | null;
  /**
   * Makes the parsing worker of the next read now (and it, its range workers), before a file is
   * chosen: the read then starts on loaded code instead of waiting for it. Does nothing when one
   * is made already.
   */
  prewarm: () => void;
  /** Reads `file` (keyed by `keySpec`); `origin`: the file a link names for it (default `file`). */
  load: (file: File, keySpec?: KeySpec, origin?: TraceOrigin) => void;
  cancel: () => void;
  /** Parses the same file again with another key. */
  rekey: (keySpec: KeySpec) => void;
  /** Lets the trace go, and ends every worker of this store (one made ahead of a read too). */
  clear: () => void;
  /**
   * Holds `trace`, the span [from, to) epoch ms read out of the streamed `file`
   * (src/store/streamLoad.ts `loadSpan`), as a loaded trace: the stage, the dry run and the
   * statistics then run on it. The streamed file stays; a link names the file and the span.
   */
  holdSpan: (trace: HeldTrace, replay: HeldReplay, file: File, span: [number, number]) => void;
}

/** What a link names for `file` read with `keySpec`: its name, size and key (client: left out). */
function originOf(file: File, keySpec: KeySpec): TraceOrigin {
  const key = keySpecText(keySpec);
  return {
    name: file.name,
    bytes: file.size,
    ...(key === null || key === 'client' ? {} : { key }),
  };
}

/** The state of a held trace that arrived: it, its replay (set for the simulator), why not. */
function heldState(
  t: HeldTrace,
  held: HeldReplay,
  keySpec: KeySpec,
): Pick<TraceLoadState, 'trace' | 'replay' | 'replayError'> {
  const timeMs = heldVirtualTimes(t);
  const replay: SimTrace | null =
    held.ok && timeMs !== null
      ? {
          hash: held.hash,
          timeMs,
          // Time 0 on the log's clock: windows on the clock are placed from it.
          originMs: t.baseMs,
          keyId: t.keyId,
          keys: t.keys,
          // The empty key found once here: runs compare ids (SimTrace.emptyKeyId).
          emptyKeyId: emptyKeyId({ keys: t.keys, keySpec }),
          // Their addresses, for a lane that keys them so (Kong).
          ...(t.emptyClients === undefined ? {} : { emptyClients: t.emptyClients }),
        }
      : null;
  setLoadedTrace(replay);
  return {
    trace: t,
    replay,
    replayError: held.ok
      ? timeMs === null
        ? 'The trace cannot be replayed.'
        : null
      : held.message,
  };
}

const sameFile = (file: File, origin: TraceOrigin): boolean =>
  file.name === origin.name && file.size === origin.bytes;

/** How the page makes a parsing worker (tests may pass their own). */
export type WorkerFactory = () => Worker;

const defaultFactory: WorkerFactory = () =>
  new Worker(new URL('./trace.worker.ts', import.meta.url), { type: 'module' });

export function createTraceLoadStore(makeWorker: WorkerFactory = defaultFactory) {
  // The worker `prewarm` made, taken by the next read (null when none waits).
  let spare: Worker | null = null;
  const slot = new WorkerSlot(() => {
    const w = spare ?? makeWorker();
    spare = null;
    return w;
  });
  const stop = (): void => slot.stop();
  // A log read by streaming passes has no use for the held read's parsing workers: the warm one
  // (and its range workers) is let go, so its memory does not sit beside the passes' workers.
  const dropSpare = (): void => {
    spare?.terminate();
    spare = null;
  };
  return createStore<TraceLoadState>()((set, get) => ({
    trace: null,
    file: null,
    origin: null,
    replay: null,
    replayError: null,
    keySpec: [{ kind: 'client' }],
    status: { kind: 'idle' },
    streamed: null,
    prewarm: () => {
      if (spare !== null || get().streamed !== null) return;
      spare = makeWorker();
      const warm: TraceWorkerWarm = { type: 'warm' };
      spare.postMessage(warm);
    },
    load: (file, keySpec = get().keySpec, origin = originOf(file, keySpec)) => {
      if (streamsFromStart(file.size)) {
        slot.cancel();
        dropSpare();
        set({ keySpec, streamed: { file, keySpec }, status: { kind: 'idle' } });
        return;
      }
      set({
        keySpec,
        status: {
          kind: 'loading',
          fileName: file.name,
          bytes: 0,
          total: file.size,
          requests: 0,
          lines: 0,
          malformed: 0,
        },
      });
      const { worker: w, gen: mine } = slot.start();
      w.onmessage = (e: MessageEvent<TraceWorkerReply>) => {
        const msg = e.data;
        if (msg.gen !== mine || !slot.current(mine)) return;
        if (msg.type === 'progress') {
          set({
            status: {
              kind: 'loading',
              fileName: file.name,
              bytes: msg.bytes,
              total: msg.total,
              requests: msg.requests,
              lines: msg.lines,
              malformed: msg.malformed,
            },
          });
        } else if (msg.type === 'done') {
          markPhase('page: trace came');
          stop();
          set({
            ...heldState(msg.trace, msg.replay, keySpec),
            file,
            origin,
            keySpec,
            status: { kind: 'idle' },
            streamed: null,
          });
          markPhase('page: trace set');
        } else if (overBudget(msg.message)) {
          // More requests than the page holds: read it by streaming passes instead.
          stop();
          dropSpare();
          set({ streamed: { file, keySpec }, status: { kind: 'idle' } });
        } else {
          stop();
          set({ status: { kind: 'error', message: msg.message } });
        }
      };
      w.onerror = (e) => {
        if (!slot.current(mine)) return;
        stop();
        set({ status: { kind: 'error', message: `The parser stopped: ${e.message}` } });
      };
      const req: TraceWorkerRequest = { gen: mine, file, options: { keySpec } };
      w.postMessage(req);
    },
    cancel: () => {
      slot.cancel();
      set({ status: { kind: 'idle' } });
    },
    rekey: (keySpec) => {
      const { file: held, origin, streamed } = get();
      const f = streamed?.file ?? held;
      // A kept copy keeps naming the file (and key) it was first read from; a file read here is
      // named with its new key.
      const kept =
        streamed === null && held !== null && origin !== null && !sameFile(held, origin)
          ? origin
          : undefined;
      if (f) get().load(f, keySpec, kept);
      else set({ keySpec });
    },
    holdSpan: (trace, replay, file, [spanFromMs, spanToMs]) => {
      set({
        ...heldState(trace, replay, trace.keySpec),
        // Re-keying reads the streamed file again; a link names that file and the span.
        file: null,
        origin: { ...originOf(file, trace.keySpec), spanFromMs, spanToMs },
      });
    },
    clear: () => {
      slot.cancel();
      // A worker made ahead of a read that never came ends too (it and its range workers).
      spare?.terminate();
      spare = null;
      setLoadedTrace(null);
      set({
        trace: null,
        file: null,
        origin: null,
        replay: null,
        replayError: null,
        status: { kind: 'idle' },
        streamed: null,
      });
    },
  }));
}

export type TraceLoadStore = ReturnType<typeof createTraceLoadStore>;
