/**
 * The page's held sweep (src/store/sweep.ts runSweep, here without workers, in tasks) as a promise
 * of every cell's result, in the order of `configs`.
 */
import type { AlgorithmConfig } from '../../src/core';
import type { SimTrace } from '../../src/sim';
import { runSweep } from '../../src/store/sweep';
import type { CellResult } from '../../src/trace';

export function pageSweep(
  trace: SimTrace,
  configs: readonly AlgorithmConfig[],
  windowMs: number,
  emptyOutcome: 'admit' | 'reject' | 'client' | null = null,
  originMs = 0,
): Promise<CellResult[]> {
  return new Promise((resolve, reject) => {
    const out: CellResult[] = [];
    let left = configs.length;
    runSweep(
      trace,
      configs,
      windowMs,
      {
        onCell: (i, r) => {
          out[i] = r;
          left -= 1;
          if (left === 0) resolve(out);
        },
        onError: (_, m) => reject(new Error(m)),
      },
      emptyOutcome,
      originMs,
    );
  });
}
