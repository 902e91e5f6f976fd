/**
 * Runs streaming passes over a log too large to hold (src/trace/stream.ts, streamSweep.ts): the
 * file is read in segments by range workers (traceRange.worker.ts, as many as the machine has
 * cores) or, for gzip and formats read whole, as one stream here; each request is counted and
 * decided as it comes out of the reorder window. Posts the running figures at most every 100 ms,
 * then the result. A statistics pass hands the page its key volumes and the compact copy of the
 * requests it wrote, and the page ends the worker: a sweep then runs in a new worker, given them,
 * not in one still holding the pass's garbage (tens of MB of heap and of buffers the browser made,
 * freed only at a collection that an idle worker may never make). Terminating this worker stops
 * the pass and the range workers it started.
 */
import type { AlgorithmConfig } from '../core';
import {
  BUDGET_REQUESTS,
  BlobSink,
  StreamSpanPass,
  holdTrace,
  columnBuffers,
  partColumns,
  StreamPass,
  StreamSweepPass,
  TraceError,
  belowByName,
  belowP99OfCounts,
  emptyKeyName,
  keysByAddress,
  streamRead,
  sweepPasses,
} from '../trace';
import type {
  KeySpec,
  KeyVolumes,
  PartColumns,
  RangeReader,
  RequestSink,
  StreamAddressing,
  StreamEmptyKey,
  StreamingPass,
  TracePart,
} from '../trace';
import { readBytes } from './readBytes';
import type { RangeReply, RangeRequest } from './traceProtocol';
import type {
  StreamCopy,
  StreamKept,
  StreamSpanReply,
  StreamSpanRequest,
  StreamReply,
  StreamRequest,
  StreamSweepReply,
  StreamSweepRequest,
  SweepCellsReply,
  SweepCellsRequest,
} from './streamProtocol';

const PROGRESS_EVERY_MS = 100;
/** Range workers at most. */
const MAX_READERS = 8;
/**
 * Bytes of limiter state the sweep's cells hold at once (over all its workers); more cells take
 * more passes. A further pass over the compact copy costs little (the cells' time is the kernels'),
 * and a cell worker's next pass takes the arrays the last one let go (ArrayRecycler), so a smaller
 * budget is memory the page does not hold while the ended statistics pass's pages are still taken.
 */
const SWEEP_STATE_BYTES = 32 * 1024 * 1024;

function post(msg: StreamReply | StreamSweepReply | StreamSpanReply): void {
  (self as unknown as Worker).postMessage(msg);
}

/**
 * Range workers kept for one read of the file: each reads one range at a time and then the next, so
 * a read of thousands of segments starts `size` workers, not one per segment, and each parses with
 * the code its last range made hot. A worker that failed is let go; the next range gets a new one.
 */
class RangePool {
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private readonly waiting: ((w: Worker) => void)[] = [];
  /**
   * Columns of parts merged already, given back to be filled by the next ranges (at most one per
   * range in flight): the parts' arrays go round between this worker and the range workers instead
   * of each range making new ones and this worker holding the old ones until a collection.
   */
  private readonly spare: PartColumns[] = [];

  constructor(
    private readonly file: File,
    private readonly size: number,
  ) {}

  private take(): Promise<Worker> {
    const w = this.idle.pop();
    if (w !== undefined) return Promise.resolve(w);
    if (this.all.size < this.size) {
      const made = new Worker(new URL('./traceRange.worker.ts', import.meta.url), {
        type: 'module',
      });
      this.all.add(made);
      return Promise.resolve(made);
    }
    return new Promise((r) => this.waiting.push(r));
  }

  private give(w: Worker): void {
    const next = this.waiting.shift();
    if (next !== undefined) next(w);
    else this.idle.push(w);
  }

  private drop(w: Worker): void {
    w.terminate();
    this.all.delete(w);
    // A range waiting for a worker gets a new one.
    const next = this.waiting.shift();
    if (next !== undefined) void this.take().then(next);
  }

  /** Reads bytes [start, end) of the file as one part in one of the pool's workers. */
  readonly read: RangeReader = async (start, end, options) => {
    const w = await this.take();
    return new Promise<TracePart>((resolve, reject) => {
      w.onmessage = (e: MessageEvent<RangeReply>) => {
        const msg = e.data;
        // No chunks come: this reader never asks for them (the part holds every request); nor
        // statistics, which it never asks for either.
        if (msg.type === 'progress' || msg.type === 'chunk' || msg.type === 'stats') return;
        if (msg.type === 'part') {
          this.give(w);
          resolve(msg.part);
        } else {
          this.drop(w);
          reject(new TraceError(msg.message));
        }
      };
      w.onerror = (e) => {
        this.drop(w);
        reject(new Error(e.message));
      };
      const columns = this.spare.pop() ?? null;
      const r: RangeRequest = { file: this.file, start, end, options, columns };
      w.postMessage(r, columnBuffers(columns));
    });
  };

  /** Takes a merged part's columns back for a later range (streamRead's `recycle`). */
  readonly recycle = (part: TracePart): void => {
    const columns = partColumns(part);
    if (columns !== null && this.spare.length <= this.size) this.spare.push(columns);
  };

  /** Ends every worker of the pool. */
  close(): void {
    for (const w of this.all) w.terminate();
    this.all.clear();
    this.idle.length = 0;
  }
}

/** One read of `file` into `pass`, calling `progress` at most every PROGRESS_EVERY_MS. */
async function read<R>(
  file: File,
  keySpec: KeySpec,
  pass: StreamingPass<R>,
  progress: (bytes: number) => void,
): Promise<R> {
  let last = 0;
  const parallel = Math.min(MAX_READERS, navigator.hardwareConcurrency || 1);
  const pool = new RangePool(file, parallel);
  try {
    return await streamRead(
      file,
      pass,
      { keySpec },
      {
        parallel,
        readRange: pool.read,
        recycle: pool.recycle,
        // A file read as one stream (gzip, HAR, CSV, a small log) fills one reused buffer.
        readAll: (_, onBytes) => readBytes(file, onBytes),
        progress: (bytes) => {
          const now = performance.now();
          if (now - last < PROGRESS_EVERY_MS) return;
          last = now;
          progress(bytes);
        },
      },
    );
  } finally {
    pool.close();
  }
}

/** Names of the recorded request files in the origin's private file system. */
const RECORD_PREFIX = 'sweep-requests-';

/** What a dedicated worker may do with a private file (the WebWorker lib's types, not DOM's). */
interface SyncFile {
  createSyncAccessHandle(): Promise<{
    write(bytes: Uint8Array, options: { at: number }): number;
    flush(): void;
    close(): void;
  }>;
}

/** A sink whose bytes end up as a Blob, and how to let go of it. */
interface OpenSink {
  sink: RequestSink;
  source: 'opfs' | 'blob';
  /** The Web Lock held while the private file is in use (null in the blob store). */
  lock: string | null;
  done: () => Promise<Blob>;
  remove: () => Promise<void>;
}

/**
 * A file in the origin's private file system written through a sync access handle (dedicated
 * workers have it), held under a Web Lock of its name while this worker may read it; leftovers of
 * workers that were stopped (their locks gone) are removed first. Null when the browser has none.
 */
async function opfsSink(): Promise<OpenSink | null> {
  if (typeof navigator.storage?.getDirectory !== 'function' || navigator.locks === undefined) {
    return null;
  }
  try {
    const dir = await navigator.storage.getDirectory();
    // A lock asked for and not yet given counts as held: the page may be taking one over.
    const locks = await navigator.locks.query();
    const held = new Set([...(locks.held ?? []), ...(locks.pending ?? [])].map((l) => l.name));
    const stale: string[] = [];
    for await (const name of (dir as unknown as { keys(): AsyncIterable<string> }).keys()) {
      if (name.startsWith(RECORD_PREFIX) && !held.has(name)) stale.push(name);
    }
    for (const name of stale) await dir.removeEntry(name).catch(() => undefined);
    const name = `${RECORD_PREFIX}${crypto.randomUUID()}`;
    let release = (): void => undefined;
    await new Promise<void>((locked) => {
      navigator.locks
        .request(name, () => {
          locked();
          return new Promise<void>((r) => (release = r));
        })
        // Taken over by the page (a steal rejects the request): the page keeps the file now.
        .catch(() => undefined);
    });
    const fh = await dir.getFileHandle(name, { create: true });
    const handle = await (fh as unknown as SyncFile).createSyncAccessHandle();
    let at = 0;
    let open = true;
    const close = (): void => {
      if (!open) return;
      open = false;
      handle.close();
    };
    return {
      source: 'opfs',
      lock: name,
      sink: {
        write: (bytes) => {
          const wrote = handle.write(bytes, { at });
          if (wrote !== bytes.length) throw new Error('The private file system is full.');
          at += wrote;
        },
      },
      done: async () => {
        handle.flush();
        close();
        return fh.getFile();
      },
      remove: async () => {
        close();
        await dir.removeEntry(name).catch(() => undefined);
        release();
      },
    };
  } catch {
    return null;
  }
}

/** The OPFS sink, or the browser's blob store when the origin has no private file system. */
async function openSink(): Promise<OpenSink> {
  const opfs = await opfsSink();
  if (opfs !== null) return opfs;
  const sink = new BlobSink();
  return {
    source: 'blob',
    lock: null,
    sink,
    done: () => Promise.resolve(sink.blob()),
    remove: () => Promise.resolve(),
  };
}

/** A finished read's copy as the page takes it (the sink's Blob, its count and its lock). */
async function copyOf(
  open: OpenSink,
  count: number,
  outside: number,
  originMs: number,
): Promise<StreamCopy> {
  return {
    blob: await open.done(),
    count,
    outside,
    originMs,
    source: open.source,
    lock: open.lock,
  };
}

/**
 * The statistics pass. It also writes every request compactly (as the sweep's read does), so a
 * sweep of the same file that follows decides its cells over that copy without reading the text.
 * The copy goes to the page with the key volumes; this worker no longer removes it.
 */
async function run(req: StreamRequest): Promise<void> {
  const { file } = req;
  const open = await openSink();
  let handed = false;
  try {
    const pass = new StreamPass(
      file.name,
      req.keySpec,
      req.configs,
      req.baseline,
      open.sink,
      req.emptyOutcome,
    );
    const result = await read(file, req.keySpec, pass, (bytes) =>
      post({ type: 'progress', gen: req.gen, bytes, total: file.size, figures: pass.figures() }),
    );
    const volumes = pass.keyVolumes();
    const written = pass.recorded();
    let copy: StreamCopy | null = null;
    if (written.ok) {
      copy = await copyOf(open, written.count, result.outsideWindow, written.originMs);
    } else await open.remove();
    handed = true;
    post({ type: 'done', gen: req.gen, result, kept: { volumes, copy } });
  } catch (err) {
    if (!handed) await open.remove();
    throw err;
  }
}

/** Workers that decide a sweep's cells at once, at most (one per core). */
const SWEEP_CELL_WORKERS_MAX = 4;

/** The cells over the recorded requests, shared out among workers (every `w`-th cell to each). */
function sweepCells(
  req: StreamSweepRequest,
  volumes: KeyVolumes,
  copy: StreamCopy,
  below: Uint8Array,
  emptyKey: StreamEmptyKey | null,
  addressing: StreamAddressing | null,
): Promise<number> {
  const { gen, configs } = req;
  const workers = Math.max(
    1,
    Math.min(SWEEP_CELL_WORKERS_MAX, navigator.hardwareConcurrency || 1, configs.length),
  );
  const total = copy.count * configs.length;
  const decided = new Array<number>(workers).fill(0);
  const passOf = new Array<[number, number]>(workers).fill([0, 0]);
  let last = 0;
  const progress = (force: boolean): void => {
    const now = performance.now();
    if (!force && now - last < PROGRESS_EVERY_MS) return;
    last = now;
    post({
      type: 'sweep-progress',
      gen,
      phase: 'cells',
      pass: passOf.reduce((a, [p]) => a + p, 0),
      passes: passOf.reduce((a, [, n]) => a + n, 0),
      bytes: decided.reduce((a, b) => a + b, 0),
      total,
      figures: { requests: copy.count, outsideWindow: copy.outside },
    });
  };
  const started: Worker[] = [];
  const one = (w: number): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const indexes: number[] = [];
      for (let i = w; i < configs.length; i += workers) indexes.push(i);
      const worker = new Worker(new URL('./streamSweepCells.worker.ts', import.meta.url), {
        type: 'module',
      });
      started.push(worker);
      worker.onmessage = (e: MessageEvent<SweepCellsReply>) => {
        const msg = e.data;
        if (msg.type === 'progress') {
          decided[w] = msg.decided;
          progress(false);
        } else if (msg.type === 'cells') {
          passOf[w] = [msg.pass, msg.passes];
          post({ type: 'sweep-cells', gen, cells: msg.cells });
        } else if (msg.type === 'done') {
          resolve();
        } else {
          reject(new Error(msg.message));
        }
      };
      worker.onerror = (e) => reject(new Error(e.message));
      const r: SweepCellsRequest = {
        blob: copy.blob,
        count: copy.count,
        originMs: copy.originMs,
        keys: volumes.keys,
        counts: volumes.counts,
        below,
        emptyKey,
        addressing,
        configs: indexes.map((i) => configs[i] as AlgorithmConfig),
        indexes,
        windowMs: req.windowMs,
        budgetBytes: SWEEP_STATE_BYTES / workers,
      };
      worker.postMessage(r);
    });
  return Promise.all(Array.from({ length: workers }, (_, w) => one(w)))
    .then(() => {
      progress(true);
      return workers;
    })
    .finally(() => {
      for (const w of started) w.terminate();
    });
}

/**
 * The sweep: one read of the file counts each key's requests and writes the requests compactly
 * (8 bytes each) to the origin's private file system or the blob store; workers (one per core)
 * then decide the cells over that copy. Were the copy to fail, the cells are decided in passes
 * over the file's text as before, each holding the per-key state the budget allows.
 */
async function sweep(req: StreamSweepRequest): Promise<void> {
  const { file, gen, keySpec, configs } = req;
  const empty = emptyKeyName(keySpec);
  const outcome = req.emptyOutcome;
  const emptyKey: StreamEmptyKey | null =
    outcome === null || outcome === 'client' || empty === null ? null : { name: empty, outcome };
  // Empty-key requests read with an address: the empty key's, or (Kong) their address's.
  const addressing = (v: KeyVolumes): StreamAddressing | null =>
    empty === null
      ? null
      : { emptyName: empty, byAddress: outcome === 'client' ? keysByAddress(v, empty) : null };
  const counting = (bytes: number, requests: number): void =>
    post({
      type: 'sweep-progress',
      gen,
      phase: 'count',
      pass: 0,
      passes: 0,
      bytes,
      total: file.size,
      figures: { requests, outsideWindow: 0 },
    });
  // Given by the page (what the statistics pass or the last sweep left), or read here once.
  let volumes: KeyVolumes | null = req.kept?.volumes ?? null;
  let copy: StreamCopy | null = req.kept?.copy ?? null;
  let own: StreamKept | null = null;
  if (copy === null) {
    let open: OpenSink | null = null;
    try {
      open = await openSink();
      const pass = new StreamSweepPass(file.name, keySpec, [], req.windowMs, () => 0, {
        sink: open.sink,
      });
      const r = await read(file, keySpec, pass, (bytes) =>
        counting(bytes, pass.figures().requests),
      );
      volumes = pass.keyVolumes();
      copy = await copyOf(open, r.requests, r.outsideWindow, pass.originMs);
      own = { volumes, copy };
    } catch (err) {
      await open?.remove();
      // A read that failed is the file's fault: said as it is. A copy that failed falls back.
      if (err instanceof TraceError) throw err;
    }
  }
  if (copy !== null && volumes !== null) {
    const how = addressing(volumes);
    const mask = how?.byAddress?.below ?? belowP99OfCounts(Array.from(volumes.counts));
    const workers = await sweepCells(req, volumes, copy, mask, emptyKey, how);
    post({
      type: 'sweep-done',
      gen,
      requests: copy.count,
      outsideWindow: copy.outside,
      passes: 1,
      source: copy.source,
      workers,
      kept: own,
    });
    return;
  }
  // Nothing recorded: passes over the text, the key volumes from the last pass that read it.
  if (volumes === null) {
    const pass = new StreamPass(file.name, keySpec, []);
    await read(file, keySpec, pass, (bytes) => counting(bytes, pass.figures().requests));
    volumes = pass.keyVolumes();
  }
  const { keys, counts } = volumes;
  const below = belowByName(keys, counts);
  const byAddress = addressing(volumes)?.byAddress ?? null;
  // Cells per pass: as many as their per-key state fits SWEEP_STATE_BYTES (arrays that double).
  const groups = sweepPasses(configs, byAddress?.names.length ?? keys.length, SWEEP_STATE_BYTES, 2);
  let at = 0;
  let requests = 0;
  let outside = 0;
  for (let g = 0; g < groups.length; g += 1) {
    const n = groups[g] as number;
    const pass = new StreamSweepPass(
      file.name,
      keySpec,
      configs.slice(at, at + n),
      req.windowMs,
      below,
      { emptyKey, byAddress },
    );
    const result = await read(file, keySpec, pass, (bytes) =>
      post({
        type: 'sweep-progress',
        gen,
        phase: 'sweep',
        pass: g + 1,
        passes: groups.length,
        bytes,
        total: file.size,
        figures: pass.figures(),
      }),
    );
    post({
      type: 'sweep-cells',
      gen,
      cells: result.cells.map((c, i) => ({
        index: at + i,
        result: c.ok ? c.result : null,
        message: c.ok ? null : c.message,
      })),
    });
    requests = result.requests;
    outside = Math.max(outside, result.outsideWindow);
    at += n;
  }
  post({
    type: 'sweep-done',
    gen,
    requests,
    outsideWindow: outside,
    passes: groups.length,
    source: 'text',
    workers: 1,
    // The volumes read here, for the next sweep of the file (no copy could be kept).
    kept: req.kept === null ? { volumes, copy: null } : null,
  });
}

/** Reads the span's requests into a held trace (at most BUDGET_REQUESTS; a longer span is cut). */
async function span(req: StreamSpanRequest): Promise<void> {
  const { file, gen } = req;
  const pass = new StreamSpanPass(file.name, req.keySpec, req.fromMs, req.toMs, BUDGET_REQUESTS);
  const r = await read(file, req.keySpec, pass, (bytes) =>
    post({ type: 'span-progress', gen, bytes, total: file.size, ...pass.figures() }),
  );
  if (r.trace.count === 0) {
    const iso = (ms: number) => new Date(ms).toISOString();
    throw new TraceError(
      `No request of the log arrived between ${iso(req.fromMs)} and ${iso(req.toMs)}: pick a span on the overview.`,
    );
  }
  const { held, replay } = holdTrace(r.trace);
  const transfer: Transferable[] = [held.times.buffer, held.keyId.buffer, held.status.buffer];
  if (held.cost !== null) transfer.push(held.cost.buffer);
  (self as unknown as Worker).postMessage(
    { type: 'span-done', gen, trace: held, replay, cutAtMs: r.cutAtMs } satisfies StreamSpanReply,
    transfer,
  );
}

const messageOf = (err: unknown, file: File): string =>
  err instanceof TraceError
    ? err.message
    : `Could not read ${file.name}: ${err instanceof Error ? err.message : String(err)}`;

self.onmessage = (e: MessageEvent<StreamRequest | StreamSweepRequest | StreamSpanRequest>) => {
  const req = e.data;
  if (req.type === 'span') {
    span(req).catch((err: unknown) => {
      post({ type: 'span-error', gen: req.gen, message: messageOf(err, req.file) });
    });
    return;
  }
  if (req.type === 'sweep') {
    sweep(req).catch((err: unknown) => {
      post({ type: 'sweep-error', gen: req.gen, message: messageOf(err, req.file) });
    });
    return;
  }
  run(req).catch((err: unknown) => {
    post({ type: 'error', gen: req.gen, message: messageOf(err, req.file) });
  });
};
