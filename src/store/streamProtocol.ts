/** Messages between the page and the streaming-pass worker (stream.worker.ts). */
import type { AlgorithmConfig } from '../core';
import type {
  HeldReplay,
  HeldTrace,
  Baseline,
  CellResult,
  KeySpec,
  StreamFigures,
  StreamResult,
  StreamSweepFigures,
} from '../trace';

/** The statistics and dry-run pass. */
export interface StreamRequest {
  type?: 'pass';
  /** Generation: replies of an older request are dropped. */
  gen: number;
  file: File;
  keySpec: KeySpec;
  /** The limiters each request is decided by (the first one's rejections are drawn). */
  configs: AlgorithmConfig[];
  baseline: Baseline;
}

export type StreamReply =
  | {
      type: 'progress';
      gen: number;
      /** Bytes of the file read so far, of `total`. */
      bytes: number;
      total: number;
      figures: StreamFigures;
    }
  | { type: 'done'; gen: number; result: StreamResult }
  | { type: 'error'; gen: number; message: string };

/**
 * The sweep as passes over the file: every config decided for every request, as few passes as the
 * per-key state of all the cells allows. The p99 rule takes the key volumes of the statistics pass
 * this worker last finished over the same file and key; without one, a counting pass runs first.
 */
export interface StreamSweepRequest {
  type: 'sweep';
  gen: number;
  file: File;
  keySpec: KeySpec;
  configs: AlgorithmConfig[];
  /** W of the peak backend load, ms. */
  windowMs: number;
}

export type StreamSweepReply =
  | {
      type: 'sweep-progress';
      gen: number;
      /** 'count': reading the key volumes first; 'sweep': deciding cells. */
      phase: 'count' | 'sweep';
      /** The pass running (1-based) of `passes`, and the cells it decides. */
      pass: number;
      passes: number;
      bytes: number;
      total: number;
      figures: StreamSweepFigures;
    }
  | {
      /** The cells of one pass, by their index in the request's configs. */
      type: 'sweep-cells';
      gen: number;
      cells: { index: number; result: CellResult | null; message: string | null }[];
    }
  | {
      type: 'sweep-done';
      gen: number;
      requests: number;
      /** Requests decided out of time order, the largest over the passes. */
      outsideWindow: number;
      passes: number;
    }
  | { type: 'sweep-error'; gen: number; message: string };

/**
 * A span of the file read into a trace the page holds (src/trace/streamSpan.ts), for the stage
 * and the held dry run: the requests that arrived in [fromMs, toMs), at most the page's budget.
 */
export interface StreamSpanRequest {
  type: 'span';
  gen: number;
  file: File;
  keySpec: KeySpec;
  /** Epoch ms. */
  fromMs: number;
  toMs: number;
}

export type StreamSpanReply =
  | {
      type: 'span-progress';
      gen: number;
      bytes: number;
      total: number;
      /** Requests read so far, and of them in the span. */
      requests: number;
      inSpan: number;
    }
  | {
      type: 'span-done';
      gen: number;
      trace: HeldTrace;
      replay: HeldReplay;
      /** Epoch ms of the first request left out when the span held more than the page holds. */
      cutAtMs: number | null;
    }
  | { type: 'span-error'; gen: number; message: string };
