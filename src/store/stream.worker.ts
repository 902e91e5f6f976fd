/**
 * Runs streaming passes over a log too large to hold (src/trace/stream.ts, streamSweep.ts): the
 * file is read in segments by range workers (traceRange.worker.ts, as many as the machine has
 * cores) or, for gzip and formats read whole, as one stream here; each request is counted and
 * decided as it comes out of the reorder window. Posts the running figures at most every 100 ms,
 * then the result. After a statistics pass the worker keeps its key volumes (per-key state, as the
 * pass held) for a sweep over the same file. Terminating this worker stops the pass and the range
 * workers it started.
 */
import {
  BUDGET_REQUESTS,
  StreamSpanPass,
  holdTrace,
  StreamPass,
  StreamSweepPass,
  TraceError,
  belowByName,
  streamRead,
  sweepCellsPerPass,
} from '../trace';
import type { KeySpec, RangeReader, StreamingPass, TracePart } from '../trace';
import type { RangeReply, RangeRequest } from './traceProtocol';
import type {
  StreamSpanReply,
  StreamSpanRequest,
  StreamReply,
  StreamRequest,
  StreamSweepReply,
  StreamSweepRequest,
} from './streamProtocol';

const PROGRESS_EVERY_MS = 100;
/** Range workers at most. */
const MAX_READERS = 8;
/** Bytes of limiter state the sweep's cells hold at once; more cells take more passes. */
const SWEEP_STATE_BYTES = 64 * 1024 * 1024;

function post(msg: StreamReply | StreamSweepReply | StreamSpanReply): void {
  (self as unknown as Worker).postMessage(msg);
}

/** Reads one range of `file` in a worker of its own; the worker ends with its part. */
const rangeReaderOf =
  (file: File): RangeReader =>
  (start, end, options) =>
    new Promise<TracePart>((resolve, reject) => {
      const w = new Worker(new URL('./traceRange.worker.ts', import.meta.url), { type: 'module' });
      w.onmessage = (e: MessageEvent<RangeReply>) => {
        const msg = e.data;
        if (msg.type === 'progress') return;
        w.terminate();
        if (msg.type === 'part') resolve(msg.part);
        else reject(new TraceError(msg.message));
      };
      w.onerror = (e) => {
        w.terminate();
        reject(new Error(e.message));
      };
      const r: RangeRequest = { file, start, end, options };
      w.postMessage(r);
    });

/** One read of `file` into `pass`, calling `progress` at most every PROGRESS_EVERY_MS. */
function read<R>(
  file: File,
  keySpec: KeySpec,
  pass: StreamingPass<R>,
  progress: (bytes: number) => void,
): Promise<R> {
  let last = 0;
  return streamRead(
    file,
    pass,
    { keySpec },
    {
      parallel: Math.min(MAX_READERS, navigator.hardwareConcurrency || 1),
      readRange: rangeReaderOf(file),
      progress: (bytes) => {
        const now = performance.now();
        if (now - last < PROGRESS_EVERY_MS) return;
        last = now;
        progress(bytes);
      },
    },
  );
}

/** The key volumes of the last statistics pass this worker finished, and what it read. */
let volumes: { of: string; keys: readonly string[]; counts: Float64Array } | null = null;
const fileOf = (file: File, keySpec: KeySpec): string =>
  JSON.stringify([file.name, file.size, file.lastModified, keySpec]);

async function run(req: StreamRequest): Promise<void> {
  const { file } = req;
  volumes = null;
  const pass = new StreamPass(file.name, req.keySpec, req.configs, req.baseline);
  const result = await read(file, req.keySpec, pass, (bytes) =>
    post({ type: 'progress', gen: req.gen, bytes, total: file.size, figures: pass.figures() }),
  );
  volumes = { of: fileOf(file, req.keySpec), ...pass.keyVolumes() };
  post({ type: 'done', gen: req.gen, result });
}

async function sweep(req: StreamSweepRequest): Promise<void> {
  const { file, gen, keySpec, configs } = req;
  const of = fileOf(file, keySpec);
  if (volumes?.of !== of) {
    const counting = new StreamPass(file.name, keySpec, []);
    await read(file, keySpec, counting, (bytes) =>
      post({
        type: 'sweep-progress',
        gen,
        phase: 'count',
        pass: 0,
        passes: 0,
        bytes,
        total: file.size,
        figures: { requests: counting.figures().requests, outsideWindow: 0 },
      }),
    );
    volumes = { of, ...counting.keyVolumes() };
  }
  const { keys, counts } = volumes;
  const below = belowByName(keys, counts);
  // Cells per pass: as many as their per-key state fits SWEEP_STATE_BYTES.
  const groups: number[] = [];
  for (let at = 0; at < configs.length;) {
    const n = sweepCellsPerPass(configs.slice(at), keys.length, SWEEP_STATE_BYTES);
    groups.push(n);
    at += n;
  }
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
  post({ type: 'sweep-done', gen, requests, outsideWindow: outside, passes: groups.length });
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
