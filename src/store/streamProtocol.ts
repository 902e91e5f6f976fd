/** Messages between the page and the streaming-pass worker (stream.worker.ts). */
import type { AlgorithmConfig } from '../core';
import type {
  HeldReplay,
  HeldTrace,
  Baseline,
  CellResult,
  KeySpec,
  KeyVolumes,
  StreamFigures,
  StreamAddressing,
  StreamEmptyKey,
  StreamEmptyOutcome,
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
  /**
   * What the limiters' system does with a request whose key is empty (src/trace/stream.ts
   * `StreamEmptyOutcome`): admit or deny it without the limiter, key it by its client address
   * where its line has one (Kong), or null — one key.
   */
  emptyOutcome: StreamEmptyOutcome;
}

/**
 * The compact copy of a file's requests a pass or a sweep wrote (8 bytes a request, as RequestSink
 * writes them), handed to the page so a sweep in a new worker decides its cells over it.
 */
export interface StreamCopy {
  blob: Blob;
  count: number;
  /** Requests that came out of the reorder window out of time order. */
  outside: number;
  /** The epoch ms the recorded times count from (the first request's whole-ms arrival). */
  originMs: number;
  source: 'opfs' | 'blob';
  /**
   * The Web Lock that keeps the private file from being removed as a stopped worker's leftover
   * (stream.worker.ts `opfsSink`); the page takes it over (steals it) before it ends the worker
   * that wrote the file. Null for a copy in the blob store, which lives while a Blob refers to it.
   */
  lock: string | null;
}

/** What a read of the file leaves for a sweep of it: each key's volume, and the copy if kept. */
export interface StreamKept {
  volumes: KeyVolumes;
  copy: StreamCopy | null;
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
  | { type: 'done'; gen: number; result: StreamResult; kept: StreamKept }
  | { type: 'error'; gen: number; message: string };

/**
 * The sweep over the file: every config decided for every request (one read, then passes over its
 * compact copy, or passes over the text when it cannot be kept), as few passes as the
 * per-key state of all the cells allows. The p99 rule takes the key volumes that read counts.
 */
export interface StreamSweepRequest {
  type: 'sweep';
  gen: number;
  file: File;
  keySpec: KeySpec;
  configs: AlgorithmConfig[];
  /** W of the peak backend load, ms. */
  windowMs: number;
  /**
   * What the limiter's system does with a request whose key is empty (emptyKeyOutcome): admit or
   * deny it without the limiter, key it by its client address where its line has one ('client',
   * Kong), or null — give it to the limiter under one key.
   */
  emptyOutcome: 'admit' | 'reject' | 'client' | null;
  /**
   * What the last read of this file (the statistics pass, or an earlier sweep) left: with it the
   * sweep reads no text; null — the sweep reads the file once first.
   */
  kept: StreamKept | null;
}

/** A share of the cells, decided over the recorded requests by a worker of its own. */
export interface SweepCellsRequest {
  /** The recorded requests (chunks as RequestSink writes them) and their count. */
  blob: Blob;
  count: number;
  /** The epoch ms their times count from: the cells' clock-aligned windows start from it. */
  originMs: number;
  keys: readonly string[];
  /** 1 for a key at most the p99 of key volumes, by key id. */
  below: Uint8Array;
  emptyKey: StreamEmptyKey | null;
  /** How requests recorded with their client address are taken (streamSweep.ts). */
  addressing: StreamAddressing | null;
  /** This worker's configs and their indexes in the sweep's. */
  configs: AlgorithmConfig[];
  indexes: number[];
  windowMs: number;
  /** Bytes of per-key state this worker's cells may hold at once; more take more passes. */
  budgetBytes: number;
}

export type SweepCellsReply =
  | {
      type: 'progress';
      /** Requests decided by this worker, summed over its cells so far. */
      decided: number;
    }
  | {
      type: 'cells';
      cells: { index: number; result: CellResult | null; message: string | null }[];
      /** The worker's passes so far over the recorded requests, of `passes`. */
      pass: number;
      passes: number;
    }
  | { type: 'done' }
  | { type: 'error'; message: string };

export type StreamSweepReply =
  | {
      type: 'sweep-progress';
      gen: number;
      /**
       * 'count': reading the file once (each key's volume, and the compact requests the cells are
       * decided over); 'sweep': deciding cells in passes over the file (when nothing could be
       * recorded); 'cells': deciding cells over the recorded requests, `bytes` of `total` being
       * the requests decided of all the cells' (request × cell).
       */
      phase: 'count' | 'sweep' | 'cells';
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
      /**
       * Where the cells read the requests from: the compact copy in the origin's private file
       * system, in the browser's blob store, or the file's text again in every pass.
       */
      source: 'opfs' | 'blob' | 'text';
      /** Workers that decided the cells at once. */
      workers: number;
      /** What this sweep's own read of the file left (null when it was given `kept`). */
      kept: StreamKept | null;
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
