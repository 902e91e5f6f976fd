/**
 * Reads one byte range of an access log (it starts at a line's start and ends just after a
 * newline) for trace.worker.ts, which splits a large log into as many ranges as the machine has
 * cores and merges what each worker read (src/trace `mergeParts`). Posts the bytes read now and
 * then, and at the end the part with its arrays transferred.
 */
import { quoteText } from '../core';
import { TraceError, TraceStream } from '../trace';
import type { RangeReply, RangeRequest } from './traceProtocol';

const PROGRESS_EVERY_MS = 100;

function post(msg: RangeReply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(msg, transfer);
}

async function run(req: RangeRequest): Promise<void> {
  const stream = new TraceStream({ ...req.options, rangeStart: req.start });
  const reader = req.file.slice(req.start, req.end).stream().getReader();
  let last = 0;
  let posted = { bytes: 0, requests: 0, lines: 0, malformed: 0 };
  const progress = (): void => {
    const now = {
      bytes: stream.bytesIn,
      requests: stream.requests,
      lines: stream.lines,
      malformed: stream.malformed,
    };
    post({
      type: 'progress',
      bytes: now.bytes - posted.bytes,
      requests: now.requests - posted.requests,
      lines: now.lines - posted.lines,
      malformed: now.malformed - posted.malformed,
    });
    posted = now;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    stream.push(value);
    const now = performance.now();
    if (now - last >= PROGRESS_EVERY_MS) {
      last = now;
      progress();
    }
  }
  const part = stream.finishPart();
  progress();
  post({ type: 'part', part }, [
    part.arrivalMs.buffer,
    part.keyId.buffer,
    part.cost.buffer,
    part.status.buffer,
    part.line.buffer,
  ]);
}

self.onmessage = (e: MessageEvent<RangeRequest>) => {
  run(e.data).catch((err: unknown) => {
    post({
      type: 'error',
      message:
        err instanceof TraceError
          ? err.message
          : `Could not read ${quoteText(e.data.file.name)}: ${err instanceof Error ? err.message : String(err)}`,
    });
  });
};
