/** Messages between the page and the dry-run worker (dryRun.worker.ts). */
import type { AlgorithmConfig } from '../core';
import type { Baseline, DryRunGroups, EmptyKeyExempt, SpanChoice } from '../trace';

export type DryRunRequest =
  | {
      /**
       * Once per trace: its requests (copies, transferred) and the first of its key names (for
       * groups and the CSV); the rest follow in `keys` messages before any run. Arrival of request
       * i: `baseMs + times[i]` (src/trace/held.ts: Int32 times are the virtual times).
       */
      type: 'init';
      baseMs: number;
      times: Int32Array | Float64Array;
      keyId: Uint32Array;
      status: Uint16Array;
      keys: string[];
    }
  /** More key names, appended in order (each slice a task of its own on the page). */
  | { type: 'keys'; keys: string[] }
  | {
      type: 'run';
      gen: number;
      config: AlgorithmConfig;
      baseline: Baseline;
      /** The span the stage replays; null: the whole trace. */
      span: SpanChoice | null;
      /**
       * Requests with an empty key that the system does not give its limiter (not limited, or
       * denied: src/trace/emptyKeys.ts). Absent or null: every request goes to the limiter.
       */
      emptyKey?: EmptyKeyExempt | null;
    }
  /** The changes of run `gen` as CSV. */
  | { type: 'csv'; gen: number };

export interface DryRunCounts {
  admitted: number;
  delayed: number;
  rejected: number;
}

export type DryRunReply =
  | { type: 'progress'; gen: number; counts: DryRunCounts; groups: DryRunGroups }
  | { type: 'done'; gen: number; counts: DryRunCounts; groups: DryRunGroups }
  | { type: 'csv'; gen: number; csv: Blob }
  | { type: 'error'; gen: number; message: string };
