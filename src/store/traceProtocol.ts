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
  | { type: 'done'; gen: number; trace: BuiltTrace }
  | { type: 'error'; gen: number; message: string };
