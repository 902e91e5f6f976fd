/**
 * Runs a sweep in Web Workers: the cells are dealt to up to `workers` workers (one per core, at
 * most 4) in an order that spreads the first results over the whole grid, and each result is handed
 * to `onCell` as it arrives. The returned function cancels (terminates the workers). Without Worker
 * support (tests) the cells are computed here, a few per task, so the page stays responsive.
 */
import type { AlgorithmConfig } from '../core';
import type { SimTrace } from '../sim';
import { belowP99, sweepCell } from '../trace';
import type { CellResult } from '../trace';
import type { SweepReply, SweepRequest } from './sweepProtocol';

export interface SweepCallbacks {
  onCell: (index: number, result: CellResult) => void;
  onError: (index: number, message: string) => void;
}

let gen = 0;

/** Cell indices in an order that covers the grid coarsely first (strided passes). */
export function spreadOrder(count: number): number[] {
  const seen = new Uint8Array(count);
  const out: number[] = [];
  for (
    let stride = 1 << Math.max(0, Math.ceil(Math.log2(Math.max(1, count))));
    stride >= 1;
    stride >>= 1
  ) {
    for (let i = 0; i < count; i += stride) {
      if (seen[i] === 0) {
        seen[i] = 1;
        out.push(i);
      }
    }
  }
  return out;
}

export function runSweep(
  trace: SimTrace,
  configs: readonly AlgorithmConfig[],
  windowMs: number,
  cb: SweepCallbacks,
): () => void {
  gen += 1;
  const mine = gen;
  const order = spreadOrder(configs.length);
  if (typeof Worker === 'undefined') {
    const below = belowP99(trace);
    let k = 0;
    let stopped = false;
    const step = () => {
      if (stopped) return;
      const end = Math.min(order.length, k + 4);
      for (; k < end; k += 1) {
        const i = order[k] as number;
        cb.onCell(i, sweepCell(trace, configs[i] as AlgorithmConfig, windowMs, below));
      }
      if (k < order.length) setTimeout(step, 0);
    };
    setTimeout(step, 0);
    return () => {
      stopped = true;
    };
  }
  const n = Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2, configs.length));
  const workers: Worker[] = [];
  for (let w = 0; w < n; w += 1) {
    const worker = new Worker(new URL('./sweep.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<SweepReply>) => {
      const m = e.data;
      if (m.gen !== mine) return;
      if (m.type === 'cell') cb.onCell(m.index, m.result);
      else cb.onError(m.index, m.message);
    };
    const cells = order
      .filter((_, k) => k % n === w)
      .map((index) => ({ index, config: configs[index] as AlgorithmConfig }));
    const req: SweepRequest = { gen: mine, trace, cells, windowMs };
    worker.postMessage(req);
    workers.push(worker);
  }
  return () => {
    for (const w of workers) w.terminate();
  };
}
