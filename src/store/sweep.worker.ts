/**
 * Sweep cells off the main thread (issue 12, point 5): each message is a trace and the cells this
 * worker computes; each cell is an exact replay of the whole trace, posted as soon as it is done.
 * Cancelling terminates the worker.
 */
import { belowP99, sweepCell } from '../trace';
import type { SweepReply, SweepRequest } from './sweepProtocol';

self.onmessage = (e: MessageEvent<SweepRequest>) => {
  const { gen, trace, cells, windowMs } = e.data;
  const below = belowP99(trace);
  const post = (m: SweepReply) => (self as unknown as Worker).postMessage(m);
  for (const cell of cells) {
    try {
      post({
        type: 'cell',
        gen,
        index: cell.index,
        result: sweepCell(trace, cell.config, windowMs, below),
      });
    } catch (err) {
      post({ type: 'error', gen, index: cell.index, message: (err as Error).message });
    }
  }
};
