/** Messages between the page and the trace-parsing worker (trace.worker.ts). */
import type {
  HeldReplay,
  HeldTrace,
  ParseOptions,
  PartColumns,
  TraceChunk,
  TracePart,
  WindowStatsById,
  WindowStatsInput,
} from '../trace';

export interface TraceWorkerRequest {
  /** Generation: replies of an older request are dropped. */
  gen: number;
  file: File;
  options: Omit<ParseOptions, 'name'>;
}

/**
 * To a parsing worker made ahead of a read (`TraceLoadState.prewarm`): start the range workers
 * now, so the next read in ranges finds them started.
 */
export interface TraceWorkerWarm {
  type: 'warm';
}

export type TraceWorkerReply =
  | {
      type: 'progress';
      gen: number;
      /** Bytes of the file read so far, of `total`. */
      bytes: number;
      total: number;
      requests: number;
      lines: number;
      malformed: number;
    }
  | {
      type: 'done';
      gen: number;
      /** The trace as the page holds it, with its statistics (src/trace/held.ts). */
      trace: HeldTrace;
      /**
       * The trace's fingerprint (computed here, off the main thread; its virtual times are
       * `trace.times`), or why it cannot be replayed (a span over 24 days).
       */
      replay: HeldReplay;
    }
  | {
      type: 'error';
      gen: number;
      message: string;
      /**
       * When reading stopped, epoch ms (`performance.timeOrigin + performance.now()` in the
       * worker): a cap passed or the error met. The page's message follows it; the time between
       * is what a person waits for the refusal once the reading is over.
       */
      stoppedAt: number;
    };

/** To a range worker (traceRange.worker.ts): read bytes [start, end) of `file`. */
export interface RangeRequest {
  file: File;
  start: number;
  end: number;
  /** With `detectFrom`: the file's start, which decides the format for every range. */
  options: ParseOptions;
  /** Columns to read the requests into (a merged part's, given back and transferred). */
  columns?: PartColumns | null;
  /**
   * Post the requests read as chunks of at least this many while the range is read (`chunk`
   * replies, before its `part`), instead of all of them in the part at the end.
   */
  chunkRequests?: number;
}

/** To a range worker started ahead of a read: nothing to do yet (its code is loaded). */
export interface RangeWarm {
  type: 'warm';
}

/**
 * To a range worker whose ranges are read: the per-window statistics of the merged trace
 * (`windowStatsById`), computed there while the parsing worker computes the fingerprint.
 */
export interface RangeStatsRequest {
  type: 'stats';
  input: WindowStatsInput;
  windowMs: number;
  top: number;
}

export type RangeReply =
  /** Bytes, requests, lines and malformed lines read since the last progress message. */
  | { type: 'progress'; bytes: number; requests: number; lines: number; malformed: number }
  /** Requests of the range read so far (its reader's chunk) and the range's bytes read by then. */
  | { type: 'chunk'; chunk: TraceChunk; bytesRead: number }
  | { type: 'part'; part: TracePart }
  | { type: 'stats'; stats: WindowStatsById }
  | { type: 'error'; message: string };
