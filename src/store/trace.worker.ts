/**
 * Parses an access log off the main thread: reads the File as a stream (it never leaves the
 * browser) and posts progress at most every 100 ms, then the finished trace with its typed arrays
 * transferred. Cancelling terminates the worker (and the range workers it started).
 *
 * A large plain line log (nginx, ALB, JSON lines; not gzip, which can only be read from its start)
 * is cut into byte ranges, each ending just after a newline, read by as many range workers as the
 * machine has cores (traceRange.worker.ts) with the format decided from the file's start, and
 * merged in file order as the parts come (src/trace/heldRanges.ts): the same trace as one stream
 * reading the whole file. Anything else is read by one stream here.
 */
import {
  TraceError,
  TraceStream,
  HEAD_BYTES,
  checkFileSize,
  holdTrace,
  columnBuffers,
  partColumns,
  rangeHead,
} from '../trace';
import type {
  BuiltTrace,
  HeldReplay,
  HeldTrace,
  ParseOptions,
  PartColumns,
  TraceChunk,
  TracePart,
  WindowStatsById,
} from '../trace';
import { readHeldInRanges } from '../trace/heldRanges';
import { holdTraceBeside } from '../trace/held';
import type { StatsBeside } from '../trace/held';
import { nextLineStart } from '../trace/streamRead';
import type { RangeReader } from '../trace/streamRead';
import { quoteText } from '../core';
import { markPhase } from '../trace/phase';
import { isParquetFile } from '../trace/parquetDetect';
import { readParquetFile } from './traceParquet';
import type {
  RangeReply,
  RangeRequest,
  RangeStatsRequest,
  RangeWarm,
  TraceWorkerReply,
  TraceWorkerRequest,
  TraceWorkerWarm,
} from './traceProtocol';

const PROGRESS_EVERY_MS = 100;
/** Files smaller than this are read by one stream (starting workers costs more than it saves). */
const PARALLEL_MIN_BYTES = 16 * 1024 * 1024;
/** Range workers at most (each holds its range's columns until they are merged). */
const MAX_RANGES = 8;
/**
 * Requests a range worker posts at a time while it reads (about 4 MB of a combined log): this
 * worker merges them as they come instead of all after the last range is read, and what is left
 * when the last range ends is at most about this many.
 */
const CHUNK_REQUESTS = 1 << 14;
/**
 * The first range's size against an even share: a little smaller, so its reader ends first and
 * this worker merges the next range's chunks (kept until then) on the core it leaves while the
 * other readers still read; what is left to merge when the last range ends is then small. Merged
 * in chunks, a request took about a twentieth of the time parsing it took (in the pinned Chromium
 * on a 247 MB combined log, phase marks of tests/bench/ingest.ts INGEST_PHASES, load 17: a second
 * range's kept chunks, 600,000 requests, merged in about 50 ms; its reader had taken about 0.95 s
 * to read them), so with 2 readers the first range is 47.5 % of the file: the second reader's extra
 * 5 % is about what the merge of its kept chunks takes.
 */
const FIRST_RANGE_SHARE = 0.95;

/** Range workers the machine's cores allow (1: the file is read by one stream here). */
const rangeCount = (): number => Math.min(MAX_RANGES, navigator.hardwareConcurrency || 1);

const newRangeWorker = (): Worker =>
  new Worker(new URL('./traceRange.worker.ts', import.meta.url), { type: 'module' });

/**
 * Range workers started ahead of the read (on a warm-up message, before a file is chosen): their
 * code is loaded by the time the file comes, instead of after. A read takes them in turn; one
 * this worker never uses ends with it (the page terminates a parsing worker after its one read).
 */
let started: Worker[] = [];

/** A started range worker, or a new one. */
function rangeWorker(): Worker {
  return started.shift() ?? newRangeWorker();
}

function post(msg: TraceWorkerReply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(msg, transfer);
}

/** Whether `file` is large enough to be read in ranges, and the machine has the cores for it. */
const inRanges = (file: File): boolean => file.size >= PARALLEL_MIN_BYTES && rangeCount() >= 2;

/** Bytes of the first range read in ranges (see FIRST_RANGE_SHARE). */
const firstRangeBytes = (file: File): number =>
  Math.ceil((file.size * FIRST_RANGE_SHARE) / rangeCount());

/**
 * The end of the first range (the line start after its share), read at once beside the file's
 * start: the ranges are then asked for as soon as the format is known, not one read later.
 */
interface FirstCut {
  at: number;
  end: Promise<number>;
}

/** A range worker and the replies it still owes, in the order its ranges were asked for. */
interface RangeSlot {
  worker: Worker;
  owed: {
    resolve: (part: TracePart) => void;
    reject: (e: Error) => void;
    onChunk: ((chunk: TraceChunk, bytesRead: number) => void) | undefined;
  }[];
  /** The statistics asked of it once its ranges are read (RangeStatsRequest), while owed. */
  stats: { resolve: (s: WindowStatsById) => void; reject: (e: Error) => void } | null;
}

/**
 * The range workers of one read. Each is asked for its next range while it still reads the one
 * before (a worker reads its ranges one after another, traceRange.worker.ts), so none waits for a
 * round trip through this worker (which may be merging a part) between two ranges; a range goes to
 * the worker owing the fewest. Columns of merged parts go back to be filled by later ranges.
 */
class RangeWorkers {
  private readonly slots: RangeSlot[] = [];
  private readonly spare: PartColumns[] = [];

  constructor(
    private readonly file: File,
    count: number,
    private readonly onProgress: (p: RangeReply & { type: 'progress' }) => void,
  ) {
    for (let i = 0; i < count; i += 1) {
      const slot: RangeSlot = { worker: rangeWorker(), owed: [], stats: null };
      slot.worker.onmessage = (e: MessageEvent<RangeReply>) => {
        const msg = e.data;
        if (msg.type === 'progress') {
          this.onProgress(msg);
          return;
        }
        if (msg.type === 'chunk') {
          slot.owed[0]?.onChunk?.(msg.chunk, msg.bytesRead);
          return;
        }
        if (msg.type === 'stats') {
          slot.stats?.resolve(msg.stats);
          slot.stats = null;
          return;
        }
        const owed = slot.owed.shift();
        if (owed === undefined) {
          // No range owed: the error is the statistics'.
          if (msg.type === 'error') slot.stats?.reject(new TraceError(msg.message));
          slot.stats = null;
          return;
        }
        if (msg.type === 'part') {
          markPhase('trace: part came');
          owed.resolve(msg.part);
        } else owed.reject(new TraceError(msg.message));
      };
      slot.worker.onerror = (e) => {
        for (const o of slot.owed.splice(0)) o.reject(new Error(e.message));
        slot.stats?.reject(new Error(e.message));
        slot.stats = null;
      };
      // A reply that cannot be read ends what is owed too (the statistics are then computed here).
      slot.worker.onmessageerror = () => {
        for (const o of slot.owed.splice(0))
          o.reject(new Error('A range reply could not be read.'));
        slot.stats?.reject(new Error('A range reply could not be read.'));
        slot.stats = null;
      };
      this.slots.push(slot);
    }
  }

  readonly read: RangeReader = (start, end, options, onChunk) =>
    new Promise<TracePart>((resolve, reject) => {
      let slot = this.slots[0] as RangeSlot;
      for (const s of this.slots) if (s.owed.length < slot.owed.length) slot = s;
      slot.owed.push({ resolve, reject, onChunk });
      const columns = this.spare.pop() ?? null;
      const r: RangeRequest = {
        file: this.file,
        start,
        end,
        options,
        columns,
        ...(onChunk !== undefined ? { chunkRequests: CHUNK_REQUESTS } : {}),
      };
      slot.worker.postMessage(r, columnBuffers(columns));
    });

  /**
   * The merged trace's per-window statistics, computed by a range worker (its ranges are read)
   * from a copy of `input` while this worker computes the fingerprint.
   */
  readonly stats: StatsBeside = (input, windowMs, top) =>
    new Promise<WindowStatsById>((resolve, reject) => {
      const slot = this.slots.find((s) => s.owed.length === 0 && s.stats === null);
      if (slot === undefined) {
        reject(new Error('No range worker is free.'));
        return;
      }
      slot.stats = { resolve, reject };
      const r: RangeStatsRequest = { type: 'stats', input, windowMs, top };
      slot.worker.postMessage(r);
    });

  /** Takes a merged part's columns back for a later range. */
  readonly recycle = (part: TracePart): void => {
    const columns = partColumns(part);
    if (columns !== null && this.spare.length < this.slots.length) this.spare.push(columns);
  };

  close(): void {
    for (const s of this.slots) s.worker.terminate();
    this.slots.length = 0;
  }
}

/** The page's form of a trace and its fingerprint (src/trace/held.ts). */
type Held = { held: HeldTrace; replay: HeldReplay };

async function readInRanges(
  req: TraceWorkerRequest,
  opts: ParseOptions,
  head: string,
  firstCut: FirstCut | null,
): Promise<Held> {
  const { file } = req;
  const options: ParseOptions = { ...opts, detectFrom: head };
  const sum = { bytes: 0, requests: 0, lines: 0, malformed: 0 };
  let last = 0;
  const workers = new RangeWorkers(file, rangeCount(), (msg) => {
    sum.bytes += msg.bytes;
    sum.requests += msg.requests;
    sum.lines += msg.lines;
    sum.malformed += msg.malformed;
    const now = performance.now();
    if (now - last >= PROGRESS_EVERY_MS) {
      last = now;
      post({ type: 'progress', gen: req.gen, total: file.size, ...sum });
    }
  });
  try {
    const built = await readHeldInRanges(file, options, {
      parallel: rangeCount(),
      readRange: workers.read,
      recycle: workers.recycle,
      firstBytes: firstRangeBytes(file),
      chunked: true,
      lineStart: (at) =>
        firstCut !== null && at === firstCut.at ? firstCut.end : nextLineStart(file, at),
    });
    markPhase('trace: merged');
    // Its ranges read, a range worker computes the statistics while this one the fingerprint.
    return await holdTraceBeside(built, workers.stats);
  } finally {
    workers.close();
  }
}

async function readAsOne(req: TraceWorkerRequest, opts: ParseOptions): Promise<BuiltTrace> {
  const { file } = req;
  const stream = new TraceStream(opts);
  const reader = file.stream().getReader();
  let last = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    try {
      stream.push(value);
    } catch (e) {
      // A cap or bad bytes: stop reading the file now (the page terminates this worker next).
      void reader.cancel();
      throw e;
    }
    const now = performance.now();
    if (now - last >= PROGRESS_EVERY_MS) {
      last = now;
      post({
        type: 'progress',
        gen: req.gen,
        bytes: stream.bytesIn,
        total: file.size,
        requests: stream.requests,
        lines: stream.lines,
        malformed: stream.malformed,
      });
    }
  }
  return stream.finish();
}

async function run(req: TraceWorkerRequest): Promise<void> {
  markPhase('trace: request');
  const { file, options } = req;
  const opts: ParseOptions = { ...options, name: file.name };
  checkFileSize(file.name, file.size);
  // A file read in ranges: where its first range ends is read beside its start.
  let firstCut: FirstCut | null = null;
  if (inRanges(file)) {
    const at = Math.min(file.size, firstRangeBytes(file));
    firstCut = { at, end: nextLineStart(file, at) };
    // A failed read surfaces where the cut is awaited; none goes unhandled meanwhile.
    firstCut.end.catch(() => {});
  }
  // The file's start, read once: Parquet's magic (by it or its name, Parquet goes to its own
  // reader, loaded when needed), else the text a line log's format is decided from.
  const start = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  if (isParquetFile(file.name, start)) {
    const built = await readParquetFile(file, opts, (p) =>
      post({ type: 'progress', gen: req.gen, ...p }),
    );
    return done(req, holdHere(built));
  }
  const head = inRanges(file) ? rangeHead(start, opts) : null;
  markPhase('trace: head');
  done(
    req,
    head !== null
      ? await readInRanges(req, opts, head, firstCut)
      : holdHere(await readAsOne(req, opts)),
  );
}

/** Times, fingerprint and the panel's statistics of a trace read here, all on this thread. */
function holdHere(built: BuiltTrace): Held {
  markPhase('trace: merged');
  return holdTrace(built);
}

function done(req: TraceWorkerRequest, { held, replay }: Held): void {
  // Times, fingerprint and the panel's statistics were computed off the main thread; the arrays
  // the page keeps are transferred, not copied.
  markPhase('trace: held');
  const transfer: Transferable[] = [held.times.buffer, held.keyId.buffer, held.status.buffer];
  if (held.cost !== null) transfer.push(held.cost.buffer);
  post({ type: 'done', gen: req.gen, trace: held, replay }, transfer);
  markPhase('trace: posted');
}

/** Starts the range workers now, unless started (a machine of one core reads here). */
function startRangeWorkers(): void {
  if (started.length > 0 || rangeCount() < 2) return;
  const warm: RangeWarm = { type: 'warm' };
  started = Array.from({ length: rangeCount() }, () => {
    const w = newRangeWorker();
    w.postMessage(warm);
    return w;
  });
}

self.onmessage = (e: MessageEvent<TraceWorkerRequest | TraceWorkerWarm>) => {
  const req = e.data;
  if ('type' in req) {
    // Made ahead of a read: start the range workers now.
    startRangeWorkers();
    return;
  }
  // A file large enough to be read in ranges: its range workers load their code while this one
  // looks at the file's start (Parquet? gzip? which format?), not after. Any it does not use end
  // with it.
  if (req.file.size >= PARALLEL_MIN_BYTES) startRangeWorkers();
  run(req).catch((err: unknown) => {
    // A cap throws synchronously from the decoder, so this is the moment it was passed.
    const stoppedAt = performance.timeOrigin + performance.now();
    const message =
      err instanceof TraceError
        ? err.message
        : `Could not read ${quoteText(req.file.name)}: ${err instanceof Error ? err.message : String(err)}`;
    post({ type: 'error', gen: req.gen, message, stoppedAt });
  });
};
