/** Messages between the page and the sweep workers (sweep.worker.ts). */
import type { AlgorithmConfig } from '../core';
import type { CellResult, EmptyKeyExempt } from '../trace';

export type SweepRequest =
  | {
      /**
       * Sent once per worker and sweep: the trace as typed arrays (transferred: the page sends each
       * worker its own copy), which the worker prepares once for every cell that follows.
       */
      type: 'init';
      gen: number;
      /** Whole ms since the first request, ascending. */
      timeMs: Int32Array;
      keyId: Uint32Array;
      keyCount: number;
      /** W of the peak backend load, ms. */
      windowMs: number;
      /** The empty key's requests and the outcome the system gives them (absent: none skip). */
      emptyKey?: EmptyKeyExempt | null;
      /** The epoch ms time 0 stands for (the first request's arrival): windows on the clock. */
      originMs?: number;
    }
  | {
      /** Cells to compute, in order (a few at a time: the page deals them as workers finish). */
      type: 'cells';
      gen: number;
      cells: { index: number; config: AlgorithmConfig }[];
    };

export type SweepReply =
  | { type: 'cell'; gen: number; index: number; result: CellResult }
  | { type: 'error'; gen: number; index: number; message: string };
