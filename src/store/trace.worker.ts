/**
 * Parses an access log off the main thread: reads the File as a stream (it never leaves the
 * browser), feeds src/trace's TraceStream chunk by chunk, posts progress at most every 100 ms, and
 * posts the finished trace with its typed arrays transferred. Cancelling terminates the worker.
 */
import { TraceError, TraceStream, checkFileSize, holdTrace } from '../trace';
import type { ParseOptions } from '../trace';
import type { TraceWorkerReply, TraceWorkerRequest } from './traceProtocol';

const PROGRESS_EVERY_MS = 100;

function post(msg: TraceWorkerReply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(msg, transfer);
}

async function run(req: TraceWorkerRequest): Promise<void> {
  const { file, options } = req;
  const opts: ParseOptions = { ...options, name: file.name };
  checkFileSize(file.name, file.size);
  const stream = new TraceStream(opts);
  const reader = file.stream().getReader();
  let last = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stream.push(value);
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
  // Times, fingerprint and the panel's statistics here, off the main thread; the arrays the page
  // keeps are transferred, not copied.
  const { held, replay } = holdTrace(stream.finish());
  const transfer: Transferable[] = [held.times.buffer, held.keyId.buffer, held.status.buffer];
  if (held.cost !== null) transfer.push(held.cost.buffer);
  post({ type: 'done', gen: req.gen, trace: held, replay }, transfer);
}

self.onmessage = (e: MessageEvent<TraceWorkerRequest>) => {
  run(e.data).catch((err: unknown) => {
    const message =
      err instanceof TraceError
        ? err.message
        : `Could not read ${e.data.file.name}: ${err instanceof Error ? err.message : String(err)}`;
    post({ type: 'error', gen: e.data.gen, message });
  });
};
