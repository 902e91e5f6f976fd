/**
 * The responses the stage's inspector shows for a log of one client replayed through one limiter:
 * `count` requests `gapMs` apart whose first is at epoch ms `firstMs`, each with its wall-clock time.
 */
import { simLimiters } from '../../src/config/keys';
import type { LimiterEntry } from '../../src/config/schema';
import { defaultScenario, requestAt, simulate } from '../../src/sim';
import type { SimTrace } from '../../src/sim';
import { seekerFor } from '../../src/store';
import type { SystemResponse } from '../../src/systems';
import { traceHash, traceSourceOf } from '../../src/trace';
import { rowResponse } from '../../src/ui/inspector/rowResponse';

export function replayedResponses(
  entry: LimiterEntry,
  firstMs: number,
  count: number,
  gapMs: number,
): { wallMs: number; response: SystemResponse }[] {
  const timeMs = Int32Array.from({ length: count }, (_, i) => i * gapMs);
  const keyId = new Uint32Array(count);
  const keys = ['203.0.113.7'];
  const sim: SimTrace = {
    hash: traceHash(timeMs, keyId, keys),
    timeMs,
    originMs: firstMs,
    keyId,
    keys,
  };
  const sc = { ...defaultScenario(), sources: [traceSourceOf(sim, 'access.log', 1)] };
  const result = simulate(simLimiters({ limiters: [entry] }), sc, count * gapMs + 1000, {
    traces: [sim],
  });
  if (result.originMs !== firstMs) throw new Error(`run origin ${result.originMs}`);
  const rows = result.lanes[0]?.columns.rows ?? 0;
  if (rows !== count) throw new Error(`${rows} rows, not ${count}`);
  const out: { wallMs: number; response: SystemResponse }[] = [];
  for (let row = 0; row < rows; row += 1) {
    const info = requestAt(result, 0, row);
    const { stores, store, wallMs } = seekerFor(result).storesBefore(0, row);
    const before = stores[store]?.inspect(wallMs, info.key);
    const response = rowResponse(result, 0, row, entry, {
      decision: info.decision,
      key: info.key,
      wallMs,
      before,
    });
    out.push({ wallMs: firstMs + (timeMs[row] as number), response });
  }
  return out;
}
