/**
 * Reads a log of any size into a streaming pass (StreamPass, StreamSweepPass) without holding it. A plain line log is cut into
 * segments of SEGMENT_BYTES, each ending just after a newline, parsed by as many range readers at
 * once as the caller gives (workers on the page), and handed to the pass in file order: at most
 * `parallel + 1` segments' requests are held at any moment. Anything else (gzip, which is read
 * from its start; HAR and CSV, which are read whole up to their own cap) is one stream through a
 * TraceStream, gzip inflated in bounded slices. Every cap still names where reading stopped: a
 * log is read whole, refused, or stopped with a message — never silently shortened.
 */
import { TraceStream, detectFormat, partsFormat } from './parse';
import type { ParseOptions } from './parse';
import type { TraceChunk, TraceMerger, TracePart } from './builder';
import { MAX_LINE_BYTES } from './types';
import type { ParseReport } from './types';
import { releaseBuffers } from './release';

export { releaseBuffers };

/** A pass the reader feeds: its merger takes the requests, `finish` the report the read ends with. */
export interface StreamingPass<R> {
  readonly merger: TraceMerger;
  finish(report: ParseReport): R;
}

/** Bytes of one segment of a plain line log (about 140,000 combined lines). */
export const SEGMENT_BYTES = 32 * 1024 * 1024;
/** The start of the file the format is decided from (as TraceStream reads it). */
export const HEAD_BYTES = 128 * 1024;
/** Decompressed text a streamed log may grow to: no cap but the pass's own (per-key) memory. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** A file as the reader needs it (a File on the page, a Blob with a name in tests). */
export interface StreamSource {
  name: string;
  size: number;
  slice(start?: number, end?: number): Blob;
  stream(): ReadableStream<Uint8Array>;
}

/**
 * Reads bytes [start, end) of the file as one part (a worker's traceRange on the page). With
 * `onChunk`, the reader may hand on requests of the range as it reads them (chunks of the range's
 * reader, in line order, each with the bytes of the range read by then); the part then holds only
 * what no chunk did.
 */
export type RangeReader = (
  start: number,
  end: number,
  options: ParseOptions,
  onChunk?: (chunk: TraceChunk, bytesRead: number) => void,
) => Promise<TracePart>;

export interface StreamReadHooks {
  /** Range readers run at once (≥ 1); with none, every file is read as one stream. */
  parallel: number;
  readRange: RangeReader | null;
  /** Called now and then with the bytes of the file read so far. */
  progress: (bytes: number) => void;
  /** Bytes of a segment (default SEGMENT_BYTES). */
  segmentBytes?: number;
  /**
   * Reads the whole file as one stream, handing on each piece (the page's BYOB reader,
   * src/store/readBytes.ts, which fills one buffer again and again); a piece may be overwritten
   * once `onBytes` returns. Default: the stream's own reader, a new buffer per piece.
   */
  readAll?: (file: StreamSource, onBytes: (bytes: Uint8Array) => void) => Promise<void>;
  /**
   * Takes each part back once the pass has merged it (the merger copies what it keeps), so its
   * arrays can be filled by the next range read instead of being left to the collector.
   */
  recycle?: (part: TracePart) => void;
}

/** Reads `file` with the stream's default reader (a new buffer for every piece). */
async function readPieces(file: StreamSource, onBytes: (bytes: Uint8Array) => void): Promise<void> {
  const reader = file.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    // Not released after use: detaching the pieces a stream's reader hands out made the pinned
    // Chromium's renderer grow by gigabytes (a 1.4 GB file read in 32 MB slices: 1.4 GB resident
    // against 0.17 GB), where detaching buffers made in the worker or read whole from a Blob
    // (`arrayBuffer()`) frees them.
    onBytes(value);
  }
}

/** Bytes looked at first for the end of a line (lines are about 240 bytes; MAX_LINE_BYTES at most). */
const LINE_PROBE_BYTES = 64 * 1024;

/** The offset just after the first newline at or after `at` (within MAX_LINE_BYTES), or `size`. */
export async function nextLineStart(file: StreamSource, at: number): Promise<number> {
  if (at >= file.size) return file.size;
  // A short look first, the whole longest line only when it holds no newline: every segment's cut
  // then reads 64 kB, not 1 MB.
  for (const n of [LINE_PROBE_BYTES, MAX_LINE_BYTES + 1]) {
    const buf = await file.slice(at, at + n).arrayBuffer();
    const nl = new Uint8Array(buf).indexOf(10);
    const got = buf.byteLength;
    // Not detached: a Blob's arrayBuffer is the browser's (releaseBuffers says why).
    if (nl >= 0) return at + nl + 1;
    if (got < n) return Math.min(file.size, at + got);
  }
  // A longer line is skipped whole by the range that meets it: cut after the probe.
  return Math.min(file.size, at + MAX_LINE_BYTES + 1);
}

/**
 * The text the format is decided from when the file can be read in ranges, or null when it must
 * be one stream: gzip, blank lines first, a format read whole, or a head that does not decide.
 */
export function rangeHead(start: Uint8Array, opts: ParseOptions): string | null {
  if (start[0] === 0x1f && start[1] === 0x8b) return null;
  // As TraceStream: empty lines before the first text are skipped.
  if (start[0] === 10) return null;
  const head = new TextDecoder('utf-8').decode(start);
  try {
    return detectFormat(head, opts).kind === 'lines' ? head : null;
  } catch {
    // One stream reads it and says what is wrong.
    return null;
  }
}

/** Reads `file` into `pass` (ParseOptions without `name`: the file's) and returns its result. */
export async function streamRead<R>(
  file: StreamSource,
  pass: StreamingPass<R>,
  options: Omit<ParseOptions, 'name'>,
  hooks: StreamReadHooks,
): Promise<R> {
  const opts: ParseOptions = {
    ...options,
    name: file.name,
    maxRequests: UNBOUNDED,
    maxTextBytes: UNBOUNDED,
  };
  const head =
    hooks.readRange !== null &&
    hooks.parallel >= 1 &&
    file.size > (hooks.segmentBytes ?? SEGMENT_BYTES)
      ? rangeHead(new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer()), opts)
      : null;
  if (head !== null && hooks.readRange !== null) {
    return readSegments(file, pass, { ...opts, detectFrom: head }, hooks, hooks.readRange);
  }
  const stream = new TraceStream({ ...opts, merger: pass.merger });
  // Plain text is copied by the stream where it keeps any (a line cut at a piece's end, keys), so
  // a reused buffer is safe; gzip is not: the inflater keeps references to its input, so a file
  // that may be gzip (first byte 0x1f) has each piece copied first.
  let copy: boolean | null = null;
  await (hooks.readAll ?? readPieces)(file, (bytes) => {
    if (bytes.length === 0) return;
    copy ??= bytes[0] === 0x1f;
    stream.push(copy ? bytes.slice() : bytes);
    hooks.progress(stream.bytesIn);
  });
  return pass.finish(stream.finishReport());
}

async function readSegments<R>(
  file: StreamSource,
  pass: StreamingPass<R>,
  opts: ParseOptions,
  hooks: StreamReadHooks,
  readRange: RangeReader,
): Promise<R> {
  const info = partsFormat(opts);
  const pending: { end: number; part: Promise<TracePart> }[] = [];
  let cut = 0;
  const startNext = async (): Promise<void> => {
    const end = await nextLineStart(file, cut + (hooks.segmentBytes ?? SEGMENT_BYTES));
    const part = readRange(cut, end, opts);
    // Failures surface when the part is awaited in order; none goes unhandled meanwhile.
    part.catch(() => {});
    pending.push({ end, part });
    cut = end;
  };
  while (cut < file.size && pending.length < hooks.parallel + 1) await startNext();
  while (pending.length > 0) {
    const next = pending.shift() as { end: number; part: Promise<TracePart> };
    const part = await next.part;
    pass.merger.add(part);
    hooks.recycle?.(part);
    hooks.progress(next.end);
    while (cut < file.size && pending.length < hooks.parallel + 1) await startNext();
  }
  return pass.finish(pass.merger.finishReport(info));
}
