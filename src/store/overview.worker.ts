/**
 * The overview of a whole trace off the main thread: its requests per bin once, then for each
 * limiter asked the rejections per bin of an exact replay of every request from the first
 * (src/trace/overview.ts). Runs asked while one computes wait; only the newest of them runs.
 */
import { heldSpanSource } from '../trace';
import type { TraceSpanSource } from '../trace';
import type { OverviewReply, OverviewRequest } from './overviewProtocol';

let source: TraceSpanSource | null = null;
let binMs = 60_000;
let pending: Extract<OverviewRequest, { type: 'run' }> | null = null;

function post(m: OverviewReply, transfer: Transferable[] = []): void {
  (self as unknown as Worker).postMessage(m, transfer);
}

function runNewest(): void {
  const m = pending;
  pending = null;
  if (m === null || source === null) return;
  try {
    const rejected = source.rejectionsPerBin(m.config, binMs);
    const total = rejected.reduce((a, b) => a + b, 0);
    post({ type: 'rejected', gen: m.gen, rejected, total }, [rejected.buffer]);
  } catch (err) {
    post({ type: 'error', gen: m.gen, message: err instanceof Error ? err.message : String(err) });
  }
}

self.onmessage = (e: MessageEvent<OverviewRequest>) => {
  const m = e.data;
  if (m.type === 'init') {
    source = heldSpanSource({
      timeMs: m.timeMs,
      keyId: m.keyId,
      keys: m.keys,
      originMs: m.originMs,
    });
    binMs = m.binMs;
    const requests = source.requestsPerBin(binMs);
    post({ type: 'requests', requests }, [requests.buffer]);
    return;
  }
  // Messages that arrived meanwhile are read first: the newest run replaces older ones.
  const idle = pending === null;
  pending = m;
  if (idle) setTimeout(runNewest, 0);
};
