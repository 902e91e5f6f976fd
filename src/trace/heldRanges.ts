/**
 * Reads a plain line log the page holds in byte ranges parsed at once by range readers (workers
 * on the page), merging each part as soon as it and every part before it have been read.
 *
 * The file is cut into more ranges than there are readers, largest first: each range is
 * `remaining / (2 × parallel)` bytes, kept between a least and a most. Cutting it into exactly one
 * range per reader, as this did first, left a core idle while the slower reader finished (about
 * 100 ms of a 247 MB log in the pinned Chromium), and the whole merge waited for the last range;
 * with shrinking ranges the readers end close together, and all but the last few ranges are merged
 * while the others are still being parsed. Parts are merged in file order, as `mergeParts` merges
 * them, so the trace is the same as one stream reading the whole file (tests/trace/parts.test.ts).
 */
import { PartsMerge } from './parse';
import type { ParseOptions } from './parse';
import type { BuiltTrace, TracePart } from './builder';
import { nextLineStart } from './streamRead';
import type { RangeReader, StreamSource } from './streamRead';

/** The least bytes of a range (about 34,000 combined lines): smaller ones cost more than they save. */
export const MIN_RANGE_BYTES = 8 * 1024 * 1024;
/** The most bytes of a range: the first parts come back (and are merged) early. */
export const MAX_RANGE_BYTES = 64 * 1024 * 1024;

/** Bytes of the next range when `remaining` bytes are still to be cut for `parallel` readers. */
export function nextRangeBytes(
  remaining: number,
  parallel: number,
  least = MIN_RANGE_BYTES,
  most = MAX_RANGE_BYTES,
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
  /** Least and most bytes of a range (default MIN_RANGE_BYTES, MAX_RANGE_BYTES). */
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
  const inFlight = Math.max(1, hooks.parallel) * 2;
  const pending: { start: number; end: number; part: Promise<TracePart> }[] = [];
  let cut = 0;
  const startNext = async (): Promise<void> => {
    const size = nextRangeBytes(
      file.size - cut,
      hooks.parallel,
      hooks.leastBytes ?? MIN_RANGE_BYTES,
      hooks.mostBytes ?? MAX_RANGE_BYTES,
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
