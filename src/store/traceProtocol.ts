/** Messages between the page and the trace-parsing worker (trace.worker.ts). */
import type { BuiltTrace, ParseOptions } from '../trace';

export interface TraceWorkerRequest {
  /** Generation: replies of an older request are dropped. */
  gen: number;
  file: File;
  options: Omit<ParseOptions, 'name'>;
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
      trace: BuiltTrace;
      /**
       * The replay's whole-ms times and the trace's fingerprint (computed here, off the main
       * thread), or why it cannot be replayed (a span over 24 days).
       */
      replay: { ok: true; hash: string; timeMs: Int32Array } | { ok: false; message: string };
    }
  | { type: 'error'; gen: number; message: string };
