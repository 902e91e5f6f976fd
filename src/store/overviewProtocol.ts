/** Messages between the page and the trace-overview worker (overview.worker.ts). */
import type { AlgorithmConfig } from '../core';

export type OverviewRequest =
  | {
      /**
       * Once per trace: its whole-ms times from the first request and key ids (copies,
       * transferred), its key names, and the overview's bin, ms.
       */
      type: 'init';
      timeMs: Int32Array;
      keyId: Uint32Array;
      keys: string[];
      /** The epoch ms time 0 stands for (SimTrace.originMs): windows on the clock start from it. */
      originMs: number;
      binMs: number;
    }
  /** The rejections per bin of the whole trace replayed through `config`. */
  | { type: 'run'; gen: number; config: AlgorithmConfig };

export type OverviewReply =
  /** Requests per bin (after `init`). */
  | { type: 'requests'; requests: Uint32Array }
  | { type: 'rejected'; gen: number; rejected: Uint32Array; total: number }
  | { type: 'error'; gen: number; message: string };
