/**
 * A query's output read back and set beside the page's dry run: the CSV read (src/export/sql/
 * readback.ts), the loaded log replayed through the limiter (the sweep's kernels; core for an
 * algorithm without one) and the two compared (src/export/sql/compare.ts). Run in a worker
 * (sqlCompare.worker.ts) for a large output or log, or in place where there is no Worker.
 */
import type { AlgorithmConfig } from '../core';
import { compareOutput } from '../export/sql/compare';
import type { Comparison } from '../export/sql/compare';
import { readBack } from '../export/sql/readback';
import type { Readback } from '../export/sql/readback';
import { fastOutcomes, prepareSweep, replayTrace } from '../trace';

export interface SqlCompareRequest {
  text: string;
  config: AlgorithmConfig;
  baseline: 'recorded' | 'no-limit';
  /** The loaded log (copies), or null when none is loaded: then the output is only read. */
  trace: {
    keys: string[];
    keyId: Uint32Array;
    times: Int32Array;
    baseMs: number;
    status: Uint16Array;
  } | null;
}

export interface SqlCompareReply {
  back: Readback;
  comparison: Comparison | null;
}

export function sqlCompare(req: SqlCompareRequest): SqlCompareReply {
  const back = readBack(req.text);
  if (!back.ok || req.trace === null) return { back, comparison: null };
  const t = req.trace;
  // Time 0 stands for the first request's epoch ms: windows on the clock, as the query places them.
  const prep = prepareSweep({
    timeMs: t.times,
    keyId: t.keyId,
    keyCount: t.keys.length,
    originMs: t.baseMs,
  });
  const fast = fastOutcomes(prep, req.config);
  let outcome: Uint8Array;
  let delayMs: Uint32Array;
  if (fast !== null) {
    outcome = fast.outcome;
    delayMs = Uint32Array.from(fast.delayMs);
  } else {
    const arrivalMs = Float64Array.from(t.times, (v) => t.baseMs + v);
    const r = replayTrace(
      { count: t.times.length, arrivalMs, keyId: t.keyId, keys: t.keys },
      req.config,
      t.times,
    );
    outcome = r.outcome;
    delayMs = r.delayMs;
  }
  const comparison = compareOutput(back, {
    ...t,
    outcome,
    delayMs,
    baseline: req.baseline,
  });
  return { back, comparison };
}
