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
  /**
   * The tolerance for this request: the run's, or more when the rejected answers of its own burst
   * were slower (a burst of new connections on a busy machine), ms.
   */
  toleranceMs: number;
  /** Its send time on the model's clock, whole ms. */
  modelMs: number;
  /** Its answer's first byte on the model's clock, whole ms (rounded up); `modelMs` without one. */
  answerModelMs: number;
  request: ObservedRequest | null;
}

/** The run's timing, measured from its own requests. */
export interface Timing {
  /** 95th percentile of (sent − planned), ms. */
  sendErrorP95Ms: number;
  /** The quickest answers' latency (5th percentile), ms. */
  baselineMs: number;
  /**
   * The longest an answer the gateway did not hold may take: the slowest rejected answers (a
   * limiter rejects at once, so theirs is the network's and the machine's own delay), with a
   * margin. A passed answer slower than this was held. ms.
   */
  toleranceMs: number;
  /** Median latency of answers not held (the rejected ones, when there are 5 or more), ms. */
  medianMs: number;
  /** The smallest gap between two planned instants: what the plan needs told apart, ms. */
  resolutionMs: number;
}

/** The smallest tolerance ever used (a loopback run is often within a millisecond). */
export const MIN_TOLERANCE_MS = 20;

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

/** The run's timing (see `Timing`). */
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
  // Rejected requests are answered at once by every limiter: the slowest of them bound the run's
  // own delays, and a passed answer, which does more (a body, a backend), gets half as much again.
  // Without enough of them, the median answer stands in.
  const slowest = rejected.length >= 5 ? quantile(rejected, 0.99) : quantile(latencies, 0.5);
  let resolutionMs = Number.POSITIVE_INFINITY;
  for (let k = 1; k < plan.requests.length; k += 1) {
    const gap = (plan.requests[k]?.atMs ?? 0) - (plan.requests[k - 1]?.atMs ?? 0);
    if (gap > 0) resolutionMs = Math.min(resolutionMs, gap);
  }
  return {
    sendErrorP95Ms: Math.max(0, quantile(errors, 0.95)),
    baselineMs,
    // Of answers not held: the rejected ones when there are enough.
    medianMs: rejected.length >= 5 ? quantile(rejected, 0.5) : quantile(latencies, 0.5),
    toleranceMs: Math.ceil(
      Math.max(MIN_TOLERANCE_MS, baselineMs + MIN_TOLERANCE_MS, 1.5 * slowest + 10),
    ),
    resolutionMs: Number.isFinite(resolutionMs) ? resolutionMs : 1000,
  };
}

/** Every planned request as observed (in plan order), on the model's clock. */
export function observe(plan: Plan, result: ProbeResult, timing: Timing): Observation[] {
  const byIndex = new Map(result.requests.map((r) => [r.i, r]));
  // Per group sent at once: its slowest rejected answer (rejected answers are never held).
  const slowestReject = new Map<number, number>();
  for (const p of plan.requests) {
    const r = byIndex.get(p.i);
    if (r === undefined || r.status === null || r.status < 400 || r.firstByteMs === null) continue;
    const l = r.firstByteMs - r.sentMs;
    slowestReject.set(p.group, Math.max(slowestReject.get(p.group) ?? 0, l));
  }
  return plan.requests.map((p) => {
    const r = byIndex.get(p.i) ?? null;
    const kind: ObservedKind = r === null ? 'unsent' : kindOf(r);
    const sentMs = r === null || kind === 'unsent' ? p.atMs : r.sentMs;
    const latencyMs =
      r !== null && r.firstByteMs !== null && r.status !== null ? r.firstByteMs - r.sentMs : null;
    const heldMs = latencyMs === null ? 0 : Math.max(0, latencyMs - timing.baselineMs);
    const local = slowestReject.get(p.group);
    const tolerance = Math.ceil(
      Math.max(timing.toleranceMs, local === undefined ? 0 : 1.5 * local + 10),
    );
    return {
      i: p.i,
      kind,
      status: r?.status ?? null,
      sentMs,
      latencyMs,
      heldMs,
      delayed: kind !== 'reject' && latencyMs !== null && latencyMs > tolerance,
      toleranceMs: tolerance,
      modelMs: modelTime(result.epochStartMs, sentMs),
      answerModelMs:
        latencyMs === null
          ? modelTime(result.epochStartMs, sentMs)
          : modelTime(result.epochStartMs, sentMs + latencyMs) + 1,
      request: r,
    };
  });
}

/**
 * Whether a model decision is what the observation shows (any decision fits no answer): the same
 * outcome, and a passed request answered after the model's delay — within the run's tolerance
 * when the model holds it not at all (timers may fire a little late under load: 5 % more).
 */
export function fits(d: Decision, o: Observation, runToleranceMs: number): boolean {
  if (o.kind === 'error' || o.kind === 'unsent') return true;
  const toleranceMs = Math.max(runToleranceMs, o.toleranceMs);
  if (d.outcome === 'reject') return o.kind === 'reject';
  if (o.kind === 'reject') return false;
  const latency = o.latencyMs ?? 0;
  if (d.delayMs === 0) return latency <= toleranceMs;
  return latency >= d.delayMs - 2 && latency <= d.delayMs * 1.05 + toleranceMs;
}

/** Requests the search gives one decision time: a group sent at once, or a single request. */
export interface Unit {
  /** Positions in `Pairing.order`, consecutive. */
  from: number;
  to: number;
  /** The times tried for it, the likeliest first (see `decisionTimes`). */
  times: number[];
}

/** The order the gateway is taken to have decided the requests in, with the observation each pairs with. */
export interface Pairing {
  /** Plan indices in decision order (each sent request once). */
  order: number[];
  /** Per position: the model time of the request sent k-th. */
  timesMs: number[];
  /** Per position: the observation the model's k-th decision is compared with. */
  observed: Observation[];
  /** Per position: the key slot. */
  slots: number[];
  /** The positions in units, in order. */
  units: Unit[];
  /** The epoch ms model time 0 stands for (modelOrigin of the run's start): the models' origin. */
  originMs: number;
}

/** Rank of an observation within a group sent at once: what a gateway passes first. */
function rank(o: Observation): number {
  if (o.kind === 'pass' || o.kind === 'redirect') return o.delayed ? 1 + o.heldMs / 1e7 : 0;
  if (o.kind === 'reject') return 3;
  return 4;
}

/** A remaining count the answer states (X-RateLimit-Remaining, RateLimit-Remaining, RateLimit r=). */
function remainingOf(o: Observation): number {
  for (const [name, value] of o.request?.headers ?? []) {
    if (/remaining/i.test(name)) {
      const n = Number.parseInt(value, 10);
      if (Number.isFinite(n)) return n;
    }
    if (name === 'ratelimit') {
      const m = /(?:^|[;,\s])r=(\d+)/.exec(value);
      if (m !== null) return Number(m[1]);
    }
  }
  return 0;
}

/** The order a limiter hands a burst's answers out in: by rank, then the most remaining first. */
function handedOut(a: Observation, b: Observation): number {
  return rank(a) - rank(b) || remainingOf(b) - remainingOf(a) || a.i - b.i;
}

/**
 * The times a unit may have been decided at, from its last request's send time (a millisecond
 * earlier for the gateway's cached clock) to its first answer; the answer first, or the sending
 * first for a request the gateway held (`held`). A gateway answers
 * a request it does not hold as soon as it has decided, but may read it late (a busy machine, a
 * queue): the answer is the better guess, and on a quiet network the two are a millisecond apart.
 */
export function decisionTimes(lo: number, hi: number, held = false): number[] {
  const top = Math.max(lo, hi);
  const span = top - lo;
  // A request the gateway held was decided on arrival and answered when its delay ran out: its
  // answer says nothing of when it was decided, its sending does.
  const first = held ? [lo, lo + 1, lo - 1] : [top - 1, top];
  const out = [
    ...first,
    top - 1,
    top,
    lo + Math.ceil(span / 2),
    lo + Math.ceil((3 * span) / 4),
    lo + Math.ceil(span / 4),
    lo + 1,
    lo,
    lo - 1,
  ];
  return [...new Set(out.filter((t) => t >= lo - 1 && t <= top))];
}

/** How far apart a group's sends, and its answers, may be for it to be decided at one time, ms. */
export const GROUP_SPREAD_MS = 10;

/**
 * How much wider than each request's own window (send to answer) a decision time is looked for
 * when the run was too uneven to place requests exactly: the median answer or the p95 lateness of
 * sending, whichever is larger, up to the plan's finest spacing. On a quiet network, about 1 ms.
 */
export function unevenMs(t: Timing): number {
  return Math.ceil(Math.min(t.resolutionMs, Math.max(t.medianMs, t.sendErrorP95Ms)));
}

/**
 * Requests in the order they were sent (with `widenMs`, each window wider by that on both sides;
 * with `sendFirst`, each unit's sending tried first as its decision time: a harness that read its
 * answers late puts them after the decision by more than the network's own delay);
 * within a group sent together for one key the gateway may
 * have taken them in any order, so the group's answers are paired with its requests sorted as a
 * limiter hands them out: passed at once first, then by how long they were held, then rejected,
 * then unanswered. A group is decided at one time (a gateway reads a burst in one go) when one
 * time fits all its requests' windows; otherwise each of its requests is a unit of its own.
 */
export function pairing(
  plan: Plan,
  obs: readonly Observation[],
  widenMs = 0,
  sendFirst = false,
  originMs = 0,
): Pairing {
  // By send time, a group kept together (at its first request's time): the runner sends a group's
  // requests back to back, and the gateway may take them in any order anyway.
  const sent = obs.filter((o) => o.kind !== 'unsent');
  const groupStart = new Map<number, number>();
  for (const o of sent) {
    const g = plan.requests[o.i]?.group ?? -1;
    groupStart.set(g, Math.min(groupStart.get(g) ?? Number.POSITIVE_INFINITY, o.sentMs));
  }
  const key = (i: number) => {
    const g = plan.requests[i]?.group ?? -1;
    return { start: groupStart.get(g) ?? 0, g, at: (obs[i] as Observation).sentMs };
  };
  const order = sent
    .map((o) => o.i)
    .sort((a, b) => {
      const x = key(a);
      const y = key(b);
      return x.start - y.start || x.g - y.g || x.at - y.at || a - b;
    });
  const groupOf = (k: number) => plan.requests[order[k] as number]?.group ?? -1;
  const observed: Observation[] = order.map((i) => obs[i] as Observation);
  const timesMs = order.map((i) => (obs[i] as Observation).modelMs);
  const units: Unit[] = [];
  for (let from = 0; from < order.length;) {
    let to = from + 1;
    while (to < order.length && groupOf(to) === groupOf(from)) to += 1;
    if (to - from > 1) {
      const sorted = observed.slice(from, to).sort(handedOut);
      sorted.forEach((o, n) => (observed[from + n] = o));
    }
    // One time for the group, after its last send and before its first answer, when it was sent
    // and answered together (within GROUP_SPREAD_MS); a burst spread out by a busy machine or
    // network is looked at request by request.
    const sends = timesMs.slice(from, to);
    const answers = observed.slice(from, to).map((o) => o.answerModelMs);
    const lo = Math.max(...sends);
    const hi = Math.min(...answers);
    const together =
      lo - Math.min(...sends) <= GROUP_SPREAD_MS && Math.max(...answers) - hi <= GROUP_SPREAD_MS;
    if (together && hi >= lo - 1) {
      const held = observed.slice(from, to).some((o) => o.delayed);
      units.push({ from, to, times: decisionTimes(lo - widenMs, hi + widenMs, held || sendFirst) });
    } else {
      for (let k = from; k < to; k += 1) {
        const o = observed[k] as Observation;
        const times = decisionTimes(
          (timesMs[k] as number) - widenMs,
          o.answerModelMs + widenMs,
          o.delayed || sendFirst,
        );
        units.push({ from: k, to: k + 1, times });
      }
    }
    from = to;
  }
  return {
    order,
    timesMs,
    observed,
    slots: order.map((i) => plan.requests[i]?.slot ?? 0),
    units,
    originMs,
  };
}

/** A hypothesis replayed against a run. */
export interface Replay {
  /** Every observation fits. */
  explains: boolean;
  /** Position in `pairing.order` of the first that does not fit (-1 when all do). */
  firstMiss: number;
  /** Observations that do not fit. */
  misses: number;
  /** Per position (recorded by the verdict's replay only): the model's decision, its replica, whether it fits, the model time. */
  decisions: Decision[];
  replicas: number[];
  fit: boolean[];
  timesMs: number[];
}

/**
 * How far back the search may revise units' times, and how much it may work per request: the
 * verdict's one replay looks further back than the diagnosis's thousands.
 */
const BACKTRACK_UNITS = { verdict: 10, diagnosis: 8 } as const;
const WORK_PER_REQUEST = { verdict: 64, diagnosis: 24 } as const;

/**
 * Replays `h` over the run in decision order, looking for decision times that explain every
 * observation: each unit (a group sent at once, or one request) is decided at one time between its
 * sending and its first answer (when the gateway took it is not known more exactly than that), the
 * likeliest first. When a unit fits at no time, the few units before it are tried at their other
 * times, each followed by the likeliest fitting times up to it again (at most `BACKTRACK_UNITS`
 * back, with a bounded amount of work). With `stopAtMiss` it stops at the first unit nothing
 * explains (the diagnosis, thousands of candidates); otherwise it goes on past it and records every
 * decision (the verdict's expected-against-got).
 */
export function replay(
  h: Hypothesis,
  plan: Plan,
  p: Pairing,
  toleranceMs: number,
  stopAtMiss: boolean,
  idle?: Limiter,
): Replay {
  void plan;
  const mode = stopAtMiss ? 'diagnosis' : 'verdict';
  const back = BACKTRACK_UNITS[mode];
  const work = WORK_PER_REQUEST[mode];
  const units = p.units;
  const choice = new Int32Array(units.length);
  let run = ModelRun.start(h, idle, p.originMs);
  let budget = work * p.order.length + 200;
  let firstMissUnit = -1;
  let floor = 0;

  /** Decides unit u at time index c on `run`; whether every request of it fits. */
  const decideAt = (u: number, c: number): boolean => {
    const unit = units[u] as Unit;
    const at = unit.times[c] as number;
    budget -= unit.to - unit.from;
    for (let k = unit.from; k < unit.to; k += 1) {
      const d = run.decideNow(at, p.slots[k] as number);
      const o = p.observed[k] as Observation;
      if (!(fits(d, o, toleranceMs) && at + d.delayMs <= o.answerModelMs + 1)) return false;
    }
    return true;
  };
  /**
   * Decides unit u at the first of its times that fits. A unit's requests are of one key, so
   * trying another time only needs that key's state put back. On failure the model is as before u.
   */
  const settle = (u: number): boolean => {
    const unit = units[u] as Unit;
    const saved = run.snapshotSlot(p.slots[unit.from] as number);
    for (let c = 0; c < unit.times.length && budget > 0; c += 1) {
      if (c > 0) run.restoreSlot(saved);
      if (decideAt(u, c)) {
        choice[u] = c;
        return true;
      }
    }
    run.restoreSlot(saved);
    return false;
  };
  /** The model just before unit u, every unit before it at its chosen time. */
  const rebuild = (u: number) => {
    run = ModelRun.start(h, idle, p.originMs);
    for (let w = 0; w < u; w += 1) {
      const unit = units[w] as Unit;
      const at = unit.times[choice[w] as number] as number;
      for (let k = unit.from; k < unit.to; k += 1) run.decideNow(at, p.slots[k] as number);
      budget -= unit.to - unit.from;
    }
  };

  for (let u = 0; u < units.length; u += 1) {
    if (settle(u)) continue;
    // Unit u fits at no time: move one of the units just before it, then settle the rest again.
    let repaired = false;
    for (let v = u - 1; !repaired && v >= Math.max(floor, u - back) && budget > 0; v -= 1) {
      const times = (units[v] as Unit).times;
      const was = choice[v] as number;
      for (let c = 0; !repaired && c < times.length && budget > 0; c += 1) {
        if (c === was) continue;
        rebuild(v);
        if (!decideAt(v, c)) continue;
        choice[v] = c;
        let w = v + 1;
        while (w <= u && settle(w)) w += 1;
        repaired = w > u;
        if (!repaired) choice[v] = was;
      }
    }
    if (repaired) continue;
    // Nothing explains unit u's requests.
    if (firstMissUnit < 0) firstMissUnit = u;
    if (stopAtMiss) break;
    // The verdict goes on: unit u at its likeliest time, and a fresh budget for the rest.
    choice[u] = 0;
    rebuild(u);
    decideAt(u, 0);
    floor = u + 1;
    budget = Math.max(budget, work * (p.order.length - (units[u] as Unit).to) + 200);
  }

  const out: Replay = {
    explains: firstMissUnit < 0,
    firstMiss: firstMissUnit < 0 ? -1 : (units[firstMissUnit] as Unit).from,
    misses: 0,
    decisions: [],
    replicas: [],
    fit: [],
    timesMs: [],
  };
  if (stopAtMiss) return out;
  // The record: every request decided at its unit's chosen time.
  run = ModelRun.start(h, idle, p.originMs);
  for (let w = 0; w < units.length; w += 1) {
    const unit = units[w] as Unit;
    const at = unit.times[choice[w] as number] as number;
    for (let k = unit.from; k < unit.to; k += 1) {
      const { decision, replica } = run.decide({ timeMs: at, slot: p.slots[k] as number });
      const o = p.observed[k] as Observation;
      const ok = fits(decision, o, toleranceMs) && at + decision.delayMs <= o.answerModelMs + 1;
      out.decisions.push(decision);
      out.replicas.push(replica);
      out.fit.push(ok);
      out.timesMs.push(at);
      if (!ok) out.misses += 1;
    }
  }
  return out;
}
