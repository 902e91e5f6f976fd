/**
 * Decides a share of a streamed sweep's cells over the compact requests the sweep recorded
 * (src/trace/streamSweep.ts `sweepRecorded`), in as many passes as the cells' per-key state fits
 * `budgetBytes`; posts each pass's cells, and the requests decided now and then. stream.worker.ts
 * runs one of these per core, each with every other cell, and terminating it stops it.
 */
import { ArrayRecycler, sweepPasses, sweepRecorded } from '../trace';
import { readBytes } from './readBytes';
import type { SweepCellsReply, SweepCellsRequest } from './streamProtocol';

const PROGRESS_EVERY_MS = 100;

function post(msg: SweepCellsReply): void {
  (self as unknown as Worker).postMessage(msg);
}

async function run(req: SweepCellsRequest): Promise<void> {
  // Keyed by address, the cells hold state for the addresses that are no key too. Every key and its
  // requests are known before the first request: the cells are given the counts the passes are
  // planned by (the sliding log's rings are made once at their size).
  const counts = req.addressing?.byAddress?.counts ?? req.counts;
  const groups = sweepPasses(req.configs, counts, req.budgetBytes);
  // One pass's kernel arrays serve the next pass's cells (the keys, so the sizes, are the same).
  const recycler = new ArrayRecycler();
  let at = 0;
  let decided = 0;
  let last = 0;
  for (let g = 0; g < groups.length; g += 1) {
    const n = groups[g] as number;
    const configs = req.configs.slice(at, at + n);
    const cells = await sweepRecorded(
      req,
      configs,
      req.windowMs,
      req.below,
      req.emptyKey,
      (requests) => {
        const now = performance.now();
        if (now - last < PROGRESS_EVERY_MS) return;
        last = now;
        post({ type: 'progress', decided: decided + requests * n });
      },
      // One buffer filled again and again: no new buffer for each piece of the copy.
      (blob, onBytes) => readBytes(blob, onBytes),
      recycler,
    );
    decided += req.count * n;
    post({
      type: 'cells',
      cells: cells.map((c, i) => ({
        index: req.indexes[at + i] as number,
        result: c.ok ? c.result : null,
        message: c.ok ? null : c.message,
      })),
      pass: g + 1,
      passes: groups.length,
    });
    post({ type: 'progress', decided });
    at += n;
  }
  post({ type: 'done' });
}

self.onmessage = (e: MessageEvent<SweepCellsRequest>) => {
  run(e.data).catch((err: unknown) => {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  });
};
