/**
 * Runs a streaming pass over a log too large to hold (src/trace/stream.ts): the file is read in
 * segments by range workers (traceRange.worker.ts, as many as the machine has cores) or, for gzip
 * and formats read whole, as one stream here; each request is counted and decided as it comes out
 * of the reorder window. Posts the running figures at most every 100 ms, then the result.
 * Terminating this worker stops the pass and the range workers it started.
 */
import { StreamPass, TraceError, streamRead } from '../trace';
import type { RangeReader, TracePart } from '../trace';
import type { RangeReply, RangeRequest } from './traceProtocol';
import type { StreamReply, StreamRequest } from './streamProtocol';

const PROGRESS_EVERY_MS = 100;
/** Range workers at most. */
const MAX_READERS = 8;

function post(msg: StreamReply): void {
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

async function run(req: StreamRequest): Promise<void> {
  const { file } = req;
  const pass = new StreamPass(file.name, req.keySpec, req.configs, req.baseline);
  let last = 0;
  const result = await streamRead(
    file,
    pass,
    { keySpec: req.keySpec },
    {
      parallel: Math.min(MAX_READERS, navigator.hardwareConcurrency || 1),
      readRange: rangeReaderOf(file),
      progress: (bytes) => {
        const now = performance.now();
        if (now - last < PROGRESS_EVERY_MS) return;
        last = now;
        post({ type: 'progress', gen: req.gen, bytes, total: file.size, figures: pass.figures() });
      },
    },
  );
  post({ type: 'done', gen: req.gen, result });
}

self.onmessage = (e: MessageEvent<StreamRequest>) => {
  run(e.data).catch((err: unknown) => {
    const message =
      err instanceof TraceError
        ? err.message
        : `Could not read ${e.data.file.name}: ${err instanceof Error ? err.message : String(err)}`;
    post({ type: 'error', gen: e.data.gen, message });
  });
};
