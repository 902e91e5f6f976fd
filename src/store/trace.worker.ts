/**
 * Parses an access log off the main thread: reads the File as a stream (it never leaves the
 * browser) and posts progress at most every 100 ms, then the finished trace with its typed arrays
 * transferred. Cancelling terminates the worker (and the range workers it started).
 *
 * A large plain line log (nginx, ALB, JSON lines; not gzip, which can only be read from its start)
 * is split into as many byte ranges as the machine has cores, each ending just after a newline,
 * read by range workers at once (traceRange.worker.ts) with the format decided from the file's
 * start, and merged in file order (src/trace `mergeParts`): the same trace as one stream reading
 * the whole file. Anything else is read by one stream here.
 */
import {
  TraceError,
  TraceStream,
  HEAD_BYTES,
  checkFileSize,
  holdTrace,
  mergeParts,
  rangeHead,
} from '../trace';
import type { BuiltTrace, ParseOptions, TracePart } from '../trace';
import { quoteText } from '../core';
import { isParquetFile } from '../trace/parquetDetect';
import { readParquetFile } from './traceParquet';
import type {
  RangeReply,
  RangeRequest,
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

/** Byte offsets splitting `file` into about `n` ranges, each ending just after a newline. */
async function lineBoundaries(file: File, n: number): Promise<number[]> {
  const cuts = [0];
  for (let k = 1; k < n; k += 1) {
    const at = Math.max(Math.floor((file.size * k) / n), (cuts[cuts.length - 1] as number) + 1);
    // A line is at most 1 MB (longer ones are skipped whole by the stream that meets them).
    const probe = new Uint8Array(await file.slice(at, at + 2 * 1024 * 1024).arrayBuffer());
    const nl = probe.indexOf(10);
    if (nl < 0) continue;
    const cut = at + nl + 1;
    if (cut < file.size && cut > (cuts[cuts.length - 1] as number)) cuts.push(cut);
  }
  cuts.push(file.size);
  return cuts;
}

/** The text the format is decided from, or null when the file must be read by one stream. */
async function parallelHead(file: File, opts: ParseOptions): Promise<string | null> {
  if (file.size < PARALLEL_MIN_BYTES || rangeCount() < 2) return null;
  return rangeHead(new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer()), opts);
}

async function readInRanges(
  req: TraceWorkerRequest,
  opts: ParseOptions,
  head: string,
): Promise<BuiltTrace> {
  const { file } = req;
  const cuts = await lineBoundaries(file, rangeCount());
  const options: ParseOptions = { ...opts, detectFrom: head };
  const sum = { bytes: 0, requests: 0, lines: 0, malformed: 0 };
  let last = 0;
  const workers: Worker[] = [];
  try {
    const parts = await Promise.all(
      cuts.slice(0, -1).map(
        (start, i) =>
          new Promise<TracePart>((resolve, reject) => {
            const w = rangeWorker();
            workers.push(w);
            w.onmessage = (e: MessageEvent<RangeReply>) => {
              const msg = e.data;
              if (msg.type === 'progress') {
                sum.bytes += msg.bytes;
                sum.requests += msg.requests;
                sum.lines += msg.lines;
                sum.malformed += msg.malformed;
                const now = performance.now();
                if (now - last >= PROGRESS_EVERY_MS) {
                  last = now;
                  post({ type: 'progress', gen: req.gen, total: file.size, ...sum });
                }
              } else if (msg.type === 'part') resolve(msg.part);
              else reject(new TraceError(msg.message));
            };
            w.onerror = (e) => reject(new Error(e.message));
            const r: RangeRequest = { file, start, end: cuts[i + 1] as number, options };
            w.postMessage(r);
          }),
      ),
    );
    return mergeParts(parts, options);
  } finally {
    for (const w of workers) w.terminate();
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
  const { file, options } = req;
  const opts: ParseOptions = { ...options, name: file.name };
  checkFileSize(file.name, file.size);
  // Parquet (by its first bytes or its name) goes to its own reader, loaded when needed.
  if (isParquetFile(file.name, new Uint8Array(await file.slice(0, 4).arrayBuffer()))) {
    const built = await readParquetFile(file, opts, (p) =>
      post({ type: 'progress', gen: req.gen, ...p }),
    );
    return done(req, built);
  }
  const head = await parallelHead(file, opts);
  const built = head !== null ? await readInRanges(req, opts, head) : await readAsOne(req, opts);
  done(req, built);
}

function done(req: TraceWorkerRequest, built: BuiltTrace): void {
  // Times, fingerprint and the panel's statistics here, off the main thread; the arrays the page
  // keeps are transferred, not copied.
  const { held, replay } = holdTrace(built);
  const transfer: Transferable[] = [held.times.buffer, held.keyId.buffer, held.status.buffer];
  if (held.cost !== null) transfer.push(held.cost.buffer);
  post({ type: 'done', gen: req.gen, trace: held, replay }, transfer);
}

self.onmessage = (e: MessageEvent<TraceWorkerRequest | TraceWorkerWarm>) => {
  const req = e.data;
  if ('type' in req) {
    // Made ahead of a read: start the range workers now (a machine of one core reads here).
    if (started.length === 0 && rangeCount() >= 2) {
      const warm: RangeWarm = { type: 'warm' };
      started = Array.from({ length: rangeCount() }, () => {
        const w = newRangeWorker();
        w.postMessage(warm);
        return w;
      });
    }
    return;
  }
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
