/** Messages between the page and the sweep workers (sweep.worker.ts). */
import type { AlgorithmConfig } from '../core';
import type { SimTrace } from '../sim';
import type { CellResult } from '../trace';

export interface SweepRequest {
  gen: number;
  trace: SimTrace;
  /** The cells this worker computes, in order. */
  cells: { index: number; config: AlgorithmConfig }[];
  /** W of the peak backend load, ms. */
  windowMs: number;
}

export type SweepReply =
  | { type: 'cell'; gen: number; index: number; result: CellResult }
  | { type: 'error'; gen: number; index: number; message: string };
