/**
 * Reads a plain line log the page holds in byte ranges parsed at once by range readers (workers
 * on the page), merging each part as soon as it and every part before it have been read: while a
 * later range is still being parsed, not after the last one.
 *
 * By default each reader reads one range (the file cut into `parallel` equal ranges at line ends).
 * Smaller ranges would balance the readers better and let more of the merge run early, but each
 * range costs its reader a stream, key table and user-agent table of its own, and the merge a part
 * to map: in the pinned Chromium (143) on a 247 MB combined log, 12 shrinking ranges for 2 readers
 * took about 0.2 s more renderer CPU than 2 ranges, 4 ranges about 0.1 s (load 14–20, so wall
 * times could not show what it bought); `leastBytes`/`mostBytes` cut smaller ranges, each
 * `remaining / (2 × parallel)` bytes between the two. Parts are merged in file order, as
 * `mergeParts` merges them, so the trace is the same as one stream reading the whole file
 * (tests/trace/held-ranges.test.ts).
 */
import { PartsMerge } from './parse';
import type { ParseOptions } from './parse';
import type { BuiltTrace, TraceChunk, TracePart } from './builder';
import { markPhase } from './phase';
import { nextLineStart } from './streamRead';
import type { RangeReader, StreamSource } from './streamRead';

/**
 * Bytes of the next range when `remaining` bytes are still to be cut for `parallel` readers, kept
 * between `least` and `most`.
 */
export function nextRangeBytes(
  remaining: number,
  parallel: number,
  least: number,
  most: number,
): number {
  return Math.max(least, Math.min(most, Math.ceil(remaining / (2 * Math.max(1, parallel)))));
}

export interface HeldRangeHooks {
  /** Range readers at once (≥ 1). */
  parallel: number;
  /** Reads bytes [start, end) as one part; `parallel × 2` reads are asked for at most at once. */
  readRange: RangeReader;
  /** Takes a part back once it is merged (the merge copied what it keeps). */
  recycle?: (part: TracePart) => void;
  /** Least and most bytes of a range (default: the file's size over `parallel`, both). */
  leastBytes?: number;
  mostBytes?: number;
  /**
   * Bytes of the first range (default: as any other). A first range smaller than the rest is read
   * first, and its requests merged while the later ranges are still being read.
   */
  firstBytes?: number;
  /**
   * Asks each reader for its requests in chunks as it reads them (RangeReader `onChunk`): the
   * chunks of the range next in file order are merged as they come, those of a later range kept
   * until every range before it is merged — so when the last range ends, little of it is left to
   * merge.
   */
  chunked?: boolean;
  /**
   * The offset just after the first newline at or after `at` (default: `nextLineStart` reads it
   * then); a caller that read a cut ahead (while the format was decided) gives it here.
   */
  lineStart?: (at: number) => Promise<number>;
}

interface PendingRange {
  start: number;
  end: number;
  part: Promise<TracePart>;
  /** Chunks that came before the range was next to merge, in the order they came. */
  chunks: TraceChunk[];
}

/**
 * The trace of `file`, a line log whose format `opts.detectFrom` decides, read in ranges by
 * `hooks.readRange` and merged in file order as the parts (and, `chunked`, their chunks) come.
 */
export async function readHeldInRanges(
  file: StreamSource,
  opts: ParseOptions,
  hooks: HeldRangeHooks,
): Promise<BuiltTrace> {
  const merge = new PartsMerge(opts);
  const parallel = Math.max(1, hooks.parallel);
  const inFlight = parallel * 2;
  const even = Math.ceil(file.size / parallel);
  const first = hooks.firstBytes;
  // With a first range of its own size, the rest is cut evenly among the other readers.
  const rest =
    first === undefined
      ? even
      : Math.ceil(Math.max(0, file.size - first) / Math.max(1, parallel - 1));
  const pending: PendingRange[] = [];
  let cut = 0;
  let reserved = false;
  /**
   * Room for the whole trace at once, estimated from the requests a byte of the file's first
   * `bytes`: the columns are then neither grown nor copied as the parts fill them (an estimate
   * short by a little costs one growth; one over, a copy to the exact length at the end).
   */
  const reserveFor = (requests: number, bytes: number): void => {
    if (reserved || bytes <= 0) return;
    reserved = true;
    merge.reserve(Math.ceil((requests / bytes) * file.size * 1.02) + 1024);
  };
  // The range whose chunks are merged as they come (the next in file order, its queue drained).
  let live: PendingRange | null = null;
  // A chunk merged in a reader's callback may fail (the request cap): kept for the loop to throw.
  let failed: { error: unknown } | null = null;
  const addChunk = (chunk: TraceChunk): void => {
    markPhase('merge: chunk');
    merge.add(chunk);
  };
  const startNext = async (): Promise<void> => {
    const size =
      cut === 0 && first !== undefined
        ? first
        : nextRangeBytes(
            file.size - cut,
            parallel,
            hooks.leastBytes ?? rest,
            hooks.mostBytes ?? rest,
          );
    const at = Math.min(file.size, cut + size);
    const end = await (hooks.lineStart?.(at) ?? nextLineStart(file, at));
    const range: PendingRange = { start: cut, end, part: Promise.resolve() as never, chunks: [] };
    const onChunk =
      hooks.chunked === true
        ? (chunk: TraceChunk, bytesRead: number): void => {
            if (failed !== null) return;
            if (range !== live) {
              range.chunks.push(chunk);
              return;
            }
            try {
              if (range.start === 0) reserveFor(merge.count + chunk.count, bytesRead);
              addChunk(chunk);
            } catch (e) {
              failed = { error: e };
            }
          }
        : undefined;
    range.part = hooks.readRange(cut, end, opts, onChunk);
    // Failures surface when the part is awaited in order; none goes unhandled meanwhile.
    range.part.catch(() => {});
    pending.push(range);
    cut = end;
  };
  while (cut < file.size && pending.length < inFlight) await startNext();
  while (pending.length > 0) {
    const next = pending[0] as PendingRange;
    // Its chunks so far, then the rest as they come (all before its part, which ends it).
    for (const chunk of next.chunks.splice(0)) addChunk(chunk);
    live = next;
    const part = await next.part;
    live = null;
    if (failed !== null) throw (failed as { error: unknown }).error;
    if (next.start === 0) reserveFor(merge.count + part.count, next.end);
    markPhase('merge: part');
    merge.add(part);
    markPhase('merge: part added');
    hooks.recycle?.(part);
    pending.shift();
    while (cut < file.size && pending.length < inFlight) await startNext();
  }
  const built = merge.finish();
  markPhase('merge: finished');
  return built;
}
