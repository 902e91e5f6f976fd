/**
 * What each request of a run shows: passed (and how long it was held), rejected, redirected, or no
 * answer; the run's timing tolerance measured from its own numbers; and `replay`, which asks whether
 * a hypothesis explains every observation within that tolerance.
 *
 * Pure: a function of a result and its plan.
 */
import type { Decision, Limiter } from '../core';
import type { Hypothesis } from './model';
import { ModelRun, modelTime } from './model';
import type { Plan } from './plan';
import type { ObservedRequest, ProbeResult } from './result';

/** What one request shows. */
export type ObservedKind =
  /** A 1xx/2xx answer: the limiter let it through. */
  | 'pass'
  /** A 3xx answer: passed on, but the gateway sent the client elsewhere. */
  | 'redirect'
  /** A 4xx/5xx answer. */
  | 'reject'
  /** No answer (timed out, reset, refused). */
  | 'error'
  /** Never sent (the run stopped first). */
  | 'unsent';

export interface Observation {
  /** The plan's index. */
  i: number;
  kind: ObservedKind;
  status: number | null;
  /** Send time, ms since the run's start (the planned time for an unsent request). */
  sentMs: number;
  /** First byte − send, ms; null without an answer. */
  latencyMs: number | null;
  /** How much longer than the run's quickest answers it took, ms (0 without an answer). */
  heldMs: number;
  /** Held longer than the tolerance: the gateway delayed it. */
  delayed: boolean;
  /** Its time on the model's clock, whole ms. */
  modelMs: number;
  request: ObservedRequest | null;
}

/** The run's timing, measured from its own requests. */
export interface Timing {
  /** 95th percentile of (sent − planned), ms. */
  sendErrorP95Ms: number;
  /** The quickest answers' latency (5th percentile), ms. */
  baselineMs: number;
  /** How far a request's decision time and hold may be off and still count as the same, ms. */
  toleranceMs: number;
  /** Median latency, ms. */
  medianMs: number;
  /** The smallest gap between two planned instants: what the plan needs told apart, ms. */
  resolutionMs: number;
}

/** The smallest tolerance ever used (a loopback run is often within a millisecond). */
export const MIN_TOLERANCE_MS = 15;

/** Nearest-rank quantile of an ascending list (0 when empty). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[at] as number;
}

function kindOf(r: ObservedRequest): ObservedKind {
  if (r.status === null) return r.error === 'not-sent' ? 'unsent' : 'error';
  if (r.status < 300) return 'pass';
  if (r.status < 400) return 'redirect';
  return 'reject';
}

/** The run's timing tolerance (see `Timing`). */
export function measureTiming(plan: Plan, result: ProbeResult): Timing {
  const errors: number[] = [];
  const latencies: number[] = [];
  const rejected: number[] = [];
  for (const r of result.requests) {
    const planned = plan.requests[r.i];
    if (planned !== undefined && r.error !== 'not-sent') errors.push(r.sentMs - planned.atMs);
    if (r.firstByteMs !== null && r.status !== null) {
      const l = r.firstByteMs - r.sentMs;
      latencies.push(l);
      if (r.status >= 400) rejected.push(l);
    }
  }
  errors.sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  rejected.sort((a, b) => a - b);
  const baselineMs = quantile(latencies, 0.05);
  // Rejected requests are answered at once by every limiter: their spread is the run's noise.
  const reference = rejected.length >= 5 ? quantile(rejected, 0.9) : quantile(latencies, 0.5);
  const sendErrorP95Ms = Math.max(0, quantile(errors, 0.95));
  const noise = Math.max(0, reference - baselineMs);
  let resolutionMs = Number.POSITIVE_INFINITY;
  for (let k = 1; k < plan.requests.length; k += 1) {
    const gap = (plan.requests[k]?.atMs ?? 0) - (plan.requests[k - 1]?.atMs ?? 0);
    if (gap > 0) resolutionMs = Math.min(resolutionMs, gap);
  }
  return {
    sendErrorP95Ms,
    baselineMs,
    medianMs: quantile(latencies, 0.5),
    toleranceMs: Math.ceil(Math.max(MIN_TOLERANCE_MS, 2 + sendErrorP95Ms + 2 * noise)),
    resolutionMs: Number.isFinite(resolutionMs) ? resolutionMs : 1000,
  };
}

/** Every planned request as observed (in plan order), on the model's clock. */
export function observe(plan: Plan, result: ProbeResult, timing: Timing): Observation[] {
  const byIndex = new Map(result.requests.map((r) => [r.i, r]));
  return plan.requests.map((p) => {
    const r = byIndex.get(p.i) ?? null;
    const kind: ObservedKind = r === null ? 'unsent' : kindOf(r);
    const sentMs = r === null || kind === 'unsent' ? p.atMs : r.sentMs;
    const latencyMs =
      r !== null && r.firstByteMs !== null && r.status !== null ? r.firstByteMs - r.sentMs : null;
    const heldMs = latencyMs === null ? 0 : Math.max(0, latencyMs - timing.baselineMs);
    return {
      i: p.i,
      kind,
      status: r?.status ?? null,
      sentMs,
      latencyMs,
      heldMs,
      delayed: kind !== 'reject' && heldMs > timing.toleranceMs,
      modelMs: modelTime(result.epochStartMs, sentMs),
      request: r,
    };
  });
}

/** Whether a model decision is what the observation shows (any decision fits no answer). */
export function fits(d: Decision, o: Observation, toleranceMs: number): boolean {
  if (o.kind === 'error' || o.kind === 'unsent') return true;
  if (d.outcome === 'reject') return o.kind === 'reject';
  if (o.kind === 'reject') return false;
  // Passed: held as long as the model holds it, within the tolerance (timers run a little late
  // under load: 5 % of the delay more is allowed).
  if (d.delayMs === 0) return !o.delayed;
  return Math.abs(o.heldMs - d.delayMs) <= toleranceMs + d.delayMs * 0.05;
}

/** The order the gateway is taken to have decided the requests in, with the observation each pairs with. */
export interface Pairing {
  /** Plan indices in decision order (each sent request once). */
  order: number[];
  /** Per position: the model time of the request sent k-th. */
  timesMs: number[];
  /** Per position: the observation the model's k-th decision is compared with. */
  observed: Observation[];
}

/** Rank of an observation within a group sent at once: what a gateway passes first. */
function rank(o: Observation): number {
  if (o.kind === 'pass' || o.kind === 'redirect') return o.delayed ? 1 + o.heldMs / 1e7 : 0;
  if (o.kind === 'reject') return 3;
  return 4;
}

/**
 * Requests in the order they were sent; within a group sent together for one key the gateway may
 * have taken them in any order, so the group's answers are paired with its requests sorted as a
 * limiter hands them out: passed at once first, then by how long they were held, then rejected,
 * then unanswered.
 */
export function pairing(plan: Plan, obs: readonly Observation[]): Pairing {
  const order = obs
    .filter((o) => o.kind !== 'unsent')
    .map((o) => o.i)
    .sort((a, b) => (obs[a] as Observation).sentMs - (obs[b] as Observation).sentMs || a - b);
  const groups = new Map<number, number[]>();
  order.forEach((i, k) => {
    const g = plan.requests[i]?.group ?? -1;
    const list = groups.get(g);
    if (list === undefined) groups.set(g, [k]);
    else list.push(k);
  });
  const observed: Observation[] = order.map((i) => obs[i] as Observation);
  for (const positions of groups.values()) {
    if (positions.length < 2) continue;
    const sorted = positions
      .map((k) => observed[k] as Observation)
      .sort((a, b) => rank(a) - rank(b) || a.i - b.i);
    positions.forEach((k, n) => (observed[k] = sorted[n] as Observation));
  }
  return { order, timesMs: order.map((i) => (obs[i] as Observation).modelMs), observed };
}

/** A hypothesis replayed against a run. */
export interface Replay {
  /** Every observation fits. */
  explains: boolean;
  /** Position in `pairing.order` of the first that does not fit (-1 when all do). */
  firstMiss: number;
  /** Observations that do not fit. */
  misses: number;
  /** Per position: the model's decision, its replica, whether the observation fits, and the model time used. */
  decisions: Decision[];
  replicas: number[];
  fit: boolean[];
  timesMs: number[];
}

/** Placeholder for the diagnosis's replays, which record nothing. */
const FAST = {
  decision: {
    outcome: 'admit',
    delayMs: 0,
    retryAfterMs: 0,
    remaining: 0,
    limit: 0,
    resetMs: 0,
  } as Decision,
  replica: 0,
};

/** Times a decision may be moved by, within the tolerance: later first (the network's way). */
export function shifts(toleranceMs: number): number[] {
  const tol = Math.max(1, Math.ceil(toleranceMs));
  return [...new Set([1, -1, Math.ceil(tol / 4), Math.ceil(tol / 2), tol, -2])];
}

/**
 * Replays `h` over the run in decision order. A request whose observation does not fit at its send
 * time is decided again at times within the tolerance (the network and the gateway's clock are not
 * exact); the first time that fits is kept. With `stopAtMiss` it stops at the first request no such
 * time explains and records nothing (the diagnosis, thousands of candidates); otherwise it goes on
 * and records every decision (the verdict's expected-against-got).
 *
 * The model is not copied before each request: a request that does not fit is rare in a candidate
 * that explains the run and final in one that does not, so the state just before it is rebuilt by
 * deciding the requests before it again, at the times kept.
 */
export function replay(
  h: Hypothesis,
  plan: Plan,
  p: Pairing,
  toleranceMs: number,
  stopAtMiss: boolean,
  idle?: Limiter,
): Replay {
  let run = ModelRun.start(h, idle);
  const out: Replay = {
    explains: true,
    firstMiss: -1,
    misses: 0,
    decisions: [],
    replicas: [],
    fit: [],
    timesMs: [],
  };
  const offsets = shifts(toleranceMs);
  const slots = p.order.map((i) => plan.requests[i]?.slot ?? 0);
  const times = p.timesMs.slice();
  for (let k = 0; k < p.order.length; k += 1) {
    const slot = slots[k] as number;
    const o = p.observed[k] as Observation;
    const t = p.timesMs[k] as number;
    let got = stopAtMiss ? FAST : run.decide({ timeMs: t, slot });
    let ok = stopAtMiss
      ? fits(run.decideNow(t, slot), o, toleranceMs)
      : fits(got.decision, o, toleranceMs);
    if (!ok) {
      // Back to the state just before request k, then other times for it.
      run = ModelRun.start(h, idle);
      for (let j = 0; j < k; j += 1) run.decideNow(times[j] as number, slots[j] as number);
      const saved = run.snapshot(slot);
      for (let n = 0; !ok && n < offsets.length; n += 1) {
        if (n > 0) run.restore(saved);
        const at = t + (offsets[n] as number);
        got = run.decide({ timeMs: at, slot });
        ok = fits(got.decision, o, toleranceMs);
        if (ok) times[k] = at;
      }
      if (!ok) {
        // No time fits: the decision at the send time stands (what the verdict shows as expected).
        run.restore(saved);
        got = run.decide({ timeMs: t, slot });
        if (out.explains) out.firstMiss = k;
        out.explains = false;
        out.misses += 1;
        if (stopAtMiss) return out;
      }
    }
    if (!stopAtMiss) {
      out.decisions.push(got.decision);
      out.replicas.push(got.replica);
      out.fit.push(ok);
      out.timesMs.push(times[k] as number);
    }
  }
  return out;
}
