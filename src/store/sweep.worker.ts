/**
 * Sweep cells off the main thread. The first message holds the trace's typed
 * arrays, prepared once (src/trace/fastSweep.ts); each later message holds a few cells, each an
 * exact replay of the whole trace through its algorithm's kernel (or core, for an algorithm without
 * one), posted as soon as it is done. Cancelling terminates the worker.
 */
import { fastSweepCell, prepareSweep } from '../trace';
import type { PreparedSweep } from '../trace';
import type { SweepReply, SweepRequest } from './sweepProtocol';

let prep: PreparedSweep | null = null;
let gen = -1;
let windowMs = 1000;

const post = (m: SweepReply) => (self as unknown as Worker).postMessage(m);

self.onmessage = (e: MessageEvent<SweepRequest>) => {
  const m = e.data;
  if (m.type === 'init') {
    gen = m.gen;
    windowMs = m.windowMs;
    prep = prepareSweep({
      timeMs: m.timeMs,
      keyId: m.keyId,
      keyCount: m.keyCount,
      emptyKey: m.emptyKey ?? null,
      originMs: m.originMs ?? 0,
    });
    return;
  }
  if (m.gen !== gen || prep === null) return;
  for (const cell of m.cells) {
    try {
      post({
        type: 'cell',
        gen,
        index: cell.index,
        result: fastSweepCell(prep, cell.config, windowMs),
      });
    } catch (err) {
      post({ type: 'error', gen, index: cell.index, message: (err as Error).message });
    }
  }
};
