/**
 * The fast path of a sweep cell: the trace held once as typed arrays with its
 * per-request scratch, each cell run through the kernel of its algorithm (src/trace/kernels.ts)
 * instead of core's generic limiter with a string-keyed Map. The result is the CellResult
 * `sweepCell` computes, field for field (tests/trace/kernels.test.ts). Traces that break a kernel's
 * preconditions (times going down, key ids outside the key list) go through `sweepCell` unchanged.
 */
import { assertAlgorithmConfig } from '../core';
import type { AlgorithmConfig } from '../core';
import { nearestRank, peakWindow } from '../sim';
import { runKernel } from './kernels';
import type { KernelInput, KernelTally } from './kernels';
import { belowP99, sweepCell } from './sweep';
import type { CellResult } from './sweep';
import type { EmptyKeyExempt } from './types';

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
  /**
   * The requests of key `id` skip the limiter and get `outcome` (the system's empty-key rule,
   * src/trace/emptyKeys.ts); absent or null: every request goes to the limiter.
   */
  emptyKey?: EmptyKeyExempt | null;
  /**
   * The epoch ms that time 0 stands for (the first request's arrival, so that time + originMs is
   * its whole-ms arrival): the clock-aligned algorithms place their windows from it (KernelInput
   * `originMs`). Absent: 0.
   */
  originMs?: number;
}

export interface PreparedSweep {
  /** The kernels' inputs and scratch, or null when the trace breaks their preconditions. */
  io: KernelInput | null;
  below: Uint8Array;
  offeredBelow: number;
  trace: SweepTraceInput;
  /** Scratch for the backend arrivals when some requests are delayed (allocated on first use). */
  backend: Float64Array | null;
  /**
   * The empty key's requests, taken out of the kernels' arrays once (never compared per cell):
   * how many, how many of them are of keys up to the p99, their times when they are admitted,
   * and scratch for merging those times with the limiter's admissions. Null: none skip.
   */
  empty: {
    outcome: 'admit' | 'reject';
    count: number;
    below: number;
    timeMs: Float64Array;
    merged: Float64Array | null;
  } | null;
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
  // The empty key's requests skip the limiter: the kernels get the others (ids and times as
  // they are), and the cells add the skipped ones back in `finish`.
  const ex = trace.emptyKey ?? null;
  let empty: PreparedSweep['empty'] = null;
  let kTime = timeMs;
  let kKey = keyId;
  if (ok && ex !== null) {
    let count = 0;
    for (let i = 0; i < n; i += 1) if (keyId[i] === ex.id) count += 1;
    if (count > 0) {
      kTime = new Int32Array(n - count);
      kKey = new Uint32Array(n - count);
      const skipped = new Float64Array(ex.outcome === 'admit' ? count : 0);
      for (let i = 0, j = 0, e = 0; i < n; i += 1) {
        const k = keyId[i] as number;
        if (k === ex.id) {
          if (skipped.length > 0) skipped[e++] = timeMs[i] as number;
          continue;
        }
        kTime[j] = timeMs[i] as number;
        kKey[j] = k;
        j += 1;
      }
      const belowEmpty = below[ex.id] === 1 ? count : 0;
      empty = { outcome: ex.outcome, count, below: belowEmpty, timeMs: skipped, merged: null };
    }
  }
  let io: KernelInput | null = null;
  if (ok) {
    const timeMs = kTime;
    const keyId = kKey;
    const n = timeMs.length;
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
      originMs: trace.originMs ?? 0,
    };
  }
  return { io, below, offeredBelow, trace, backend: null, empty };
}

function namedKeys(trace: SweepTraceInput): readonly string[] {
  return trace.keys ?? Array.from({ length: trace.keyCount }, (_, i) => String(i));
}

/** Writes the first `na` of `a` and `nb` of `b` (each ascending) to `out` in order; the count. */
export function mergeAscending(
  a: Float64Array,
  na: number,
  b: Float64Array,
  nb: number,
  out: Float64Array,
): number {
  let i = 0;
  let j = 0;
  let o = 0;
  while (i < na && j < nb)
    out[o++] = (a[i] as number) <= (b[j] as number) ? (a[i++] as number) : (b[j++] as number);
  while (i < na) out[o++] = a[i++] as number;
  while (j < nb) out[o++] = b[j++] as number;
  return o;
}

/** A CellResult from a kernel's tally, measured as sweepCell measures it. */
function finish(
  prep: PreparedSweep,
  io: KernelInput,
  tally: KernelTally,
  windowMs: number,
): CellResult {
  const n = prep.trace.timeMs.length;
  const nDel = tally.delayed;
  const e = prep.empty;
  let rejected = tally.rejected;
  let rejectedBelow = tally.rejectedBelow;
  // Admissions: the limiter's, merged with the empty key's admitted requests (both ascending).
  let adm = io.adm;
  let nAdm = tally.admitted;
  if (e !== null && e.outcome === 'reject') {
    rejected += e.count;
    rejectedBelow += e.below;
  } else if (e !== null) {
    const out = (e.merged ??= new Float64Array(n));
    nAdm = mergeAscending(io.adm, tally.admitted, e.timeMs, e.count, out);
    adm = out;
  }
  let peak: number;
  let p95 = 0;
  if (nDel === 0) {
    peak = peakWindow(adm, nAdm, windowMs).count;
  } else {
    const releases = io.rel.subarray(0, nDel).sort();
    const delays = io.del.subarray(0, nDel).sort();
    const backend = (prep.backend ??= new Float64Array(n));
    let b = 0;
    let r = 0;
    for (let i = 0; i < nAdm; i += 1) {
      const t = adm[i] as number;
      while (r < nDel && (releases[r] as number) < t) backend[b++] = releases[r++] as number;
      backend[b++] = t;
    }
    while (r < nDel) backend[b++] = releases[r++] as number;
    peak = peakWindow(backend, b, windowMs).count;
    p95 = nearestRank(delays, 0.95);
  }
  return {
    offered: n,
    rejected,
    delayed: nDel,
    rejectedShare: n > 0 ? rejected / n : 0,
    rejectedShareP99: prep.offeredBelow > 0 ? rejectedBelow / prep.offeredBelow : 0,
    peakBackend: peak,
    p95DelayMs: p95,
  };
}

/**
 * One cell: through its kernel, else (times that go down) through core as `sweepCell` does.
 * Throws on an invalid config with core's message.
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
    return finish(prep, prep.io, runKernel(prep.io, valid), windowMs);
  }
  const trace = prep.trace;
  return sweepCell(
    { hash: '', timeMs: trace.timeMs, keyId: trace.keyId, keys: namedKeys(trace) },
    valid,
    windowMs,
    prep.below,
    trace.emptyKey ?? null,
    trace.originMs ?? 0,
  );
}

/**
 * Every request's outcome (0 admit, 1 delay, 2 reject) and delay through the kernel of `config`,
 * or null when the trace cannot go through the kernels (times that go down, or an empty key's
 * requests taken out; the caller then replays through core). For the dry run.
 */
export function fastOutcomes(
  prep: PreparedSweep,
  config: AlgorithmConfig,
): { outcome: Uint8Array; delayMs: Float64Array; tally: KernelTally } | null {
  const valid = assertAlgorithmConfig(config);
  // With requests taken out for an empty key, the kernels' rows are not the trace's.
  if (prep.io === null || prep.empty !== null) return null;
  const n = prep.io.timeMs.length;
  const outcome = new Uint8Array(n);
  const delayMs = new Float64Array(n);
  prep.io.outcome = outcome;
  prep.io.delayOut = delayMs;
  try {
    return { outcome, delayMs, tally: runKernel(prep.io, valid) };
  } finally {
    prep.io.outcome = undefined;
    prep.io.delayOut = undefined;
  }
}
