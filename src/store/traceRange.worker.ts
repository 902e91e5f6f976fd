/**
 * Reads byte ranges of an access log (each starts at a line's start and ends just after a
 * newline) for trace.worker.ts and stream.worker.ts, which cut a large log into ranges and merge
 * what the workers read in file order. Posts the bytes read now and
 * then, the requests read so far in chunks when asked to (`chunkRequests`), and at the end the
 * part with its arrays transferred.
 */
import { quoteText } from '../core';
import { TraceError, TraceStream, windowStatsById } from '../trace';
import { markPhase } from '../trace/phase';
import { readBytes } from './readBytes';
import type { RangeReply, RangeRequest, RangeStatsRequest, RangeWarm } from './traceProtocol';

const PROGRESS_EVERY_MS = 100;

/**
 * The read buffer, kept from one range to the next: a worker reads dozens of ranges of a large
 * file, and a new buffer for each was left to the collector.
 */
const readBuffer: { buffer: ArrayBuffer | null } = { buffer: null };

function post(msg: RangeReply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(msg, transfer);
}

async function run(req: RangeRequest): Promise<void> {
  markPhase('range: start');
  // Columns given back by the pass that merged an earlier part are filled again: no new arrays to
  // grow, and none left behind for the collector on either side.
  const stream = new TraceStream({
    ...req.options,
    rangeStart: req.start,
    rangeBytes: req.end - req.start,
    columns: req.columns ?? null,
  });
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
  // The stream copies what it keeps of each piece (a line cut at a piece's end, keys), so one
  // buffer is read into again and again.
  await readBytes(
    req.file.slice(req.start, req.end),
    (bytes) => {
      if (stream.bytesIn === 0) markPhase('range: first bytes');
      stream.push(bytes);
      if (req.chunkRequests !== undefined) {
        const chunk = stream.takeRangeChunk(req.chunkRequests);
        if (chunk !== null) {
          post({ type: 'chunk', chunk, bytesRead: stream.bytesIn }, [
            chunk.arrivalMs.buffer,
            chunk.keyId.buffer,
            chunk.cost.buffer,
            chunk.status.buffer,
            chunk.line.buffer,
          ]);
        }
      }
      const now = performance.now();
      if (now - last >= PROGRESS_EVERY_MS) {
        last = now;
        progress();
      }
    },
    undefined,
    readBuffer,
  );
  markPhase('range: bytes read');
  const part = stream.finishPart();
  markPhase('range: part');
  progress();
  post({ type: 'part', part }, [
    part.arrivalMs.buffer,
    part.keyId.buffer,
    part.cost.buffer,
    part.status.buffer,
    part.line.buffer,
  ]);
  markPhase('range: posted');
}

/**
 * The ranges asked for, read one after another: a range may be asked for while the one before is
 * still read (its reads wait on the file), and reading both at once would finish neither early.
 */
let queue: Promise<void> = Promise.resolve();

/** The statistics asked for once the ranges are read (the merged trace's, RangeStatsRequest). */
function stats(req: RangeStatsRequest): void {
  markPhase('range: stats');
  try {
    post({ type: 'stats', stats: windowStatsById(req.input, req.windowMs, req.top) });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
  markPhase('range: stats posted');
}

self.onmessage = (e: MessageEvent<RangeRequest | RangeWarm | RangeStatsRequest>) => {
  const req = e.data;
  if ('type' in req) {
    // Asked after its ranges: they are read (their parts came) by then.
    if (req.type === 'stats') stats(req);
    // Otherwise started ahead of a read: its code is loaded and compiled by now; the range comes
    // later.
    return;
  }
  queue = queue.then(() =>
    run(req).catch((err: unknown) => {
      post({
        type: 'error',
        message:
          err instanceof TraceError
            ? err.message
            : `Could not read ${quoteText(req.file.name)}: ${err instanceof Error ? err.message : String(err)}`,
      });
    }),
  );
};
