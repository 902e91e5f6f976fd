// Long file on purpose: the simulation loop, its exact state tracker, memory budget and cache are
// one hot path; they are kept together so the per-decision work stays visible.
/**
 * simulate(limiters, scenario, untilMs): every request's fate, deterministically.
 *
 * 1. The sources are merged into first attempts (traffic.ts) and given clients (clients.ts): the
 *    same for every limiter.
 * 2. Each limiter runs in its own lane: an event loop over the first attempts and that lane's
 *    retries, in time order; each attempt goes through the balancer to an instance, and the
 *    deployment (deployment.ts) decides it at the wall-clock time (clock.ts).
 * 3. Every K rows the lane's state is cloned (a checkpoint), so seek.ts can rebuild any moment.
 * 4. metrics.ts summarises each lane and compares lanes.
 */
import { DEFAULT_KEY, createSharedLimiter, plural, quoteText } from '../core';
import type { AlgorithmConfig, Decision, Limiter } from '../core';
import { assignClients, keysWithTrace, retryWaitMs } from './clients';
import { WallClock } from './clock';
import { LaneEngine, balancer } from './deployment';
import {
  FleetEngine,
  fleetResult,
  isFleet,
  keyHash,
  serviceTimeMs,
  storeFirstJitters,
} from './fleet';
import { attachInternals } from './internal';
import {
  Checkpointer,
  ColumnBuilder,
  emptyKeyDecision,
  INT32_MAX,
  MAX_SLOT_KEYS,
  PROGRESS_ROWS,
  RESYNC_ROWS,
  ROW_BYTES,
  ROW_BYTES_OWN_FIRST,
  RetryQueue,
} from './laneParts';
import type { LaneContext, LaneRun, SharedColumns } from './laneParts';
import { divergences, laneMetrics } from './metrics';
import type { LaneRunStats } from './metrics';
import { StateTracker } from './state-tracker';
import { mergeSources } from './traffic';
import {
  MAX_DECISIONS,
  MAX_FIRST_ATTEMPTS,
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  WHY_REPLICA,
  WHY_STORE,
} from './types';
import type {
  ArrivalTable,
  LaneColumns,
  LaneResult,
  Scenario,
  SimLimiter,
  SimResult,
  SimTrace,
} from './types';
import { SimulationInputError, configOf, validateRun } from './validate';

export { CHECKPOINT_EVERY, MAX_CHECKPOINT_EVERY, PROGRESS_ROWS } from './laneParts';

/** Estimated bytes all checkpoints of a run may take. */
export const CHECKPOINT_BUDGET_BYTES = 48 * 1024 * 1024;
/**
 * What a run may retain, results plus checkpoints (and the in-flight writes checkpoints keep):
 * enforced, not estimated after the fact. Each lane gets an equal share of what the arrival table
 * leaves, and is cut at the first checkpoint at which it would hold more (`truncation` says so).
 */
export const MAX_RETAINED_BYTES = 150 * 1024 * 1024;
/**
 * The share of MAX_RETAINED_BYTES the estimate may reach: the bench measured retained/estimate up
 * to 1.01 (racy sliding logs), so a 10% margin keeps what is really retained under the budget.
 */
const RETAIN_MARGIN = 0.9;
/** The default for `metrics.binMs`: the smallest 1, 2, 5 × 10^k giving at most 600 bins. */
export function defaultBinMs(untilMs: number): number {
  for (let scale = 1; ; scale *= 10) {
    for (const m of [1, 2, 5]) if (Math.ceil(untilMs / (m * scale)) <= 600) return m * scale;
  }
}

/** The scenario with every optional group filled in, as a fresh copy. */
function resolveScenario(scenario: Scenario, untilMs: number): Scenario {
  const copy = structuredClone(scenario);
  copy.metrics = {
    windowMs: scenario.metrics?.windowMs ?? 1000,
    binMs: scenario.metrics?.binMs ?? defaultBinMs(untilMs),
  };
  return copy;
}

/** Display names: the given name or the kind, made unique with " #2", " #3" … */
function laneNames(limiters: readonly SimLimiter[]): string[] {
  const seen = new Map<string, number>();
  return limiters.map((l) => {
    const base = 'kind' in l ? l.kind : l.name;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    return n === 1 ? base : `${base} #${n}`;
  });
}

type LaneLoop = (ctx: LaneContext) => LaneRun;
let plainLoop: LaneLoop | null = null;

/**
 * Runs the lanes that are not fleets with `loop` (lanePlain.ts's `runPlainLane`: the same rows
 * as runLane's, about a quarter less CPU on a 1,000,000-arrival lane), or with runLane again
 * (null). The simulation worker, which runs the large runs, installs it; the page's first chunk
 * goes without it (initial JavaScript), its runs being small. tests/sim/lane-loops.test.ts
 * checks both loops make the same results.
 */
export function installPlainLaneLoop(loop: LaneLoop | null): void {
  plainLoop = loop;
}

/** A lane's event loop: any deployment (see `installPlainLaneLoop` for lanes that are not fleets). */
function runLane(ctx: LaneContext): LaneRun {
  const { config, scenario, arrivals, keyNames, clientKey, horizonMs, maxRows, originMs } = ctx;
  const { retry, deployment, seed } = scenario;
  const fleet = isFleet(deployment)
    ? new FleetEngine(config, deployment, seed, keyNames.length, true, undefined, originMs)
    : null;
  const engine = fleet ?? new LaneEngine(config, deployment, undefined, originMs);
  const laneEngine = fleet === null ? (engine as LaneEngine) : null;
  const pick = balancer(deployment, seed);
  const lor = deployment.balancer === 'least-outstanding';
  // "Beyond the global limit": an ideal global limiter fed exactly the passed rows. While every
  // row has gone through the store (or was rejected before reaching it) the store *is* that
  // limiter, so the oracle starts as a copy of the store at the first row that passed without it.
  let oracle: Limiter | null = null;
  let measured = false;
  let oracleMirrorsStore = false;
  if (fleet !== null) {
    fleet.keyHashes = Uint32Array.from(keyNames, keyHash);
    fleet.firstJitter = ctx.firstJitter();
    oracleMirrorsStore = fleet.storeIsGlobal;
    try {
      const ideal = createSharedLimiter(fleet.globalConfig, { originMs });
      measured = true;
      if (!oracleMirrorsStore) oracle = ideal;
    } catch {
      measured = false; // a global limit past the core's ranges: no "beyond" count
    }
  }
  const wallAt = ctx.clock.cursor();
  const queue = new RetryQueue();
  const sharesFirst = ctx.shared.firstAttempts !== null;
  const sharesInstance = ctx.shared.oneInstance;
  // Without retries there is one row per first attempt; with them, room for some retries to start.
  const capacity = sharesFirst ? arrivals.count : arrivals.count + 1024;
  const cols = new ColumnBuilder(Math.min(maxRows, capacity), maxRows, ctx.shared, fleet !== null);
  const tracker = new StateTracker(keyNames, engine.stores);
  // Keys by index in the fleet's limiters (a Map lookup saved per decision and per reading), while
  // the slots they take stay small (each limiter keeps an array as long as the key list).
  const slotKeys = fleet !== null && keyNames.length <= MAX_SLOT_KEYS ? keyNames.length : 0;
  const slotMap = slotKeys > 0 ? new Map(tracker.keyIndex) : null;
  if (fleet !== null && slotMap !== null) {
    fleet.useKeyIndex(slotMap);
    tracker.keysIndexed();
  }
  // Not a fleet: the same key slots (not for racy state: its keys change by name, landed writes).
  const laneSlots =
    laneEngine !== null &&
    keyNames.length <= MAX_SLOT_KEYS &&
    laneEngine.useKeyIndex(new Map(tracker.keyIndex))
      ? keyNames.length
      : 0;
  if (laneSlots > 0) tracker.keysIndexed();
  // Not a fleet: a decision changes only the deciding instance's store (one list per store, made
  // once), or any key's when racy writes land (readAll).
  const touchedBy =
    laneEngine === null ? [] : laneEngine.stores.map((_, s) => [s] as readonly number[]);
  // The oracle copied from the store is dropped again once it holds exactly the store's state
  // (after an outage, once the keys the store missed have gone idle or been refreshed alike): from
  // then on the store is that limiter again. Checked every RESYNC_ROWS rows; only while the wall
  // clock never goes back (idle keys are alike from now on, not before).
  const resyncs = fleet !== null && oracleMirrorsStore && !ctx.clock.jumps;
  let nextResync = 0;
  // Shared-racy: a landed write changes a key other than the one decided, so re-read them all.
  const readAll = deployment.state === 'shared-racy';
  let fleetGeneration = fleet?.generation ?? 0;
  const stats: LaneRunStats = {
    gaveUp: 0,
    passedOnRetry: 0,
    retriesAfterEnd: 0,
    state: {
      peakBytes: 0,
      peakEntries: 0,
      peakAtMs: 0,
      endBytes: 0,
      endEntries: 0,
      perKeyPeakBytes: tracker.peakBytes,
      perKeyPeakEntries: tracker.peakEntries,
    },
  };
  const rowBytes = ROW_BYTES + (sharesFirst ? 0 : ROW_BYTES_OWN_FIRST) + (sharesInstance ? 0 : 1);
  const checkpointer = new Checkpointer(rowBytes, ctx.retainBudget, ctx.checkpointBudget);
  let overBudget = false;

  const times = arrivals.timeMs;
  const clientOf = arrivals.client;
  const nA = arrivals.count;
  let a = 0;
  let row = 0;
  let completeUntilMs = horizonMs;
  let cut = false;
  // The row at which the loop reports progress next.
  let nextProgress = 0;
  const localState = deployment.state === 'local';
  // The trace's empty-key requests, when this lane's system does not give them to its limiter.
  const { emptyKeyIndex } = ctx;
  const emptyDecision = emptyKeyDecision(ctx.emptyOutcome);

  for (;;) {
    const ta = a < nA ? (times[a] as number) : Number.POSITIVE_INFINITY;
    const tr = queue.peekTime();
    const fromArrivals = ta <= tr;
    const t = fromArrivals ? ta : tr;
    if (t >= horizonMs) break;
    if (row === maxRows) {
      cut = true;
      completeUntilMs = t;
      break;
    }
    if (row === checkpointer.nextCheck) {
      const wide = cols.waitMs instanceof Float64Array;
      if (!checkpointer.take(row, t, wallAt(t), tracker, engine, wide)) {
        cut = true;
        overBudget = true;
        completeUntilMs = t;
        break;
      }
    }
    if (resyncs && oracle !== null && row >= nextResync) {
      nextResync = row + RESYNC_ROWS;
      if (fleet.storeSameAs(oracle, wallAt(t))) {
        oracle = null;
        oracleMirrorsStore = true;
      }
    }
    let origin: number;
    let attempt: number;
    if (fromArrivals) {
      origin = a;
      attempt = 1;
      a += 1;
    } else {
      origin = queue.peekOrigin();
      attempt = queue.peekAttempt();
      queue.pop();
    }
    if (row === nextProgress) {
      nextProgress += PROGRESS_ROWS;
      if (ctx.progress !== undefined) ctx.progress(row);
    }
    const keyIndex = clientKey[clientOf[origin] as number] as number;
    const key = keyNames[keyIndex] ?? DEFAULT_KEY;
    let instance: number;
    let d: Decision;
    let wallMs: number;
    const exempt = keyIndex === emptyKeyIndex;
    if (fleet === null) {
      instance = pick(origin, attempt);
      wallMs = wallAt(t);
      if (exempt) {
        // Not given to the limiter: no state changes, so nothing to track.
        d = emptyDecision;
      } else {
        d = (laneEngine as LaneEngine).decideKey(
          t,
          wallMs,
          instance,
          key,
          keyIndex < laneSlots ? keyIndex : -1,
        );
        const passed = d.outcome !== 'reject';
        const store = localState ? instance : 0;
        // Indexed keys are never racy (readAll): the tracker's one-step case first.
        if (keyIndex >= laneSlots || !tracker.afterOne(keyIndex, store, wallMs, passed))
          tracker.after(key, t, wallMs, readAll, touchedBy[store] ?? null, keyIndex, passed);
      }
      if (row === cols.capacity) cols.grow();
    } else if (exempt) {
      // Routed like any request, but no replica's limiter and no store sees it.
      instance = fleet.route(t, origin, attempt, keyIndex);
      d = emptyDecision;
      if (row === cols.capacity) cols.grow();
      cols.why[row] = WHY_REPLICA;
      cols.storeMs[row] = 0;
      if (d.outcome !== 'reject' && lor)
        fleet.hold(instance, t + serviceTimeMs(deployment.fleet, seed, origin, attempt));
    } else {
      instance = fleet.route(t, origin, attempt, keyIndex);
      wallMs = wallAt(t);
      d = fleet.decide(
        t,
        wallMs,
        instance,
        key,
        origin,
        attempt,
        keyIndex < slotKeys ? keyIndex : -1,
      );
      // Kong cluster increments that landed, or batched admits synced, since the last row changed
      // their keys in the store.
      const landed = fleet.takeLanded();
      if (fleet.generation !== fleetGeneration) {
        // Replicas replaced: every store may have changed.
        fleetGeneration = fleet.generation;
        tracker.setStores(fleet.stores);
        tracker.after(key, t, wallMs, true);
      } else {
        if (landed.length > 0) {
          const store = [fleet.stores.length - 1];
          for (const k of landed) tracker.after(k, t, wallMs, false, store);
        }
        // A pass was decided and passed by every store it touched (FleetEngine.touched).
        const passed = d.outcome !== 'reject';
        tracker.after(key, t, wallMs, readAll, fleet.touched(instance), keyIndex, passed);
      }
      if (row === cols.capacity) cols.grow();
      cols.why[row] = fleet.why;
      cols.storeMs[row] = fleet.storeMs;
      if (d.outcome !== 'reject') {
        if (lor)
          fleet.hold(
            instance,
            t + d.delayMs + serviceTimeMs(deployment.fleet, seed, origin, attempt),
          );
        if (oracleMirrorsStore && fleet.why !== WHY_STORE) {
          oracleMirrorsStore = false;
          oracle = fleet.storeClone();
          if (slotMap !== null) oracle.useKeyIndex(slotMap);
        }
        if (
          oracle !== null &&
          oracle.decideKey(wallMs, key, keyIndex < slotKeys ? keyIndex : -1).outcome === 'reject'
        )
          cols.beyond[row] = 1;
      }
    }

    if (!sharesFirst) {
      cols.arrivalMs[row] = t;
      cols.origin[row] = origin;
      cols.attempt[row] = attempt;
    }
    if (!sharesInstance) cols.instance[row] = instance;
    if (d.resetMs > INT32_MAX || d.delayMs > INT32_MAX || d.retryAfterMs > INT32_MAX) cols.widen();
    cols.remaining[row] = d.remaining;
    cols.resetMs[row] = d.resetMs;
    if (d.outcome === 'admit') {
      cols.outcome[row] = OUTCOME_ADMIT;
      cols.waitMs[row] = 0;
      if (attempt > 1) stats.passedOnRetry += 1;
    } else if (d.outcome === 'delay') {
      cols.outcome[row] = OUTCOME_DELAY;
      cols.waitMs[row] = d.delayMs;
      if (attempt > 1) stats.passedOnRetry += 1;
    } else if (exempt) {
      // Denied for its empty key: not a rate-limit answer, so the client does not retry.
      cols.outcome[row] = OUTCOME_REJECT;
      cols.waitMs[row] = 0;
      stats.gaveUp += 1;
    } else {
      cols.outcome[row] = OUTCOME_REJECT;
      cols.waitMs[row] = d.retryAfterMs;
      const wait = retryWaitMs(retry, seed, origin, attempt, d.retryAfterMs);
      if (wait < 0) stats.gaveUp += 1;
      else if (t + wait >= horizonMs) stats.retriesAfterEnd += 1;
      else queue.push(t + wait, origin, attempt + 1);
    }
    row += 1;
  }

  engine.flush(completeUntilMs);
  const end = tracker.measure(completeUntilMs, wallAt(Math.max(0, completeUntilMs - 1)));
  stats.state.endBytes = end.bytes;
  stats.state.endEntries = end.entries;
  stats.state.peakBytes = tracker.peakTotalBytes;
  stats.state.peakEntries = tracker.peakTotalEntries;
  stats.state.peakAtMs = tracker.peakAtMs;
  // The per-key arrays may have grown (a key outside keyNames): hand over the final ones.
  stats.state.perKeyPeakBytes = tracker.peakBytes;
  stats.state.perKeyPeakEntries = tracker.peakEntries;
  const columns = cols.finish(row);
  return {
    columns,
    completeUntilMs,
    cut,
    overBudget,
    writeBytes: checkpointer.writeBytes,
    internals: { checkpoints: checkpointer.checkpoints, every: checkpointer.every },
    stats,
    fleet:
      fleet === null
        ? undefined
        : fleetResult(fleet, columns, cols.why, cols.storeMs, cols.beyond, measured),
  };
}

/** Bytes of the typed arrays reachable from `value` (buffers counted once). */
function typedBytes(value: unknown, seen = new Set<ArrayBufferLike>()): number {
  if (ArrayBuffer.isView(value)) {
    if (seen.has(value.buffer)) return 0;
    seen.add(value.buffer);
    return value.buffer.byteLength;
  }
  if (typeof value !== 'object' || value === null) return 0;
  let sum = 0;
  for (const v of Object.values(value)) sum += typedBytes(v, seen);
  return sum;
}

/**
 * The buffers reachable from a lane result, each once, as `typedBytes` finds them. A lane result
 * is read-only and a cached run hands the same one back, so an edit to one of six limiters walks
 * one lane's objects, not six (the walk of the whole result was a visible part of an
 * edit's simulate).
 */
const laneBuffers = new WeakMap<LaneResult, ArrayBufferLike[]>();

/** Bytes of the typed arrays of `result` (buffers counted once, shared ones across lanes too). */
function resultBytes(result: SimResult): number {
  const seen = new Set<ArrayBufferLike>();
  let sum = 0;
  for (const [field, value] of Object.entries(result)) {
    if (field !== 'lanes') sum += typedBytes(value, seen);
  }
  for (const lane of result.lanes) {
    let buffers = laneBuffers.get(lane);
    if (buffers === undefined) {
      const own = new Set<ArrayBufferLike>();
      typedBytes(lane, own);
      buffers = [...own];
      laneBuffers.set(lane, buffers);
    }
    for (const b of buffers) {
      if (seen.has(b)) continue;
      seen.add(b);
      sum += b.byteLength;
    }
  }
  return sum;
}

/**
 * What `simulate` may keep between calls (pass the same object each time; `createSimCache`).
 * The arrivals depend only on the traffic (sources, seed, clients) and the run length, so editing a
 * limiter does not regenerate them; a lane's run depends only on its config, the arrivals and the
 * scenario's retry, deployment and clock (and, through the caps, the number of lanes), so an edit to
 * one limiter re-runs that lane alone. A result made with a cache is identical to one made without.
 */
export interface SimCache {
  /** The traffic the arrivals were made for, and the arrivals (with the lanes run on them). */
  arrivals: { key: string; value: PreparedArrivals } | null;
  /** Lane runs kept per arrivals (default 24, the least recently used dropped first). */
  maxLanes?: number;
}

/** Optional extras of `simulate`: only `traces` changes the result. */
export interface SimOptions {
  /**
   * The requests of the scenario's trace source, matched by hash. A trace source whose
   * requests are not here sends nothing, and `truncation` names the file to drop.
   */
  traces?: readonly SimTrace[];
  /** Kept between calls: arrivals and lane runs are reused when their inputs are the same. */
  cache?: SimCache;
  /**
   * Told how far the run is, as decided rows over the most rows the run can have (0 – 1), every
   * PROGRESS_ROWS rows and after each lane (for a progress bar while a large run computes).
   */
  onProgress?: (fraction: number) => void;
}

export function createSimCache(): SimCache {
  return { arrivals: null };
}

/**
 * Drops from `cache` the lane runs whose columns `lanes` show (and so the lane results made from
 * them): for a caller that hands those columns to another thread without a copy (the simulation
 * worker), after which they are detached here. The same config later runs again.
 */
export function forgetLaneRuns(cache: SimCache, lanes: readonly LaneResult[]): void {
  const prepared = cache.arrivals?.value;
  if (prepared === undefined) return;
  const outcomes = new Set(lanes.map((l) => l.columns.outcome));
  for (const [key, run] of [...prepared.lanes]) {
    if (outcomes.has(run.columns.outcome)) prepared.lanes.delete(key);
  }
}

/** The first attempts of a run, its keys, and what lanes share about them. */
interface PreparedArrivals {
  merged: ReturnType<typeof mergeSources>;
  keyNames: string[];
  clientKey: Uint16Array | Uint32Array;
  /**
   * The key index per client for a lane that keys the trace's empty-key requests by their
   * address (`keysWithTrace`), or null when no lane does or the trace has no addresses.
   */
  addressKey: Uint16Array | Uint32Array | null;
  /** What the run should say about its trace source (missing, or going on past the end). */
  traceNotes: string[];
  /** The epoch ms time 0 stands for: the trace's (SimTrace.originMs), else 0. */
  originMs: number;
  /** The client of the trace's empty-key requests (`SimTrace.emptyKeyId`), or −1. */
  emptyClient: number;
  arrivals: ArrivalTable;
  /** Columns lanes share for `sc` (made once per retry setting and instance count). */
  shared: (sc: Scenario) => SharedColumns;
  /** The cache key of these arrivals ('' without a cache): the traffic's content key. */
  key: string;
  /** Lane runs on these arrivals, by config and context. */
  lanes: Map<string, LaneRun>;
  /**
   * The one-instance column of zeros lanes share, kept while its length fits, so a lane result
   * made from a cached run can be reused as is (see `laneResults`).
   */
  zeros: Uint8Array | null;
  /**
   * The lane result last made from each run, with what it was made for (its name, the instance
   * column, the metrics options): an edit to one limiter hands the other lanes back the very same
   * LaneResult objects, so the page can tell which lanes changed by identity.
   */
  laneResults: WeakMap<
    LaneRun,
    { sig: string; instance: LaneColumns['instance']; lane: LaneResult }
  >;
}

function remember(lanes: Map<string, LaneRun>, key: string, run: LaneRun, max: number): void {
  lanes.set(key, run);
  while (lanes.size > max) lanes.delete(lanes.keys().next().value as string);
}

/** The first index of `times` (ascending) at or after `t`. */
function lowerBound(times: Int32Array, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The requests of `trace` in [fromMs, fromMs + lengthMs), each `fromMs` earlier (what a run of a
 * trace source with `fromMs` replays), and the index of the first of them in `trace`.
 */
export function traceSpan(
  trace: SimTrace,
  fromMs: number,
  lengthMs: number,
): { trace: SimTrace; first: number } {
  const first = lowerBound(trace.timeMs, fromMs);
  const timeMs = trace.timeMs.slice(first, lowerBound(trace.timeMs, fromMs + lengthMs));
  for (let j = 0; j < timeMs.length; j += 1) timeMs[j] = (timeMs[j] as number) - fromMs;
  const keyId = trace.keyId.subarray(first, first + timeMs.length);
  const { emptyClients: ec, emptyKeyId: emptyId = -1 } = trace;
  // The span's time 0 is its start, on the log's clock.
  const originMs = (trace.originMs ?? 0) + fromMs;
  if (ec === undefined || emptyId < 0 || first === 0) {
    return { trace: { ...trace, timeMs, keyId, originMs }, first };
  }
  // The addresses are one per empty-key request: the span's start after those before it.
  let before = 0;
  for (let i = 0; i < first; i += 1) if (trace.keyId[i] === emptyId) before += 1;
  const emptyClients = { client: ec.client.subarray(before), names: ec.names };
  return { trace: { ...trace, timeMs, keyId, emptyClients, originMs }, first };
}

/** The scenario's trace source's requests, when given, and what to say about them. */
function traceOf(
  sc: Scenario,
  untilMs: number,
  traces: readonly SimTrace[],
): { trace: SimTrace | null; notes: string[] } {
  const i = sc.sources.findIndex((s) => s.kind === 'trace');
  const source = sc.sources[i];
  if (source?.kind !== 'trace') return { trace: null, notes: [] };
  const trace = traces.find((t) => t.hash === source.hash) ?? null;
  if (trace === null) {
    return {
      trace: null,
      notes: [
        `sources[${i}] replays the access log ${quoteText(source.name)} (${source.bytes} bytes, ${plural(source.requests, 'request', 'requests', String)}, fingerprint ${source.hash}), which this page does not hold: drop that file on the page to replay it. The other sources run without it.`,
      ],
    };
  }
  // The span a link names (its start `fromMs` after the trace's first request, as long as the
  // run), else the trace from its first request: the page shows which, in clock time, over the
  // whole trace. A link from before spans were chosen is told what it leaves out.
  const span = traceSpan(trace, source.fromMs ?? 0, untilMs).trace;
  const after = trace.timeMs.length - span.timeMs.length;
  return {
    trace: span,
    notes:
      after === 0 || source.fromMs !== undefined
        ? []
        : [
            `The access log ${quoteText(source.name)} goes on past the run's end: the stage replays its first ${plural(span.timeMs.length, 'request')}, not the ${plural(after, 'request')} after them. Pick the span it replays on the log's overview.`,
          ],
  };
}

function prepareArrivals(
  sc: Scenario,
  untilMs: number,
  traces: readonly SimTrace[],
  cache?: SimCache,
  /** Some lane keys the trace's empty-key requests by their client address. */
  byAddress = false,
): PreparedArrivals {
  const { trace, notes: traceNotes } = traceOf(sc, untilMs, traces);
  const key =
    cache === undefined
      ? ''
      : JSON.stringify([
          sc.sources,
          sc.seed,
          sc.clients,
          untilMs,
          trace !== null,
          byAddress,
          trace?.originMs ?? 0,
        ]);
  if (cache?.arrivals?.key === key) return cache.arrivals.value;
  const traceMap = new Map<string, SimTrace>(trace === null ? [] : [[trace.hash, trace]]);
  const merged = mergeSources(sc.sources, sc.seed, untilMs, MAX_FIRST_ATTEMPTS, traceMap);
  const { keyNames, clientKey, addressKey } = keysWithTrace(sc.clients, trace, byAddress);
  const arrivals: ArrivalTable = {
    count: merged.count,
    timeMs: merged.timeMs,
    client: assignClients(
      merged.source,
      merged.count,
      sc.sources,
      sc.clients,
      sc.seed,
      trace,
      byAddress,
    ),
    source: merged.source,
  };
  let firstAttempts: SharedColumns['firstAttempts'] = null;
  const sharedFor = new Map<string, SharedColumns>();
  const prepared: PreparedArrivals = {
    key,
    merged,
    keyNames,
    clientKey,
    addressKey,
    traceNotes,
    originMs: trace?.originMs ?? 0,
    // A trace request's client is the client model's count plus its key id (assignClients).
    emptyClient:
      trace !== null && (trace.emptyKeyId ?? -1) >= 0
        ? sc.clients.count + (trace.emptyKeyId as number)
        : -1,
    arrivals,
    shared: (s) => {
      // A fleet that scales starts with one replica but routes to others later.
      const oneInstance =
        s.deployment.instances === 1 &&
        (s.deployment.fleet?.scale ?? []).length === 0 &&
        s.deployment.fleet?.autoscale === undefined;
      const noRetries = s.retry.onReject === 'give-up' || s.retry.maxAttempts === 1;
      const k = `${oneInstance}|${noRetries}`;
      let shared = sharedFor.get(k);
      if (shared === undefined) {
        if (noRetries && firstAttempts === null) {
          const origin = new Int32Array(arrivals.count);
          for (let i = 0; i < arrivals.count; i += 1) origin[i] = i;
          firstAttempts = {
            arrivalMs: arrivals.timeMs,
            origin,
            attempt: new Uint8Array(arrivals.count).fill(1),
          };
        }
        shared = { firstAttempts: noRetries ? firstAttempts : null, oneInstance };
        sharedFor.set(k, shared);
      }
      return shared;
    },
    lanes: new Map(),
    zeros: null,
    laneResults: new WeakMap(),
  };
  if (cache !== undefined) cache.arrivals = { key, value: prepared };
  return prepared;
}

/**
 * Every request's fate up to virtual time `untilMs` (exclusive), for each limiter, under `scenario`.
 * Pure and deterministic: the same input gives byte-identical typed arrays. Throws a
 * `SimulationInputError` listing every invalid field (see `validateRun`); never returns NaN.
 * A run past `MAX_FIRST_ATTEMPTS` or `MAX_DECISIONS` is cut and says so in `truncated` /
 * `truncation`.
 */
export function simulate(
  limiters: readonly SimLimiter[],
  scenario: Scenario,
  untilMs: number,
  options: SimOptions = {},
): SimResult {
  const { cache, onProgress, traces = [] } = options;
  const issues = validateRun(limiters, scenario, untilMs);
  if (issues.length > 0) throw new SimulationInputError(issues);
  const sc = resolveScenario(scenario, untilMs);
  // The configs as given, for the cache keys; a lane's result holds a copy of its own, made only
  // when the lane is run or its result made again. Copying all six for an edit to one of them took
  // 0.43 ms of the edit's input task in Chromium's profile (its structuredClone is slow on small
  // objects).
  const configs = limiters.map(configOf);
  const copies = new Map<number, AlgorithmConfig>();
  const copyOf = (lane: number): AlgorithmConfig => {
    let copy = copies.get(lane);
    if (copy === undefined)
      copies.set(lane, (copy = structuredClone(configs[lane] as AlgorithmConfig)));
    return copy;
  };
  const names = laneNames(limiters);

  // A lane that keys the trace's empty-key requests by their client address (Kong) runs on the
  // same arrivals with its own key per client (PreparedArrivals.addressKey).
  const ruleOf = limiters.map((l) => ('kind' in l ? undefined : l.emptyKey));
  const prepared = prepareArrivals(
    sc,
    untilMs,
    traces,
    cache,
    ruleOf.some((r) => r === 'client'),
  );
  const { merged, keyNames, clientKey, arrivals } = prepared;
  const truncation: string[] = [...prepared.traceNotes];
  if (merged.truncated) {
    truncation.push(
      `More than ${MAX_FIRST_ATTEMPTS} first attempts: the run was cut at ${merged.completeUntilMs} ms (of ${untilMs} ms).`,
    );
  }
  const clock = new WallClock(sc.clock);
  const maxRows = Math.floor(MAX_DECISIONS / configs.length);
  const shared = prepared.shared(sc);
  const checkpointBudget = CHECKPOINT_BUDGET_BYTES / configs.length;
  // The memory budget left for the lanes once the shared arrival columns are counted.
  const retainBudget =
    Math.max(
      0,
      MAX_RETAINED_BYTES * RETAIN_MARGIN - typedBytes({ arrivals, first: shared.firstAttempts }),
    ) / configs.length;
  // What a lane's run depends on besides its config and the arrivals (see SimCache).
  const laneContext = JSON.stringify([
    sc.retry,
    sc.deployment,
    sc.clock,
    sc.seed,
    maxRows,
    checkpointBudget,
    retainBudget,
  ]);
  // A run is used by one lane per result (two lanes with one config each get their own arrays, as
  // without a cache, so the memory report is the same).
  const used = new Set<LaneRun>();
  // Progress: rows decided over the rows the run can have (each lane: its arrivals, or its cap).
  const laneRows = Math.max(1, Math.min(maxRows, arrivals.count));
  const report = (lane: number, rows: number) =>
    onProgress?.(Math.min(1, (lane * laneRows + rows) / (configs.length * laneRows)));
  // The store's jitter per first attempt: the same draw in every fleet lane, made once (on demand).
  let firstJitter: Int32Array | null | undefined;
  const jitterMs = sc.deployment.fleet?.store?.jitterMs ?? 0;
  const firstJitterOf = (): Int32Array | null =>
    (firstJitter ??= jitterMs > 0 ? storeFirstJitters(sc.seed, jitterMs, arrivals.count) : null);
  // Each lane's rule for the trace's empty-key requests, where the trace has them.
  const emptyOf = ruleOf.map((outcome): LaneResult['emptyKey'] =>
    outcome === undefined || outcome === 'client' || prepared.emptyClient < 0
      ? undefined
      : { client: prepared.emptyClient, outcome },
  );
  // Each lane's key per client: its own when it keys empty-key requests by their address.
  const clientKeyOf = ruleOf.map((r) =>
    r === 'client' && prepared.addressKey !== null ? prepared.addressKey : clientKey,
  );
  const runKeys: string[] = [];
  const runs = configs.map((config, lane) => {
    report(lane, 0);
    const empty = emptyOf[lane];
    const laneKeys = clientKeyOf[lane] as Uint16Array | Uint32Array;
    const rule = laneKeys === clientKey ? (empty?.outcome ?? '') : 'client';
    const key = cache === undefined ? '' : `${JSON.stringify(config)}|${rule}|${laneContext}`;
    runKeys.push(key);
    const cached = cache === undefined ? undefined : prepared.lanes.get(key);
    if (cached !== undefined && !used.has(cached)) {
      used.add(cached);
      // Used again: the newest entry, so the lanes in use are never the first dropped (a run
      // dropped first in, first out was re-run once an edit had pushed it to the front: every
      // eighteen edits to one of six limiters re-ran all six, 70 ms at 1×).
      prepared.lanes.delete(key);
      prepared.lanes.set(key, cached);
      return cached;
    }
    const run = (isFleet(sc.deployment) || plainLoop === null ? runLane : plainLoop)({
      config: copyOf(lane),
      scenario: sc,
      originMs: prepared.originMs,
      arrivals,
      keyNames,
      clientKey: laneKeys,
      clock,
      horizonMs: merged.completeUntilMs,
      maxRows,
      checkpointBudget,
      retainBudget,
      shared,
      firstJitter: firstJitterOf,
      emptyKeyIndex: empty === undefined ? -1 : (clientKey[empty.client] as number),
      emptyOutcome: empty?.outcome ?? 'admit',
      ...(onProgress === undefined
        ? {}
        : { progress: (rows: number) => report(lane, Math.min(rows, laneRows)) }),
    });
    if (cache !== undefined && cached === undefined) {
      remember(prepared.lanes, key, run, cache.maxLanes ?? 24);
    }
    used.add(run);
    return run;
  });
  report(configs.length, 0);
  // Columns of a run are read-only; a run taken from the cache is shared with earlier results, so
  // each result gets its own columns object (same arrays) before the instance column is set.
  const laneColumns = runs.map((r) => ({ ...r.columns }));
  if (shared.oneInstance) {
    const rows = Math.max(0, ...laneColumns.map((c) => c.rows));
    // Zeros are zeros: the column kept with the arrivals serves every run that fits in it.
    const zeros =
      cache !== undefined && prepared.zeros !== null && prepared.zeros.length === rows
        ? prepared.zeros
        : new Uint8Array(rows);
    if (cache !== undefined) prepared.zeros = zeros;
    for (const c of laneColumns) c.instance = zeros;
  }
  runs.forEach((run, i) => {
    if (run.overBudget) {
      truncation.push(
        `${names[i] as string}: this lane would pass its share of the ${MAX_RETAINED_BYTES / 1024 / 1024} MB memory budget for results and checkpoints (shared by ${plural(configs.length, 'limiter')}): it was cut at ${run.completeUntilMs} ms.`,
      );
    } else if (run.cut) {
      truncation.push(
        `${names[i] as string}: more than ${plural(maxRows, 'attempt', 'attempts', String)} (${MAX_DECISIONS} decisions per run, shared by ${plural(configs.length, 'limiter')}): this lane was cut at ${run.completeUntilMs} ms.`,
      );
    }
  });
  const metricsOptions = sc.metrics as Required<NonNullable<Scenario['metrics']>>;
  const lanes: LaneResult[] = runs.map((run, i) => {
    const columns = laneColumns[i] as LaneColumns;
    // The same run, name, instance column and metrics options make the same lane result: with a
    // cache, the one made before is handed back (its arrays are read-only, like the run's).
    const sig = `${names[i] as string}|${metricsOptions.binMs}|${metricsOptions.windowMs}`;
    const kept = cache === undefined ? undefined : prepared.laneResults.get(run);
    if (kept !== undefined && kept.sig === sig && kept.instance === columns.instance) {
      return kept.lane;
    }
    const laneKeys = clientKeyOf[i] as Uint16Array | Uint32Array;
    const { metrics, releasesMs } = laneMetrics({
      columns,
      arrivals,
      clientKey: laneKeys,
      keyCount: keyNames.length,
      clientCount: clientKey.length,
      untilMs: run.completeUntilMs,
      binMs: metricsOptions.binMs,
      windowMs: metricsOptions.windowMs,
      stats: run.stats,
    });
    const lane: LaneResult = {
      name: names[i] as string,
      config: copyOf(i),
      columns,
      metrics,
      completeUntilMs: run.completeUntilMs,
      releasesMs,
      ...(run.fleet === undefined ? {} : { fleet: run.fleet }),
      ...(emptyOf[i] === undefined ? {} : { emptyKey: emptyOf[i] }),
      ...(laneKeys === clientKey ? {} : { clientKey: laneKeys }),
    };
    if (cache !== undefined) {
      prepared.laneResults.set(run, { sig, instance: columns.instance, lane });
    }
    return lane;
  });
  const { first, pairs } = divergences(lanes, arrivals);
  const completeUntilMs = Math.min(merged.completeUntilMs, ...runs.map((r) => r.completeUntilMs));
  const result: SimResult = {
    scenario: sc,
    ...(prepared.originMs === 0 ? {} : { originMs: prepared.originMs }),
    untilMs,
    completeUntilMs,
    truncated: truncation.length > 0,
    truncation,
    keyNames,
    clientKey,
    instances: Math.max(
      sc.deployment.instances,
      ...lanes.map((l) => l.fleet?.metrics.maxReplicas ?? 0),
    ),
    arrivals,
    lanes,
    divergence: first,
    pairDivergence: pairs,
    memory: { resultBytes: 0, checkpointBytes: 0, bytesPerArrival: 0, bytesPerDecision: 0 },
  };
  const bytes = resultBytes(result);
  const decisions = lanes.reduce((s, l) => s + l.columns.rows, 0);
  const checkpointBytes = runs.reduce(
    (s, r) => s + r.internals.checkpoints.reduce((t, c) => t + c.bytes, 0),
    0,
  );
  const writeBytes = runs.reduce((s, r) => s + r.writeBytes, 0);
  result.memory = {
    resultBytes: bytes,
    checkpointBytes: checkpointBytes + writeBytes,
    bytesPerArrival: arrivals.count > 0 ? bytes / arrivals.count : 0,
    bytesPerDecision: decisions > 0 ? bytes / decisions : 0,
  };
  attachInternals(result, {
    clock,
    lanes: runs.map((r) => r.internals),
    ...(cache === undefined
      ? {}
      : {
          // Content keys: a lane's result is fixed by its run (config and context on these
          // arrivals), its name and metrics options, and its instance column (zeros of a length,
          // or its own); see the reuse of `laneResults` above.
          keys: {
            traffic: prepared.key,
            zeros: shared.oneInstance,
            lanes: lanes.map((lane, i) => {
              const sig = `${lane.name}|${metricsOptions.binMs}|${metricsOptions.windowMs}`;
              const instance = shared.oneInstance ? `zeros ${lane.columns.instance.length}` : 'own';
              return `${prepared.key}\n${runKeys[i] as string}\n${sig}\n${instance}`;
            }),
          },
        }),
  });
  return result;
}
