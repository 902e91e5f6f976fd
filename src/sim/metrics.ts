// Long file on purpose: laneMetrics' two loops (general, and lean for one client's first
// attempts) must count alike and are kept side by side with the reductions they feed.
/**
 * Metrics per lane (counts, rates over time, the busiest interval of length W, delay percentiles,
 * per-key and per-client shares, memory) and the first disagreement between lanes. One pass over
 * the columns plus two sorted scans.
 */
import { OUTCOMES, OUTCOME_ADMIT, OUTCOME_REJECT } from './types';
import type {
  ArrivalTable,
  Divergence,
  LaneColumns,
  LaneMetrics,
  LaneResult,
  OutcomeCounts,
  PeakWindow,
} from './types';

/** What the event loop counts itself (it knows what each client did next). */
export interface LaneRunStats {
  gaveUp: number;
  passedOnRetry: number;
  retriesAfterEnd: number;
  state: LaneMetrics['state'];
  /**
   * Rows rejected and delayed, when the loop counted them as it wrote them: laneMetrics then
   * skips its counting pass (and counts after all if they turn out not to match the rows).
   */
  rejected?: number;
  delayed?: number;
}

export interface LaneMetricsInput {
  columns: LaneColumns;
  arrivals: ArrivalTable;
  clientKey: Uint16Array | Uint32Array;
  keyCount: number;
  clientCount: number;
  /** End of the lane's complete range: bins and backend counts stop here. */
  untilMs: number;
  binMs: number;
  windowMs: number;
  stats: LaneRunStats;
}

function counts(): OutcomeCounts {
  return { offered: 0, admitted: 0, delayed: 0, rejected: 0 };
}

/** The most values of ascending `times[0..n)` inside any [t, t + windowMs). */
export function peakWindow(times: Float64Array, n: number, windowMs: number): PeakWindow {
  let best = 0;
  let startMs = -1;
  let i = 0;
  for (let j = 0; j < n; j += 1) {
    const tj = times[j] as number;
    while (tj - (times[i] as number) >= windowMs) i += 1;
    if (j - i + 1 > best) {
      best = j - i + 1;
      startMs = times[i] as number;
    }
  }
  return { windowMs, count: best, startMs };
}

/**
 * Sorts ascending in place: skips sorted input (a single key's releases usually are), and sorts
 * through an Int32Array when the values fit, which V8 does faster than a Float64Array.
 */
function sortNumbers(a: Float64Array): void {
  let sorted = true;
  let fits = true;
  for (let i = 0; i < a.length; i += 1) {
    const v = a[i] as number;
    if (i > 0 && v < (a[i - 1] as number)) sorted = false;
    if (v > 2147483647 || v < -2147483648) fits = false;
  }
  if (sorted) return;
  if (!fits) {
    a.sort();
    return;
  }
  const ints = Int32Array.from(a).sort();
  a.set(ints);
}

/**
 * Nearest-rank percentile of ascending `sorted`, `p` a fraction (0.95 for p95): the value at rank
 * ⌈p·n⌉ (0 when empty). The page's one percentile: the p95 delay of the compare table, the delay
 * chart, the experiment answers, the decision log and a trace's sweep all take it over the delayed
 * requests' delays.
 */
export function nearestRank(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}

export function laneMetrics(input: LaneMetricsInput): {
  metrics: LaneMetrics;
  releasesMs: Float64Array;
} {
  const { rejected, delayed } = input.stats;
  const usable =
    Number.isInteger(rejected) &&
    Number.isInteger(delayed) &&
    rejected !== undefined &&
    delayed !== undefined &&
    rejected >= 0 &&
    delayed >= 0 &&
    rejected + delayed <= input.columns.rows;
  return metricsOf(input, usable ? { rejected, delayed } : null);
}

function metricsOf(
  input: LaneMetricsInput,
  counted: { rejected: number; delayed: number } | null,
): { metrics: LaneMetrics; releasesMs: Float64Array } {
  const { columns: c, arrivals, clientKey, untilMs, binMs, windowMs, stats } = input;
  const rows = c.rows;
  const nBins = Math.max(1, Math.ceil(untilMs / binMs));
  const bins = {
    binMs,
    offered: new Uint32Array(nBins),
    admitted: new Uint32Array(nBins),
    delayed: new Uint32Array(nBins),
    rejected: new Uint32Array(nBins),
    retries: new Uint32Array(nBins),
    backend: new Uint32Array(nBins),
  };
  const total = counts();
  const first = counts();
  const retries = counts();
  const perKey = {
    offered: new Uint32Array(input.keyCount),
    passed: new Uint32Array(input.keyCount),
  };
  const perClient = {
    offered: new Uint32Array(input.clientCount),
    passed: new Uint32Array(input.clientCount),
    firstAttempts: new Uint32Array(input.clientCount),
  };
  const outcomeCol = c.outcome;
  // Delayed and rejected rows counted first, without a branch per row: codes are 0 (admit),
  // 1 (delay), 2 (reject), so the sum of code >> 1 counts rejections and the sum of the codes
  // less twice that counts delays.
  let codeSum = 0;
  let nRejected = counted?.rejected ?? 0;
  for (let r = 0; r < (counted === null ? rows : 0); r += 1) {
    const o = outcomeCol[r] as number;
    codeSum += o;
    nRejected += o >> 1;
  }
  const nDelayed = counted?.delayed ?? codeSum - 2 * nRejected;
  // Float64 throughout, so peakWindow sees one array type (and huge delays fit).
  const passedAt = new Float64Array(rows - nRejected);
  let nPassed = 0;
  // Float64: a delay may pass 2^31 ms with extreme configs.
  const delays = new Float64Array(nDelayed);
  const releases = new Float64Array(nDelayed);
  let d = 0;
  let delaySum = 0;
  let backendAfterEnd = 0;

  // One pass over the columns with every array and counter in a local (no property lookups or
  // counter objects per row: this runs over every row of an edited lane).
  const arrivalCol = c.arrivalMs;
  const attemptCol = c.attempt;
  const originCol = c.origin;
  const waitCol = c.waitMs;
  const clientOf = arrivals.client;
  const binOffered = bins.offered;
  const binAdmitted = bins.admitted;
  const binDelayed = bins.delayed;
  const binRejected = bins.rejected;
  const binRetries = bins.retries;
  const binBackend = bins.backend;
  const keyOffered = perKey.offered;
  const keyPassed = perKey.passed;
  const clientOffered = perClient.offered;
  const clientPassed = perClient.passed;
  const clientFirst = perClient.firstAttempts;
  let firstOffered = 0;
  let firstAdmitted = 0;
  let firstDelayed = 0;
  let firstRejected = 0;
  let retryOffered = 0;
  let retryAdmitted = 0;
  let retryDelayed = 0;
  let retryRejected = 0;
  const wholeBins = Number.isInteger(binMs);
  let bin = 0;
  let binStart = 0;
  let binEnd = 0;
  // The rows are the first attempts one for one (origin r, attempt 1: the arrival column is the
  // arrivals' own), come from one client, and bins are whole ms: the lean loop below counts the
  // same as the general one.
  const lean =
    wholeBins &&
    c.arrivalMs === arrivals.timeMs &&
    input.clientCount === 1 &&
    rows <= arrivals.count;
  if (lean) {
    // Bin by bin: the bin's rows found by a binary search on their times (the rows are in time
    // order), then only their outcome bytes read; a rejected row costs one byte compare
    // (most rows of an overloaded 1,000,000-row lane are rejected). The same counts as below.
    let r = 0;
    while (r < rows) {
      bin = Math.floor((arrivalCol[r] as number) / binMs);
      binEnd = (bin + 1) * binMs;
      let lo = r + 1;
      let hi = rows;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((arrivalCol[mid] as number) < binEnd) lo = mid + 1;
        else hi = mid;
      }
      const start = r;
      const end = lo;
      let admitted = 0;
      let delayed = 0;
      for (; r < end; r += 1) {
        const outcome = outcomeCol[r] as number;
        if (outcome === OUTCOME_REJECT) continue;
        const t = arrivalCol[r] as number;
        passedAt[nPassed++] = t;
        let backendMs = t;
        if (outcome === OUTCOME_ADMIT) admitted += 1;
        else {
          delayed += 1;
          const delayMs = waitCol[r] as number;
          backendMs = t + delayMs;
          delays[d] = delayMs;
          releases[d] = backendMs;
          delaySum += delayMs;
          d += 1;
        }
        if (backendMs < untilMs) {
          const b = Math.floor(backendMs / binMs);
          binBackend[b] = (binBackend[b] as number) + 1;
        } else backendAfterEnd += 1;
      }
      const offered = end - start;
      binOffered[bin] = (binOffered[bin] as number) + offered;
      binAdmitted[bin] = (binAdmitted[bin] as number) + admitted;
      binDelayed[bin] = (binDelayed[bin] as number) + delayed;
      binRejected[bin] = (binRejected[bin] as number) + offered - admitted - delayed;
    }
  }
  if (lean) {
    firstOffered = rows;
    firstRejected = nRejected;
    firstDelayed = nDelayed;
    firstAdmitted = rows - nRejected - nDelayed;
    const key = clientKey[0] as number;
    keyOffered[key] = rows;
    keyPassed[key] = nPassed;
    clientOffered[0] = rows;
    clientPassed[0] = nPassed;
    clientFirst[0] = rows;
  }
  for (let r = 0; r < (lean ? 0 : rows); r += 1) {
    const t = arrivalCol[r] as number;
    const outcome = outcomeCol[r] as number;
    const isRetry = (attemptCol[r] as number) > 1;
    // Rows come in time order: the bin is found by counting up from the last row's (exact with a
    // whole binMs: integer arithmetic), else by a division.
    if (t >= binEnd || t < binStart) {
      bin = Math.floor(t / binMs);
      if (wholeBins) {
        binStart = bin * binMs;
        binEnd = binStart + binMs;
      }
    }
    const client = clientOf[originCol[r] as number] as number;
    const key = clientKey[client] as number;
    binOffered[bin] = (binOffered[bin] as number) + 1;
    if (isRetry) {
      retryOffered += 1;
      binRetries[bin] = (binRetries[bin] as number) + 1;
    } else {
      firstOffered += 1;
      clientFirst[client] = (clientFirst[client] as number) + 1;
    }
    keyOffered[key] = (keyOffered[key] as number) + 1;
    clientOffered[client] = (clientOffered[client] as number) + 1;
    if (outcome === OUTCOME_REJECT) {
      if (isRetry) retryRejected += 1;
      else firstRejected += 1;
      binRejected[bin] = (binRejected[bin] as number) + 1;
      continue;
    }
    keyPassed[key] = (keyPassed[key] as number) + 1;
    clientPassed[client] = (clientPassed[client] as number) + 1;
    passedAt[nPassed++] = t;
    let backendMs = t;
    if (outcome === OUTCOME_ADMIT) {
      if (isRetry) retryAdmitted += 1;
      else firstAdmitted += 1;
      binAdmitted[bin] = (binAdmitted[bin] as number) + 1;
    } else {
      if (isRetry) retryDelayed += 1;
      else firstDelayed += 1;
      binDelayed[bin] = (binDelayed[bin] as number) + 1;
      const delayMs = waitCol[r] as number;
      backendMs = t + delayMs;
      delays[d] = delayMs;
      releases[d] = backendMs;
      delaySum += delayMs;
      d += 1;
    }
    if (backendMs < untilMs) {
      const b = Math.floor(backendMs / binMs);
      binBackend[b] = (binBackend[b] as number) + 1;
    } else backendAfterEnd += 1;
  }
  first.offered = firstOffered;
  first.admitted = firstAdmitted;
  first.delayed = firstDelayed;
  first.rejected = firstRejected;
  retries.offered = retryOffered;
  retries.admitted = retryAdmitted;
  retries.delayed = retryDelayed;
  retries.rejected = retryRejected;
  total.offered = first.offered + retries.offered;
  total.admitted = first.admitted + retries.admitted;
  total.delayed = first.delayed + retries.delayed;
  total.rejected = first.rejected + retries.rejected;

  // Counts that did not match the rows (never from simulate's loops): count them here.
  if (counted !== null && (nPassed !== rows - nRejected || d !== nDelayed)) {
    return metricsOf(input, null);
  }
  sortNumbers(delays);
  sortNumbers(releases);
  const peakPassed = peakWindow(passedAt, nPassed, windowMs);
  // Without delays the backend sees exactly the passed requests, at the same times.
  let peakBackend: PeakWindow = { ...peakPassed };
  if (nDelayed > 0) {
    // Backend arrivals in time order: admitted requests (ascending already) merged with releases.
    const backendAt = new Float64Array(nPassed);
    let nBackend = 0;
    let k = 0;
    for (let r = 0; r < rows; r += 1) {
      if (outcomeCol[r] !== OUTCOME_ADMIT) continue;
      const t = c.arrivalMs[r] as number;
      while (k < nDelayed && (releases[k] as number) < t)
        backendAt[nBackend++] = releases[k++] as number;
      backendAt[nBackend++] = t;
    }
    while (k < nDelayed) backendAt[nBackend++] = releases[k++] as number;
    peakBackend = peakWindow(backendAt, nBackend, windowMs);
  }
  const metrics: LaneMetrics = {
    total,
    first,
    retries,
    gaveUp: stats.gaveUp,
    passedOnRetry: stats.passedOnRetry,
    retriesAfterEnd: stats.retriesAfterEnd,
    bins,
    backendAfterEnd,
    peakPassed,
    peakBackend,
    delay: {
      count: nDelayed,
      p50Ms: nearestRank(delays, 0.5),
      p95Ms: nearestRank(delays, 0.95),
      maxMs: nDelayed > 0 ? (delays[nDelayed - 1] as number) : 0,
      meanMs: nDelayed > 0 ? delaySum / nDelayed : 0,
    },
    perKey,
    perClient,
    state: stats.state,
  };
  return { metrics, releasesMs: releases };
}

/**
 * Memo of `firstOutcomes` by columns object. Columns are read-only once made and a cached
 * simulation hands unchanged lanes back with the same columns, so an edit to one of six limiters
 * recomputes one lane's. Weak: nothing is kept alive for it; results do not depend on it.
 */
const outcomesOf = new WeakMap<LaneColumns, Uint8Array>();

/** Each origin's first-attempt outcome code in a lane (255 when the lane never decided it). */
function firstOutcomes(columns: LaneColumns, count: number): Uint8Array {
  let out = outcomesOf.get(columns);
  if (out?.length === count) return out;
  out = new Uint8Array(count).fill(255);
  for (let r = 0; r < columns.rows; r += 1) {
    if (columns.attempt[r] === 1) out[columns.origin[r] as number] = columns.outcome[r] as number;
  }
  outcomesOf.set(columns, out);
  return out;
}

/**
 * The first origin below `count` that both lanes decided (code ≠ 255) and decided differently, or
 * −1 (also when one lane did not decide an origin before they differ). A function of its own, not
 * a loop inside divergences' two: V8 compiled that inner loop on stack replacement and left the code
 * at the loop's exit, twice per call (Maglev's "exit from OSR'd inner loop", traced with
 * tests/bench/deoptTrace.ts at every edit of the compare page).
 */
function firstDifference(oa: Uint8Array, ob: Uint8Array, count: number): number {
  for (let i = 0; i < count; i += 1) {
    const x = oa[i] as number;
    const y = ob[i] as number;
    if (x === 255 || y === 255) return -1;
    if (x !== y) return i;
  }
  return -1;
}

/**
 * For each pair of lanes (a < b, in the order (0,1), (0,2) … (1,2) …) the first origin whose first
 * attempt they decide differently, and the earliest of those. Only first attempts are compared:
 * they are the same requests in every lane; retries are not.
 */
export function divergences(
  lanes: readonly LaneResult[],
  arrivals: ArrivalTable,
): { first: Divergence | null; pairs: Array<Divergence | null> } {
  // One lane has no pairs: no pass over its rows.
  const outcomes =
    lanes.length < 2 ? [] : lanes.map((l) => firstOutcomes(l.columns, arrivals.count));
  const pairs: Array<Divergence | null> = [];
  let first: Divergence | null = null;
  for (let a = 0; a < lanes.length; a += 1) {
    for (let b = a + 1; b < lanes.length; b += 1) {
      const oa = outcomes[a] as Uint8Array;
      const ob = outcomes[b] as Uint8Array;
      const i = firstDifference(oa, ob, arrivals.count);
      const found: Divergence | null =
        i < 0
          ? null
          : {
              origin: i,
              atMs: arrivals.timeMs[i] as number,
              lanes: [a, b],
              outcomes: [
                OUTCOMES[oa[i] as number] ?? 'reject',
                OUTCOMES[ob[i] as number] ?? 'reject',
              ],
            };
      pairs.push(found);
      if (found !== null && (first === null || found.origin < first.origin)) first = found;
    }
  }
  return { first, pairs };
}
