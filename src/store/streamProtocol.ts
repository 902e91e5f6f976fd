/** Messages between the page and the streaming-pass worker (stream.worker.ts). */
import type { AlgorithmConfig } from '../core';
import type { Baseline, KeySpec, StreamFigures, StreamResult } from '../trace';

export interface StreamRequest {
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
