/**
 * The event loop of a lane that is not a fleet (local, shared or racy instances): the same rows,
 * checkpoints and statistics as simulate.ts's general loop (runLane) makes, in a function small
 * enough that V8 sees the whole decision path (a 1,000,000-arrival edit). The simulation
 * worker installs it (installPlainLaneLoop); the page's first chunk goes without. What it leaves
 * out of the general loop: the fleet's routing, store, oracle and resync; the retry queue when no request
 * can be retried; the balancer with one instance; the wall clock without jumps; the engine call
 * when state is not racy (the instance's store decides directly, as LaneEngine.decideKey does).
 * tests/bench/lane-identity.ts hashes every column, metric and seek of such runs: unchanged.
 */
import { DEFAULT_KEY } from '../core';
import type { Decision, Limiter } from '../core';
import { retryWaitMs } from './clients';
import { LaneEngine, balancer } from './deployment';
import {
  Checkpointer,
  ColumnBuilder,
  INT32_MAX,
  MAX_SLOT_KEYS,
  PROGRESS_ROWS,
  ROW_BYTES,
  emptyKeyDecision,
  ROW_BYTES_OWN_FIRST,
  RetryQueue,
} from './laneParts';
import type { LaneContext, LaneRun } from './laneParts';
import type { LaneRunStats } from './metrics';
import { StateTracker } from './state-tracker';
import { OUTCOME_ADMIT, OUTCOME_DELAY, OUTCOME_REJECT } from './types';

export function runPlainLane(ctx: LaneContext): LaneRun {
  const { config, scenario, arrivals, keyNames, clientKey, horizonMs, maxRows } = ctx;
  const { retry, deployment, seed } = scenario;
  const engine = new LaneEngine(config, deployment, undefined, ctx.originMs);
  const pick = balancer(deployment, seed);
  const oneInstance = deployment.instances === 1;
  const wallAt = ctx.clock.cursor();
  const jumps = ctx.clock.jumps;
  // No request can be retried: the queue stays empty and every rejection gives up.
  const noRetries = retry.onReject === 'give-up' || retry.maxAttempts === 1;
  const queue = new RetryQueue();
  const sharesFirst = ctx.shared.firstAttempts !== null;
  const sharesInstance = ctx.shared.oneInstance;
  // Without retries there is one row per first attempt; with them, room for some retries to start.
  const capacity = sharesFirst ? arrivals.count : arrivals.count + 1024;
  const cols = new ColumnBuilder(Math.min(maxRows, capacity), maxRows, ctx.shared, false);
  const tracker = new StateTracker(keyNames, engine.stores);
  // Keys by index in the limiters (not for racy state: its keys change by name, landed writes).
  const laneSlots =
    keyNames.length <= MAX_SLOT_KEYS && engine.useKeyIndex(new Map(tracker.keyIndex))
      ? keyNames.length
      : 0;
  if (laneSlots > 0) tracker.keysIndexed();
  // A decision changes only the deciding instance's store (one list per store, made once), or any
  // key's when racy writes land (readAll).
  const touchedBy = engine.stores.map((_, s) => [s] as readonly number[]);
  const readAll = deployment.state === 'shared-racy';
  const localState = deployment.state === 'local';
  const stores: readonly Limiter[] = engine.stores;
  // Every field the run sets is in the literal (rejected and delayed too): a field added after the
  // loop gave the object a map of its own, which V8's feedback holds weakly; once a run's stats
  // were gone that map went, and the next edit's optimised loop deoptimised where it read them
  // (tests/bench/deoptTrace.ts: "insufficient type feedback" after the loop, edit after edit).
  const stats: LaneRunStats = {
    gaveUp: 0,
    passedOnRetry: 0,
    retriesAfterEnd: 0,
    rejected: 0,
    delayed: 0,
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
  let gaveUp = 0;
  let rejected = 0;
  let delayed = 0;
  let passedOnRetry = 0;
  let retriesAfterEnd = 0;
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
  let nextProgress = 0;
  // The columns in locals (fetched again after they grow or widen).
  // The last rejection's span (Limiter.rejectsUntil): rows of key slot `spanKey` on store
  // `spanStore` at wall times in [spanFromMs, spanUntilMs) are rejected alike without deciding.
  // Rows inside a span written in a batch (see the end of the loop): the rows are the first
  // attempts (no retries), on one instance, at wall time = virtual time.
  const batchSpans = noRetries && sharesFirst && sharesInstance && oneInstance && !jumps;
  let spanUntilMs = Number.NEGATIVE_INFINITY;
  let spanKey = -1;
  let spanStore = -1;
  let spanFromMs = 0;
  let spanRetryAtMs = 0;
  let spanResetAtMs = 0;
  // The trace's empty-key requests, when this lane's system does not give them to its limiter.
  const { emptyKeyIndex } = ctx;
  const emptyDecision = emptyKeyDecision(ctx.emptyOutcome);
  let outcomeCol = cols.outcome;
  let waitCol = cols.waitMs;
  let remainingCol = cols.remaining;
  let resetCol = cols.resetMs;

  for (;;) {
    const ta = a < nA ? (times[a] as number) : Number.POSITIVE_INFINITY;
    const tr = noRetries ? Number.POSITIVE_INFINITY : queue.peekTime();
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
    // The balancer of one instance always answers 0 (and keeps no state).
    const instance = oneInstance ? 0 : pick(origin, attempt);
    const wallMs = jumps ? wallAt(t) : t;
    const k = keyIndex < laneSlots ? keyIndex : -1;
    const store = localState ? instance : 0;
    let outcome: Decision['outcome'];
    let delayMs: number;
    let retryAfterMs: number;
    let remaining: number;
    let resetMs: number;
    const exempt = keyIndex === emptyKeyIndex;
    const inSpan =
      !exempt &&
      k >= 0 &&
      k === spanKey &&
      store === spanStore &&
      wallMs >= spanFromMs &&
      wallMs < spanUntilMs;
    // This row's rejection opened a span (its own row decided, the next ones need not be).
    let opened = false;
    if (exempt) {
      // Not given to the limiter (its state, and the span, stay as they are).
      outcome = emptyDecision.outcome;
      delayMs = 0;
      retryAfterMs = 0;
      remaining = 0;
      resetMs = 0;
    } else if (inSpan) {
      // Within the rejection span of this key's last decision (Limiter.rejectsUntil): rejected
      // alike, nothing changes, so no decision is made.
      outcome = 'reject';
      delayMs = 0;
      retryAfterMs = spanRetryAtMs - wallMs;
      remaining = 0;
      resetMs = spanResetAtMs - wallMs;
    } else {
      // LaneEngine.decideKey without the call: not racy, the instance's store decides.
      const limiter = stores[store] as Limiter;
      const d: Decision = readAll
        ? engine.decideKey(t, wallMs, instance, key, k)
        : limiter.decideKey(wallMs, key, k);
      outcome = d.outcome;
      delayMs = d.delayMs;
      retryAfterMs = d.retryAfterMs;
      remaining = d.remaining;
      resetMs = d.resetMs;
      spanUntilMs = Number.NEGATIVE_INFINITY;
      if (outcome === 'reject' && !readAll && k >= 0) {
        spanUntilMs = limiter.rejectsUntil();
        spanKey = k;
        spanStore = store;
        spanFromMs = wallMs;
        spanRetryAtMs = wallMs + retryAfterMs;
        spanResetAtMs = wallMs + resetMs;
        opened = spanUntilMs > wallMs;
      }
    }
    const passed = outcome !== 'reject';
    // Indexed keys are never racy (readAll): the tracker's one-step case first.
    const tracked =
      exempt || (keyIndex < laneSlots && tracker.afterOne(keyIndex, store, wallMs, passed));
    if (!tracked)
      tracker.after(key, t, wallMs, readAll, touchedBy[store] ?? null, keyIndex, passed);
    if (row === cols.capacity) {
      cols.grow();
      outcomeCol = cols.outcome;
      waitCol = cols.waitMs;
      remainingCol = cols.remaining;
      resetCol = cols.resetMs;
    }
    if (!sharesFirst) {
      cols.arrivalMs[row] = t;
      cols.origin[row] = origin;
      cols.attempt[row] = attempt;
    }
    if (!sharesInstance) cols.instance[row] = instance;
    if (resetMs > INT32_MAX || delayMs > INT32_MAX || retryAfterMs > INT32_MAX) {
      cols.widen();
      waitCol = cols.waitMs;
      resetCol = cols.resetMs;
    }
    remainingCol[row] = remaining;
    resetCol[row] = resetMs;
    if (passed) {
      if (outcome === 'delay') {
        outcomeCol[row] = OUTCOME_DELAY;
        waitCol[row] = delayMs;
        delayed += 1;
      } else {
        outcomeCol[row] = OUTCOME_ADMIT;
        waitCol[row] = 0;
      }
      if (attempt > 1) passedOnRetry += 1;
    } else {
      rejected += 1;
      outcomeCol[row] = OUTCOME_REJECT;
      waitCol[row] = retryAfterMs;
      // Denied for an empty key: not a rate-limit answer, so the client does not retry.
      if (noRetries || exempt) gaveUp += 1;
      else {
        const wait = retryWaitMs(retry, seed, origin, attempt, retryAfterMs);
        if (wait < 0) gaveUp += 1;
        else if (t + wait >= horizonMs) retriesAfterEnd += 1;
        else queue.push(t + wait, origin, attempt + 1);
      }
    }
    row += 1;
    if ((inSpan || opened) && tracked && batchSpans) {
      // The arrivals that follow in this span, up to the next row the loop must see (checkpoint,
      // progress, cap, growth): rejected alike, written in a tight loop. Per row, the loop above
      // would find the same (decision, afterOne true: nothing it checks has changed); afterOne's
      // only effect, noting the wall time, is the same once for the last of these rows.
      const stopRow = Math.min(maxRows, checkpointer.nextCheck, nextProgress, cols.capacity);
      const first = row;
      let lastT = t;
      while (row < stopRow && a < nA) {
        const tb = times[a] as number;
        const ca = clientOf[a] as number;
        if (tb >= spanUntilMs || tb >= horizonMs || clientKey[ca] !== spanKey) break;
        outcomeCol[row] = OUTCOME_REJECT;
        waitCol[row] = spanRetryAtMs - tb;
        remainingCol[row] = 0;
        resetCol[row] = spanResetAtMs - tb;
        lastT = tb;
        row += 1;
        a += 1;
      }
      if (row > first) {
        rejected += row - first;
        gaveUp += row - first;
        if (!tracker.afterOne(spanKey, spanStore, lastT, false)) {
          tracker.after(key, lastT, lastT, readAll, touchedBy[spanStore] ?? null, spanKey, false);
        }
      }
    }
  }
  stats.gaveUp = gaveUp;
  stats.passedOnRetry = passedOnRetry;
  stats.retriesAfterEnd = retriesAfterEnd;
  // For laneMetrics: no counting pass over the rows.
  stats.rejected = rejected;
  stats.delayed = delayed;

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
  return {
    columns: cols.finish(row),
    completeUntilMs,
    cut,
    overBudget,
    writeBytes: checkpointer.writeBytes,
    internals: { checkpoints: checkpointer.checkpoints, every: checkpointer.every },
    stats,
    fleet: undefined,
  };
}
