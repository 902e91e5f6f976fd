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
import type { BuiltTrace, TracePart } from './builder';
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
}

/**
 * The trace of `file`, a line log whose format `opts.detectFrom` decides, read in ranges by
 * `hooks.readRange` and merged in file order as the parts come.
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
  const pending: { start: number; end: number; part: Promise<TracePart> }[] = [];
  let cut = 0;
  const startNext = async (): Promise<void> => {
    const size = nextRangeBytes(
      file.size - cut,
      parallel,
      hooks.leastBytes ?? even,
      hooks.mostBytes ?? even,
    );
    const end = await nextLineStart(file, Math.min(file.size, cut + size));
    const part = hooks.readRange(cut, end, opts);
    // Failures surface when the part is awaited in order; none goes unhandled meanwhile.
    part.catch(() => {});
    pending.push({ start: cut, end, part });
    cut = end;
  };
  let reserved = false;
  while (cut < file.size && pending.length < inFlight) await startNext();
  while (pending.length > 0) {
    const next = pending.shift() as (typeof pending)[number];
    const part = await next.part;
    if (!reserved && next.end > 0) {
      // Room for the whole trace at once, estimated from the first part's requests a byte: the
      // columns are then neither grown nor copied as the parts fill them (an estimate short by a
      // little costs one growth; one over, a copy to the exact length at the end).
      reserved = true;
      merge.reserve(Math.ceil((part.count / next.end) * file.size * 1.02) + 1024);
    }
    merge.add(part);
    hooks.recycle?.(part);
    while (cut < file.size && pending.length < inFlight) await startNext();
  }
  return merge.finish();
}
