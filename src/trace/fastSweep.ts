/**
 * The fast path of a sweep cell: the trace held once as typed arrays with its
 * per-request scratch, each cell run through the kernel of its algorithm (src/trace/kernels.ts)
 * instead of core's generic limiter with a string-keyed Map. The result is the CellResult
 * `sweepCell` computes, field for field (tests/trace/kernels.test.ts). Algorithms without a kernel,
 * and traces that break a kernel's preconditions (times going down, key ids outside the key list),
 * go through `sweepCell` unchanged.
 */
import { assertAlgorithmConfig } from '../core';
import type { AlgorithmConfig } from '../core';
import { nearestRank, peakWindow } from '../sim';
import { runKernel } from './kernels';
import type { KernelInput, KernelTally } from './kernels';
import { belowP99, sweepCell } from './sweep';
import type { CellResult } from './sweep';

/** What a sweep needs of a trace: whole-ms times from the first request, and key ids. */
export interface SweepTraceInput {
  timeMs: Int32Array;
  keyId: Uint32Array;
  /** Distinct keys (every key id is below it). */
  keyCount: number;
  /**
   * The keys' names, only used by the generic path. Absent, ids stand for keys (`"0"`, `"1"` …):
   * a limiter tells keys apart and nothing more, so its decisions are the same.
   */
  keys?: readonly string[];
}

export interface PreparedSweep {
  /** The kernels' inputs and scratch, or null when the trace breaks their preconditions. */
  io: KernelInput | null;
  below: Uint8Array;
  offeredBelow: number;
  trace: SweepTraceInput;
  /** Scratch for the backend arrivals when some requests are delayed (allocated on first use). */
  backend: Float64Array | null;
}

/**
 * Everything a sweep computes once per trace: the p99 key mask, the next request of the same key
 * (sliding log), the scratch arrays every cell reuses. About 20 bytes a request.
 */
export function prepareSweep(trace: SweepTraceInput): PreparedSweep {
  const { timeMs, keyId, keyCount } = trace;
  const n = timeMs.length;
  const below = belowP99({ keyId, keys: { length: keyCount } });
  let offeredBelow = 0;
  let ok = keyId.length === n;
  let prevT = 0;
  for (let i = 0; i < n && ok; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    if (t < prevT || k >= keyCount) ok = false;
    prevT = t;
    offeredBelow += below[k] as number;
  }
  if (!ok) {
    offeredBelow = 0;
    for (let i = 0; i < n; i += 1) if (below[keyId[i] as number] === 1) offeredBelow += 1;
  }
  let io: KernelInput | null = null;
  if (ok) {
    const nextSameKey = new Int32Array(n).fill(-1);
    const lastOf = new Int32Array(keyCount).fill(-1);
    for (let i = 0; i < n; i += 1) {
      const k = keyId[i] as number;
      const j = lastOf[k] as number;
      if (j >= 0) nextSameKey[j] = i;
      lastOf[k] = i;
    }
    io = {
      timeMs,
      keyId,
      keyCount,
      below,
      nextSameKey,
      adm: new Float64Array(n),
      del: new Float64Array(Math.min(n, 1024)),
      rel: new Float64Array(Math.min(n, 1024)),
      flag: new Uint8Array(n),
    };
  }
  return { io, below, offeredBelow, trace, backend: null };
}

function namedKeys(trace: SweepTraceInput): readonly string[] {
  return trace.keys ?? Array.from({ length: trace.keyCount }, (_, i) => String(i));
}

/** A CellResult from a kernel's tally, measured as sweepCell measures it. */
function finish(
  prep: PreparedSweep,
  io: KernelInput,
  tally: KernelTally,
  windowMs: number,
): CellResult {
  const n = io.timeMs.length;
  const nDel = tally.delayed;
  let peak: number;
  let p95 = 0;
  if (nDel === 0) {
    peak = peakWindow(io.adm, tally.admitted, windowMs).count;
  } else {
    const releases = io.rel.subarray(0, nDel).sort();
    const delays = io.del.subarray(0, nDel).sort();
    const backend = (prep.backend ??= new Float64Array(n));
    let b = 0;
    let r = 0;
    for (let i = 0; i < tally.admitted; i += 1) {
      const t = io.adm[i] as number;
      while (r < nDel && (releases[r] as number) < t) backend[b++] = releases[r++] as number;
      backend[b++] = t;
    }
    while (r < nDel) backend[b++] = releases[r++] as number;
    peak = peakWindow(backend, b, windowMs).count;
    p95 = nearestRank(delays, 0.95);
  }
  return {
    offered: n,
    rejected: tally.rejected,
    delayed: nDel,
    rejectedShare: n > 0 ? tally.rejected / n : 0,
    rejectedShareP99: prep.offeredBelow > 0 ? tally.rejectedBelow / prep.offeredBelow : 0,
    peakBackend: peak,
    p95DelayMs: p95,
  };
}

/**
 * One cell: through its kernel when there is one, else through core as `sweepCell` does. Throws
 * on an invalid config with core's message.
 */
export function fastSweepCell(
  prep: PreparedSweep,
  config: AlgorithmConfig,
  windowMs: number,
): CellResult {
  const valid = assertAlgorithmConfig(config);
  if (prep.io !== null) {
    prep.io.outcome = undefined;
    prep.io.delayOut = undefined;
    const tally = runKernel(prep.io, valid);
    if (tally !== null) return finish(prep, prep.io, tally, windowMs);
  }
  const trace = prep.trace;
  return sweepCell(
    { hash: '', timeMs: trace.timeMs, keyId: trace.keyId, keys: namedKeys(trace) },
    valid,
    windowMs,
    prep.below,
  );
}

/**
 * Every request's outcome (0 admit, 1 delay, 2 reject) and delay through the kernel of `config`,
 * or null when it has none (the caller then replays through core). For the dry run.
 */
export function fastOutcomes(
  prep: PreparedSweep,
  config: AlgorithmConfig,
): { outcome: Uint8Array; delayMs: Float64Array; tally: KernelTally } | null {
  const valid = assertAlgorithmConfig(config);
  if (prep.io === null) return null;
  const n = prep.io.timeMs.length;
  const outcome = new Uint8Array(n);
  const delayMs = new Float64Array(n);
  prep.io.outcome = outcome;
  prep.io.delayOut = delayMs;
  try {
    const tally = runKernel(prep.io, valid);
    return tally === null ? null : { outcome, delayMs, tally };
  } finally {
    prep.io.outcome = undefined;
    prep.io.delayOut = undefined;
  }
}
