/**
 * The validation plan: from one limiter of a configuration (its system and parameters), the key
 * the gateway reads and, for a fleet, its replicas, the requests that test it — a burst beyond what
 * passes at once, steady load at 1.2 × the rate, a pause that lets the state refill, several keys
 * at once and, for windows, a burst on each side of a window edge — each with its planned send
 * time, key and the response the model expects. Small and bounded: the plan states its request
 * count, duration and peak rate before anything is sent.
 *
 * Pure: a function of its inputs (no clock, no randomness), so the page and the command line build
 * the same plan from the same link, and a result file names the plan it ran by its hash.
 */
import type { AlgorithmConfig, Decision, Outcome } from '../core';
import { nginxRateMilli, plural, quotaOf, quoteText, rejectStatus } from '../core';
import type { LimiterEntry, PlaygroundConfig } from '../config';
import { systemOf } from '../systems';
import { entryResponse } from '../systems/respond';
import { fingerprint } from './hash';
import type { Hypothesis, ModelRequest } from './model';
import { MODEL_DAY_MS, ModelRun, modelKey } from './model';

/** The plan format; a result names it. */
export const PLAN_VERSION = 1;

/** How the runner tells the gateway which client a request is from. */
export type KeyMode =
  /** A request header holds the key (X-Forwarded-For, an API-key header …). */
  | { kind: 'header'; name: string }
  /** The client's address: on loopback the runner sends each key from its own 127.0.0.x. */
  | { kind: 'address' }
  /** The gateway keys every request alike (Envoy's local_ratelimit): one key. */
  | { kind: 'none' };

/** A header name the runner may set: an HTTP token (RFC 9110 §5.1), not one the client owns. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'expect',
]);

/** Reads a key mode as the command line and the page write it: `header:<Name>`, `address`, `none`. */
export function parseKeyMode(text: string): KeyMode | string {
  const t = text.trim();
  if (t === 'address') return { kind: 'address' };
  if (t === 'none') return { kind: 'none' };
  const m = /^header:(.*)$/i.exec(t);
  if (m !== null) {
    const name = (m[1] ?? '').trim();
    if (!HEADER_NAME.test(name)) {
      return `the header name must be 1 to 64 letters, digits or - _ . ! # $ % & ' * + ^ \` | ~, got ${quoteText(name, 64)}`;
    }
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      return `the header ${name} belongs to the HTTP client; choose the header your gateway keys by`;
    }
    return { kind: 'header', name };
  }
  return `the key must be header:<Name>, address or none, got ${quoteText(t, 64)}`;
}

/** The key mode as text (what parseKeyMode reads). */
export function keyModeText(k: KeyMode): string {
  return k.kind === 'header' ? `header:${k.name}` : k.kind;
}

/**
 * The key mode a system's export sets up: the client address for the proxies and libraries (nginx
 * `$binary_remote_addr`, HAProxy `track-sc0 src`, express-rate-limit `req.ip` …), none for Envoy's
 * local_ratelimit (one bucket for the route).
 */
export function defaultKeyMode(entry: Pick<LimiterEntry, 'system' | 'config'>): KeyMode {
  return systemOf(entry).id === 'envoy' ? { kind: 'none' } : { kind: 'address' };
}

/** The value the runner sends for key slot `slot` (documentation addresses, RFC 5737). */
export function keyValue(mode: KeyMode, slot: number): string {
  if (mode.kind === 'address') return `127.0.0.${10 + slot}`;
  if (mode.kind === 'header') return `198.51.100.${10 + slot}`;
  return '';
}

/** What a probe checks: one limiter of a configuration and its deployment. */
export interface ProbeSubject {
  entry: LimiterEntry;
  /** The limiter's lane in the configuration, for the words. */
  lane: number;
  /** Replicas the configuration runs (1 for a single instance). */
  replicas: number;
  /** Whether each replica keeps its own state. */
  state: 'local' | 'shared';
}

/** The subject of lane `lane` of `config`, or why the probe cannot check it. */
export function subjectOf(config: PlaygroundConfig, lane: number): ProbeSubject | string {
  const entry = config.limiters[lane];
  if (entry === undefined) {
    return `the link has ${plural(config.limiters.length, 'limiter')}; there is no limiter ${lane + 1}`;
  }
  const d = config.scenario.deployment;
  const replicas = d.instances;
  if (replicas > 1 && d.balancer !== 'round-robin') {
    return `the link's ${plural(replicas, 'instance')} sit behind a ${d.balancer} balancer; the probe models round robin only (the order requests reach each replica must be known)`;
  }
  if (d.state === 'local-divided' || d.state === 'layered') {
    return `the link's fleet runs ${d.state === 'layered' ? 'layered limits' : 'a limit divided between replicas'}; the probe checks one limit, local to each replica or shared by all`;
  }
  if (d.fleet?.scale !== undefined || d.fleet?.autoscale !== undefined) {
    return 'the link’s fleet scales while it runs; the probe checks a fixed number of replicas';
  }
  return {
    entry,
    lane,
    replicas,
    state: replicas === 1 || d.state === 'local' ? 'local' : 'shared',
  };
}

/** What a plan may hold unless the person raises it. */
export interface PlanLimits {
  /** Largest burst sent at once. Default 400. */
  maxBurst: number;
  /** Steady load above this rate is not planned (the runner's schedule holds to 500 r/s). */
  maxRatePerSec: number;
  /** Longest pause waiting for the state to refill. Default 30 s. */
  maxPauseMs: number;
  /** Longest steady phase. Default 20 s. */
  maxSteadyMs: number;
}

export const DEFAULT_PLAN_LIMITS: PlanLimits = {
  maxBurst: 400,
  maxRatePerSec: 500,
  maxPauseMs: 30_000,
  maxSteadyMs: 20_000,
};

/** The plan's inputs beyond the subject. */
export interface PlanOptions {
  key: KeyMode;
  /**
   * Distinct keys the runner can send: 1 for `none`, and for `address` off loopback (a client has
   * one address); 4 otherwise.
   */
  keySlots: number;
  limits?: Partial<PlanLimits>;
}

export type PhaseId = 'burst' | 'steady' | 'refill' | 'keys' | 'boundary';

/** One check of the plan. */
export interface PlanPhase {
  id: PhaseId;
  /** What it sends, e.g. "44 at once from key 1". */
  label: string;
  /** Its first and last planned send time, ms from the start. */
  fromMs: number;
  toMs: number;
  /** Its requests (indices into `requests`). */
  first: number;
  count: number;
}

/** What the model expects for one request. */
export interface Expected {
  outcome: Outcome;
  /** How long the gateway holds it before answering (nginx delay, x/time/rate wait …), ms. */
  delayMs: number;
  retryAfterMs: number;
  remaining: number;
  /** The status the system sends. */
  status: number;
  /** The replica it reaches (round robin; 0 with one replica). */
  replica: number;
}

/** One planned request. */
export interface PlannedRequest {
  /** Its index in the plan (also in the result file). */
  i: number;
  /** Planned send time, whole ms from the start. */
  atMs: number;
  /** Key slot: the key's value is `keyValue(plan.key, slot)`. */
  slot: number;
  phase: PhaseId;
  /** Requests of one group are sent together for one key: the gateway may take them in any order. */
  group: number;
  expect: Expected;
}

/** A validation plan. */
export interface Plan {
  version: typeof PLAN_VERSION;
  /** 16 hex digits over everything below: a result file names its plan by it. */
  hash: string;
  subject: ProbeSubject;
  /** The system's display name and version. */
  systemName: string;
  key: KeyMode;
  keySlots: number;
  /** Requests in the order they are sent (planned time, then index). */
  requests: PlannedRequest[];
  phases: PlanPhase[];
  /** From the first send to the last expected answer, ms. */
  durationMs: number;
  /** Most requests planned in any 1 s. */
  peakPerSecond: number;
  /** The largest group sent at once. */
  largestBurst: number;
  /**
   * The period the limiter's windows are aligned to on the wall clock (fixed windows, calendar
   * windows): the runner starts on a multiple of it when it is at most a minute. Null otherwise.
   */
  alignMs: number | null;
  /** What the plan leaves out and why. */
  notes: string[];
  /** The limits it was made under. */
  limits: PlanLimits;
}

/** requests per ms at which the limiter passes requests in the long run, and what passes at once. */
export function rateOf(config: AlgorithmConfig): {
  perMs: number;
  atOnce: number;
  windowMs: number;
} {
  const q = quotaOf(config);
  switch (config.kind) {
    case 'leaky-bucket':
      return {
        perMs: nginxRateMilli(config.rate, config.rateUnit) / 1e6,
        atOnce: q.limit,
        windowMs: q.windowMs,
      };
    case 'token-bucket':
      return {
        perMs: config.tokensPerFill / config.fillIntervalMs,
        atOnce: q.limit,
        windowMs: q.windowMs,
      };
    case 'gcra':
      return { perMs: config.count / config.periodMs, atOnce: q.limit, windowMs: q.windowMs };
    default:
      return { perMs: q.limit / q.windowMs, atOnce: q.limit, windowMs: q.windowMs };
  }
}

/**
 * Whether the limiter counts requests in windows (fixed, sliding counter or log, anchored,
 * calendar), so that a window's edge decides, rather than a rate that refills continuously.
 */
export function countsInWindows(config: AlgorithmConfig): boolean {
  return (
    config.kind === 'fixed-window' ||
    config.kind === 'sliding-window-counter' ||
    config.kind === 'sliding-log' ||
    config.kind === 'anchored-window' ||
    config.kind === 'calendar-windows'
  );
}

/** Whether the limiter's windows start with each key's first request (anchored, HAProxy, logs). */
function perKeyWindows(config: AlgorithmConfig): boolean {
  return (
    config.kind === 'anchored-window' ||
    config.kind === 'sliding-log' ||
    (config.kind === 'sliding-window-counter' && config.anchor === 'entry')
  );
}

/** Whether decisions depend on where the run starts on the wall clock (and on what period). */
function alignmentOf(config: AlgorithmConfig): number | null {
  switch (config.kind) {
    case 'fixed-window':
      return config.windowMs;
    case 'sliding-window-counter':
      return config.anchor === 'entry' ? null : config.windowMs;
    case 'calendar-windows':
      return quotaOf(config).windowMs;
    case 'token-bucket':
      if (config.refill === 'interval') return config.fillIntervalMs;
      return config.idleResetS === undefined ? null : 1000;
    default:
      return null;
  }
}

/** The hypothesis the configuration itself states. */
export function configuredHypothesis(subject: ProbeSubject): Hypothesis {
  return {
    config: subject.entry.config,
    replicas: subject.replicas,
    state: subject.state,
    offset: 0,
    keying: 'planned',
  };
}

/** The policy name a system's headers carry for this limiter (the simulator's lane name). */
export function policyNameOf(entry: LimiterEntry): string {
  return entry.name ?? entry.config.kind;
}

/** The system's status for a decision of this entry. */
export function statusOf(entry: LimiterEntry, d: Decision): number {
  return d.outcome === 'reject' ? rejectStatus(entry.config) : 200;
}

interface Draft {
  atMs: number;
  slot: number;
  phase: PhaseId;
  group: number;
}

/** A plan, or why there is none. */
export type PlanOutcome = { ok: true; plan: Plan } | { ok: false; reason: string };

/** Builds the plan for `subject`. Never throws for a valid config (the schema's ranges). */
export function buildPlan(subject: ProbeSubject, options: PlanOptions): PlanOutcome {
  const limits: PlanLimits = { ...DEFAULT_PLAN_LIMITS, ...options.limits };
  const config = subject.entry.config;
  const system = systemOf(subject.entry);
  const h = configuredHypothesis(subject);
  const { perMs, atOnce, windowMs } = rateOf(config);
  const r = subject.state === 'local' ? subject.replicas : 1;
  const notes: string[] = [];
  const keySlots = Math.max(1, Math.min(8, Math.floor(options.keySlots)));

  // Requests are drafted phase by phase; the model decides each phase as it is drafted, so a pause
  // can wait exactly as long as the state takes to refill.
  const drafts: Draft[] = [];
  const phases: PlanPhase[] = [];
  const run = ModelRun.start(h);
  /** Per slot: the model time from which the slot's key is idle again on every replica. */
  const idleAt = new Map<number, number>();
  let lastMs = 0;
  let group = 0;
  const decideDrafts = (from: number) => {
    for (let i = from; i < drafts.length; i += 1) {
      const d = drafts[i] as Draft;
      const { decision } = run.decide({ timeMs: MODEL_DAY_MS + d.atMs, slot: d.slot });
      const idle = MODEL_DAY_MS + d.atMs + decision.delayMs + decision.resetMs;
      idleAt.set(d.slot, Math.max(idleAt.get(d.slot) ?? 0, idle));
      lastMs = Math.max(lastMs, d.atMs + decision.delayMs);
    }
  };
  const addGroup = (atMs: number, slot: number, count: number, phase: PhaseId) => {
    for (let k = 0; k < count; k += 1) drafts.push({ atMs, slot, phase, group });
    group += 1;
  };
  const phase = (id: PhaseId, label: string, first: number) => {
    const mine = drafts.slice(first);
    if (mine.length === 0) return;
    phases.push({
      id,
      label,
      fromMs: (mine[0] as Draft).atMs,
      toMs: (mine[mine.length - 1] as Draft).atMs,
      first,
      count: mine.length,
    });
    decideDrafts(first);
  };
  /** Plan time from which `slot` is idle again, after at least `gapMs` from `afterMs`. */
  const refilled = (slot: number, afterMs: number): number => {
    const idle = (idleAt.get(slot) ?? 0) - MODEL_DAY_MS;
    const wait = Math.max(0, idle - afterMs);
    return afterMs + wait + Math.max(250, Math.ceil(wait / 10));
  };

  // 1. Burst: twice what passes at once (on every replica the configuration has), plus two.
  const burst = Math.min(limits.maxBurst, 2 * r * atOnce + 2);
  if (burst < r * atOnce + 1) {
    return {
      ok: false,
      reason: `${plural(r * atOnce, 'request')} pass at once; a burst beyond that needs more than the ${plural(limits.maxBurst, 'request')} a burst may hold (--max-burst raises it)`,
    };
  }
  addGroup(0, 0, burst, 'burst');
  phase(
    'burst',
    `${burst} at once (${burst === 2 * r * atOnce + 2 ? 'twice what passes at once, plus 2' : 'capped'})`,
    0,
  );

  // 2. Steady load at 1.2 × the rate, right after the burst: the state is spent, so the excess
  // shows at once, at the configured rate.
  const steadyPerSec = 1.2 * perMs * 1000 * r;
  let end = (drafts[drafts.length - 1] as Draft).atMs;
  if (steadyPerSec > limits.maxRatePerSec) {
    notes.push(
      `Steady load at 1.2 × the rate would be ${steadyPerSec.toFixed(0)} requests/s, above the ${limits.maxRatePerSec} requests/s the probe sends (--max-rate raises it): left out.`,
    );
  } else {
    const gapMs = 1000 / steadyPerSec;
    const wantMs = Math.max(3000, perKeyWindows(config) ? 2 * windowMs : 0, 15 * gapMs);
    const steadyMs = Math.min(limits.maxSteadyMs, wantMs);
    const n = Math.floor(steadyMs / gapMs);
    if (n < 6) {
      notes.push(
        `At ${steadyPerSec < 1 ? `${(steadyPerSec * 60).toFixed(2)} requests/min` : `${steadyPerSec.toFixed(2)} requests/s`} a steady phase of ${Math.round(limits.maxSteadyMs / 1000)} s holds fewer than 6 requests: left out (--max-steady raises it).`,
      );
    } else {
      const first = drafts.length;
      const start = end + Math.max(50, Math.ceil(gapMs));
      for (let k = 0; k < n; k += 1) addGroup(start + Math.floor(k * gapMs), 0, 1, 'steady');
      phase(
        'steady',
        `${n} over ${(steadyMs / 1000).toFixed(1)} s at ${steadyPerSec.toFixed(1)} requests/s (1.2 × the rate)`,
        first,
      );
      end = (drafts[drafts.length - 1] as Draft).atMs;
    }
  }

  // 3 and 4. A pause until key 1's state is back to idle, then a burst from it (refill) and, at
  // the same instant, from further keys (several keys at once): each should get its own limit.
  const each = r * atOnce + 1;
  const keys = Math.min(3, keySlots);
  const at = refilled(0, Math.max(end, lastMs));
  const refillOk = at - end <= limits.maxPauseMs;
  if (!refillOk) {
    notes.push(
      `The state takes ${((at - end) / 1000).toFixed(0)} s to refill, longer than the ${limits.maxPauseMs / 1000} s the plan waits (--max-pause raises it): the refill check is left out.`,
    );
  }
  const keysAt = refillOk ? at : end + 250;
  if (refillOk) {
    const first = drafts.length;
    addGroup(keysAt, 0, each, 'refill');
    phase(
      'refill',
      `${each} at once from key 1 after ${((keysAt - end) / 1000).toFixed(1)} s`,
      first,
    );
  }
  if (keys > 1) {
    const first = drafts.length;
    for (let s = 1; s < keys; s += 1) addGroup(keysAt, s, each, 'keys');
    phase('keys', `${each} at once from each of keys 2–${keys}`, first);
  } else {
    notes.push(
      options.key.kind === 'none'
        ? 'The gateway keys every request alike (key: none): the several-keys check is left out.'
        : 'Only one client address can be sent from here (the target is not on this machine): the several-keys check is left out. Key by a header (--key header:<Name>) to include it.',
    );
  }
  end = Math.max(end, keysAt);

  // 5. For windows: a burst on each side of a window edge.
  const align = alignmentOf(config);
  const edgeMs = perKeyWindows(config) ? windowMs : align;
  if (countsInWindows(config) && edgeMs !== null) {
    const margin = Math.min(250, Math.max(60, Math.floor(edgeMs / 8)));
    const fresh = keys < keySlots ? keys : null;
    const slot = fresh ?? 0;
    const from = fresh === null ? refilled(0, Math.max(end, lastMs)) : end + 250;
    const opener = perKeyWindows(config);
    // Per-key windows open with the key's first request; aligned ones at the next edge.
    const edge = opener
      ? from + edgeMs
      : Math.ceil((MODEL_DAY_MS + from + margin + 1) / edgeMs) * edgeMs - MODEL_DAY_MS;
    if (edgeMs < 4 * 60) {
      notes.push(
        `The window (${edgeMs} ms) is too short for a burst on each side of its edge: left out.`,
      );
    } else if (edge + margin - end > limits.maxPauseMs) {
      notes.push(
        `The next window edge is ${((edge - end) / 1000).toFixed(0)} s away, longer than the plan waits (${limits.maxPauseMs / 1000} s): the window-edge check is left out.`,
      );
    } else {
      const first = drafts.length;
      if (opener) addGroup(from, slot, 1, 'boundary');
      addGroup(edge - margin, slot, opener ? r * atOnce : each, 'boundary');
      addGroup(edge + margin, slot, each, 'boundary');
      phase(
        'boundary',
        `${opener ? 'one to open the window, then ' : ''}bursts ${margin} ms before and after a window edge from key ${slot + 1}`,
        first,
      );
    }
  }
  if (subject.replicas > 1) {
    notes.push(
      `${plural(subject.replicas, 'replica')} ${subject.state === 'local' ? 'each with its own state' : 'sharing one state'}, requests spread round robin: the plan expects the first request on replica 1.`,
    );
  }

  // The expected response of each request, in sending order (the drafts are in time order).
  const order = drafts.map((d, i) => ({ d, i })).sort((a, b) => a.d.atMs - b.d.atMs || a.i - b.i);
  const model = ModelRun.start(h);
  const policy = policyNameOf(subject.entry);
  const requests: PlannedRequest[] = order.map(({ d }, i) => {
    const mr: ModelRequest = { timeMs: MODEL_DAY_MS + d.atMs, slot: d.slot };
    const { decision, replica } = model.decide(mr);
    const response = entryResponse(subject.entry, decision, policy, {
      nowMs: mr.timeMs,
      key: modelKey(h, d.slot),
    });
    return {
      i,
      atMs: d.atMs,
      slot: d.slot,
      phase: d.phase,
      group: d.group,
      expect: {
        outcome: decision.outcome,
        delayMs: decision.delayMs,
        retryAfterMs: decision.retryAfterMs,
        remaining: decision.remaining,
        status: response.status,
        replica,
      },
    };
  });
  // Phases index the sorted requests.
  for (const p of phases) {
    const idx = requests.filter((q) => q.phase === p.id).map((q) => q.i);
    p.first = Math.min(...idx);
    p.count = idx.length;
  }
  const last = requests.reduce((m, q) => Math.max(m, q.atMs + q.expect.delayMs), 0);
  const plan: Omit<Plan, 'hash'> = {
    version: PLAN_VERSION,
    subject,
    systemName: `${system.name} (${system.version})`,
    key: options.key,
    keySlots,
    requests,
    phases,
    durationMs: last + 500,
    peakPerSecond: peakPerSecond(requests),
    largestBurst: largestGroup(requests),
    alignMs: align !== null && align <= 60_000 ? align : null,
    notes,
    limits,
  };
  return { ok: true, plan: { ...plan, hash: planHash(plan) } };
}

/** Most requests planned within any 1000 ms. */
function peakPerSecond(requests: readonly PlannedRequest[]): number {
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < requests.length; hi += 1) {
    const t = (requests[hi] as PlannedRequest).atMs;
    while ((requests[lo] as PlannedRequest).atMs <= t - 1000) lo += 1;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

function largestGroup(requests: readonly PlannedRequest[]): number {
  const sizes = new Map<number, number>();
  for (const q of requests) sizes.set(q.group, (sizes.get(q.group) ?? 0) + 1);
  return Math.max(0, ...sizes.values());
}

/** 16 hex digits over the plan's subject, key and every request with its expectation. */
export function planHash(plan: Omit<Plan, 'hash'>): string {
  const body = JSON.stringify([
    plan.version,
    plan.subject,
    plan.key,
    plan.keySlots,
    plan.alignMs,
    plan.requests.map((q) => [
      q.atMs,
      q.slot,
      q.phase,
      q.group,
      q.expect.outcome,
      q.expect.delayMs,
      q.expect.status,
      q.expect.replica,
    ]),
  ]);
  return fingerprint(body);
}

/** The plan as a person reads it before anything is sent (the command line prints it). */
export function describePlan(plan: Plan): string[] {
  const s = plan.subject;
  const lines = [
    `Plan for ${plan.systemName}, limiter ${s.lane + 1}${s.replicas > 1 ? `, ${plural(s.replicas, 'replica')} (${s.state === 'local' ? 'each its own state' : 'one shared state'})` : ''}`,
    `Key: ${keyModeDescription(plan.key)}`,
    ...plan.phases.map(
      (p) =>
        `  ${p.id.padEnd(8)} ${plural(p.count, 'request', 'requests', (n) => String(n).padStart(4))} at ${(p.fromMs / 1000).toFixed(2)}–${(p.toMs / 1000).toFixed(2)} s: ${p.label}`,
    ),
    `${plural(plan.requests.length, 'request')} over ${(plan.durationMs / 1000).toFixed(1)} s; peak ${plan.peakPerSecond} in one second, at most ${plan.largestBurst} at once.`,
    ...plan.notes.map((n) => `Note: ${n}`),
  ];
  return lines;
}

/** The key mode in words. */
export function keyModeDescription(k: KeyMode): string {
  if (k.kind === 'header') return `the ${k.name} header (${keyValue(k, 0)}, ${keyValue(k, 1)} …)`;
  if (k.kind === 'address')
    return 'the client address (on this machine: 127.0.0.10, 127.0.0.11 … one per key)';
  return 'none (every request alike)';
}
