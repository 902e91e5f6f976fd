/**
 * The verdict: a run held against its plan's model, request by request and check by check, in
 * plain words with the evidence ("burst: expected 21 to pass at once, got 42", "status: expected
 * 429, got 503", "`Retry-After` missing on 23 rejected responses", "steady: … as configured").
 * "As configured" is said only when every request was answered, every decision is the model's
 * within the run's measured timing tolerance, and the statuses and headers are the system's.
 *
 * Pure: the page runs it in a worker, the command line in Node.
 */
import type { Decision } from '../core';
import { plural, quoteText } from '../core';
import type { SystemHeader } from '../systems';
import { systemOf } from '../systems';
import { entryResponse } from '../systems/respond';
import type { Diagnosis } from './diagnose';
import { diagnose } from './diagnose';
import { ModelRun, modelKey, modelOrigin, modelTime } from './model';
import type { Observation, Pairing, Replay, Timing } from './observe';
import { measureTiming, observe, pairing, quantile, replay, unevenMs } from './observe';
import type { PhaseId, Plan } from './plan';
import { configuredHypothesis, countsInWindows, keyModeText, policyNameOf, rateOf } from './plan';
import type { ProbeResult } from './result';

export type FindingStatus = 'ok' | 'differs' | 'inconclusive' | 'note';

/** One check, in words, with the requests that show it (plan indices). */
export interface Finding {
  check: PhaseId | 'answers' | 'status' | 'headers' | 'timing' | 'run' | 'decisions';
  status: FindingStatus;
  text: string;
  requests: number[];
  /** For a phase: requests the model passes (and holds) against those that passed (and were held). */
  tally?: { wantPass: number; gotPass: number; wantHeld: number; gotHeld: number };
}

/** What the model expected for one request (paired as in `Pairing`), and whether it fits. */
export interface ExpectedAt {
  decision: Decision;
  status: number;
  replica: number;
  /** The model time the decision was taken at. */
  modelMs: number;
  /**
   * Whether this is the plan's own expectation, the configured model at the planned send times
   * (for a request the model explains at no time between its sending and its answer), rather than
   * the model at the time within that window that explains it.
   */
  atPlannedTime: boolean;
  /** The response's header fields the system sends (or the person added). */
  fields: readonly SystemHeader[];
  fit: boolean;
  /** Header problems of this response ("`Retry-After` missing"). */
  headerProblems: string[];
}

export interface Verdict {
  overall: 'as-configured' | 'differs' | 'inconclusive';
  /** One sentence. */
  headline: string;
  findings: Finding[];
  timing: Timing;
  /** Per plan index. */
  observations: Observation[];
  /** Per plan index (null for a request never sent). */
  expected: Array<ExpectedAt | null>;
  diagnosis: Diagnosis;
  counts: { planned: number; sent: number; answered: number; errors: number; unsent: number };
}

const PHASES = new Set<Finding['check']>(['burst', 'steady', 'refill', 'keys', 'boundary']);

/** Headers that vary per server or per response and say nothing about the limit. */
const NOT_COMPARED = new Set([
  'date',
  'content-type',
  'content-length',
  'cache-control',
  'connection',
  'server',
]);
/** Rate-limit headers a gateway may send that the model should show. */
const RATE_HEADER =
  /^(retry-after|ratelimit(-.*)?|x-ratelimit-.*|x-rate-limit-.*|x-retry-in|x-envoy-ratelimited)$/i;

/** Whether a received header value is the expected one: same words, numbers within a tolerance. */
export function headerMatches(name: string, want: string, got: string): boolean {
  const split = (s: string) => s.trim().split(/(-?\d+(?:\.\d+)?)/);
  const a = split(want);
  const b = split(got);
  if (a.length !== b.length) return false;
  // Times (reset, retry) may be a second or two off with the clock; a remaining count one off with
  // the order a burst's requests were taken in; limits and policies are exact.
  const slack = /reset|retry/i.test(name)
    ? 2
    : /remaining/i.test(name)
      ? 1
      : /limit|policy/i.test(name)
        ? 0
        : 2;
  for (let k = 0; k < a.length; k += 1) {
    const x = a[k] as string;
    const y = b[k] as string;
    if (k % 2 === 0) {
      if (x.replace(/\s+/g, '') !== y.replace(/\s+/g, '')) return false;
    } else if (Math.abs(Number(x) - Number(y)) > slack) return false;
  }
  return true;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** A latency in words: whole ms below a second, tenths of a second above. */
const duration = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : seconds(ms));
/** n requests out of `of` sent evenly over `ms` (first to last), as a rate. */
const rate = (n: number, of: number, ms: number) =>
  ms <= 0 || of < 2 ? '—' : `${((n * (of - 1) * 1000) / (of * ms)).toFixed(1)} requests/s`;

/** Judges a run (`result`, read and checked) against its plan. */
export function judge(plan: Plan, result: ProbeResult): Verdict {
  const timing = measureTiming(plan, result);
  const observations = observe(plan, result, timing);
  const h = configuredHypothesis(plan.subject);
  // Decision times are looked for from each answer back first; when that leaves answers the
  // configuration does not explain, from each sending on (answers read late: a busy harness).
  // The models' time 0 stands for this wall time: months and years on the UTC calendar.
  const origin = modelOrigin(result.epochStartMs);
  let p = pairing(plan, observations, 0, false, origin);
  let r = replay(h, plan, p, timing.toleranceMs, false);
  if (!r.explains) {
    const bySend = pairing(plan, observations, 0, true, origin);
    const again = replay(h, plan, bySend, timing.toleranceMs, false);
    if (again.misses < r.misses) {
      p = bySend;
      r = again;
    }
  }
  const planned = plannedDecisions(plan, result, p);
  const expected = expectations(plan, result, p, r, planned);
  const findings: Finding[] = [];
  const counts = {
    planned: plan.requests.length,
    sent: observations.filter((o) => o.kind !== 'unsent').length,
    answered: observations.filter(
      (o) => o.kind === 'pass' || o.kind === 'reject' || o.kind === 'redirect',
    ).length,
    errors: observations.filter((o) => o.kind === 'error').length,
    unsent: observations.filter((o) => o.kind === 'unsent').length,
  };

  runFindings(plan, result, observations, timing, counts, findings);
  phaseFindings(plan, observations, expected, planned, findings);
  statusFindings(plan, observations, expected, findings);
  headerFindings(result, observations, expected, findings);

  const misses = observations.filter((o) => expected[o.i] !== null && expected[o.i]?.fit === false);
  // Differences the run's own unevenness could make: the configuration, given a wider window for
  // each request, explains them all. Then they are not evidence of a fault.
  const uneven = unevenMs(timing);
  const wide = misses.length > 0 ? pairing(plan, observations, uneven, false, origin) : null;
  const wideTolerance = timing.toleranceMs + 2 * uneven;
  const timingExplains = wide !== null && replay(h, plan, wide, wideTolerance, true).explains;
  // On a run too uneven to time, the phases whose requests are spaced closely (steady load, the
  // window edge) are judged by their counts: a few more or fewer than the model, as many as the
  // rate lets pass during the unevenness, are the timing's, not the gateway's.
  const timingUneven = findings.some((f) => f.check === 'timing' && f.status === 'inconclusive');
  const { perMs } = rateOf(plan.subject.entry.config);
  const lanes = plan.subject.state === 'local' ? plan.subject.replicas : 1;
  const allowance = 1 + Math.ceil(perMs * lanes * 2 * uneven);
  for (const f of findings) {
    if (f.status !== 'differs' || !PHASES.has(f.check)) continue;
    const t = f.tally;
    const close =
      t !== undefined &&
      Math.abs(t.gotPass - t.wantPass) <= allowance &&
      Math.abs(t.gotHeld - t.wantHeld) <= allowance;
    if (
      timingExplains ||
      (timingUneven && close && (f.check === 'steady' || f.check === 'boundary'))
    ) {
      f.status = 'inconclusive';
      f.text = `${f.text} (within the run's uneven timing)`;
    }
  }
  if (timingUneven) slowFindings(plan, observations, timing, findings);
  if (misses.length > 0) {
    const phaseDiffers = findings.some((f) => f.status === 'differs' && PHASES.has(f.check));
    findings.push({
      check: 'decisions',
      status: phaseDiffers ? 'differs' : 'inconclusive',
      text: timingExplains
        ? `${plural(misses.length, 'request')} of ${counts.answered} got another decision than the model's between sending and answer, but the run was uneven: allowing ${uneven} ms more either way (and answers up to ${wideTolerance} ms as not held), the configuration explains every one`
        : phaseDiffers
          ? `${plural(misses.length, 'request')} of ${counts.answered} got another decision than the model's at any time between its sending and its answer (the first: request ${(misses[0] as Observation).i + 1}).`
          : `${plural(misses.length, 'request')} of ${counts.answered} got another decision than the model's, each phase within ${allowance} of the model's count: the run was too uneven to tell`,
      requests: misses.map((o) => o.i),
    });
  }

  let diagnosis = diagnose(plan, p, timing, observations);
  if (diagnosis.explaining === 0) {
    const bySend = diagnose(
      plan,
      pairing(plan, observations, 0, true, origin),
      timing,
      observations,
    );
    if (bySend.explaining > 0) diagnosis = bySend;
  }
  if (diagnosis.explaining === 0 && wide !== null && uneven > 1) {
    const widened = diagnose(plan, wide, { ...timing, toleranceMs: wideTolerance }, observations);
    diagnosis = {
      ...widened,
      summary: `Allowing ${uneven} ms more either way for the run's uneven timing: ${widened.summary.charAt(0).toLowerCase()}${widened.summary.slice(1)}`,
    };
  }
  // Every answer a redirect: nothing came from the limited resource, so the phases' counts say
  // nothing about its limit (they would read as "no limit", or as replicas).
  const allRedirected =
    counts.answered > 0 && observations.every((o) => o.kind !== 'pass' && o.kind !== 'reject');
  if (allRedirected) {
    for (const f of findings) {
      if (f.status !== 'differs') continue;
      f.status = 'inconclusive';
      f.text = `${f.text.replace(/\.$/, '')} (every answer was a redirect)`;
    }
    diagnosis = {
      ...diagnosis,
      explanations: [],
      summary:
        'No diagnosis: every request was redirected, so no answer came from the limited address.',
    };
  }
  // Nothing limited at all: the search finds configurations that never limit this plan (many
  // replicas, a wider burst); the plain reading comes first.
  const unlimited = findings.find(
    (f) => f.check === 'decisions' && f.text.startsWith('no request was limited'),
  );
  if (unlimited !== undefined && !allRedirected) {
    diagnosis = {
      ...diagnosis,
      summary: `No request was limited: the limit is not in place for this address or key, or is wider than this plan reaches${diagnosis.explaining > 0 ? ` (${diagnosis.summary.charAt(0).toLowerCase()}${diagnosis.summary.slice(1).replace(/\.$/, '')})` : ''}.`,
    };
  }
  const differs = findings.some((f) => f.status === 'differs');
  const unsure = findings.some((f) => f.status === 'inconclusive');
  const overall: Verdict['overall'] = differs
    ? 'differs'
    : unsure
      ? 'inconclusive'
      : 'as-configured';
  let headline: string;
  if (overall === 'as-configured') {
    headline = `As configured: all ${plural(counts.planned, 'request')} got the model's decision, status and headers.`;
  } else if (overall === 'differs') {
    const first = findings.find((f) => f.status === 'differs') as Finding;
    headline =
      unlimited !== undefined
        ? `Not as configured: ${unlimited.text.replace(/\.$/, '')}.`
        : `Not as configured: ${first.text.replace(/\.$/, '')}. ${diagnosis.summary}`;
  } else {
    const first = findings.find((f) => f.status === 'inconclusive') as Finding;
    headline = `No verdict: ${first.text.replace(/\.$/, '')}.`;
  }
  return { overall, headline, findings, timing, observations, expected, diagnosis, counts };
}

/** The configured model's decision for one request at its planned send time. */
interface PlannedDecision {
  decision: Decision;
  replica: number;
  /** The planned send time on the run's model clock. */
  modelMs: number;
  /**
   * The model times of every request the same limiter decided for the same key up to and including
   * this one (its key's history, for Traefik's float64 bucket: respond/goRate.ts).
   */
  historyMs: number[];
}

/**
 * Per request decided in order (its slot, replica and model time): the history of the limiter
 * it met for its key, as `ModelRun` keeps limiters (one shared, or one per replica) and keys.
 */
function histories(
  plan: Plan,
  decided: ReadonlyArray<{ slot: number; replica: number; modelMs: number }>,
): number[][] {
  // Only Traefik's answer depends on it: other systems get none (no copies made).
  if (systemOf(plan.subject.entry).id !== 'traefik') return decided.map(() => []);
  const h = configuredHypothesis(plan.subject);
  const byStore = new Map<string, number[]>();
  return decided.map(({ slot, replica, modelMs }) => {
    const store = `${h.state === 'shared' ? 0 : replica} ${modelKey(h, slot)}`;
    let times = byStore.get(store);
    if (times === undefined) byStore.set(store, (times = []));
    times.push(modelMs);
    return times.slice();
  });
}

/**
 * The plan's own expectations: the configured model deciding every request at its planned send
 * time (on the run's clock), per plan index of the answer each is paired with. Within a group
 * sent at once the decisions are handed to the answers in the order `pairing` sorts them (passed
 * first), as the search pairs its own. These do not move with the run's timing: a late or held
 * answer cannot change what the configuration was expected to do.
 */
function plannedDecisions(
  plan: Plan,
  result: ProbeResult,
  p: Pairing,
): Array<PlannedDecision | null> {
  const run = ModelRun.start(
    configuredHypothesis(plan.subject),
    undefined,
    modelOrigin(result.epochStartMs),
  );
  // Plan order is sending order (planned time, then index).
  const decided = plan.requests.map((q) => {
    const modelMs = modelTime(result.epochStartMs, q.atMs);
    const { decision, replica } = run.decide({ timeMs: modelMs, slot: q.slot });
    return { decision, replica, modelMs, slot: q.slot };
  });
  const historyOf = histories(plan, decided);
  const atPlan = decided.map(({ decision, replica, modelMs }, i) => ({
    decision,
    replica,
    modelMs,
    historyMs: historyOf[i] as number[],
  }));
  const out: Array<PlannedDecision | null> = plan.requests.map(() => null);
  for (let from = 0; from < p.order.length;) {
    const group = plan.requests[p.order[from] as number]?.group;
    let to = from + 1;
    while (to < p.order.length && plan.requests[p.order[to] as number]?.group === group) to += 1;
    // The group's decisions in the order the model took them, to its answers as paired.
    const sequence = p.order.slice(from, to).sort((a, b) => a - b);
    for (let k = from; k < to; k += 1) {
      const o = p.observed[k] as Observation;
      out[o.i] = atPlan[sequence[k - from] as number] ?? null;
    }
    from = to;
  }
  return out;
}

/**
 * The model's expectation per plan index, paired with the answers as `pairing` pairs them: where
 * the search found a time between sending and answer at which the configuration explains the
 * answer, the model's decision then; otherwise the plan's own (the model at the planned time).
 */
function expectations(
  plan: Plan,
  result: ProbeResult,
  p: Pairing,
  r: Replay,
  planned: ReadonlyArray<PlannedDecision | null>,
): Array<ExpectedAt | null> {
  const out: Array<ExpectedAt | null> = plan.requests.map(() => null);
  const entry = plan.subject.entry;
  const policy = policyNameOf(entry);
  const h = configuredHypothesis(plan.subject);
  // The searched decisions' key histories (the replay decided them in this order at these times).
  const searchedHistory = histories(
    plan,
    p.order.map((_, k) => ({
      slot: p.slots[k] as number,
      replica: r.replicas[k] as number,
      modelMs: r.timesMs[k] as number,
    })),
  );
  p.order.forEach((_, k) => {
    const o = p.observed[k] as Observation;
    const fit = r.fit[k] === true;
    const atPlan = fit ? null : planned[o.i];
    const searched = r.decisions[k] as Decision;
    const searchedMs = r.timesMs[k] as number;
    const decision = atPlan?.decision ?? searched;
    const modelMs = atPlan?.modelMs ?? searchedMs;
    const request = plan.requests[o.i];
    let fields: readonly SystemHeader[] = [];
    let status = decision.outcome === 'reject' ? 0 : 200;
    try {
      const response = entryResponse(entry, decision, policy, {
        // Absolute headers (Date, X-RateLimit-Reset) are about the wall clock of the run: nowMs
        // is that clock's reading itself, so the scenario's own epoch is not added.
        nowMs: Math.round(result.epochStartMs + o.sentMs),
        epochMs: 0,
        key: modelKey(h, request?.slot ?? 0),
        // Traefik's 429 carries the delay its float64 bucket got from the key's whole history.
        keyHistoryMs: atPlan?.historyMs ?? (searchedHistory[k] as number[]),
      });
      fields = response.fields;
      status = response.status;
    } catch {
      // A system whose headers need a part still loading (express draft-8's hash): no headers.
    }
    out[o.i] = {
      decision,
      status,
      replica: atPlan?.replica ?? (r.replicas[k] as number),
      modelMs,
      atPlannedTime: atPlan !== null && atPlan !== undefined,
      fields,
      fit,
      headerProblems: [],
    };
  });
  return out;
}

/** A phase's name in the words of the verdict. */
const PHASE_NAME: Record<PhaseId, string> = {
  burst: 'burst',
  steady: 'steady',
  refill: 'refill',
  keys: 'several-keys',
  boundary: 'window-edge',
};

/**
 * A run whose answers were too slow to time (the timing check is inconclusive): which decision
 * each answer shows cannot be placed in time, so a phase that differs is judged by its count
 * alone. The most the configuration can pass from the phase's first sending to its last answer
 * (all it holds at once on every replica, once more for a window edge, and its rate over that
 * span) is a bound no timing can beat: more passed than that differs whatever the timing; fewer
 * is "no verdict", and the timing check names the checks it leaves unjudged.
 */
function slowFindings(
  plan: Plan,
  obs: readonly Observation[],
  timing: Timing,
  findings: Finding[],
): void {
  const config = plan.subject.entry.config;
  const { perMs, atOnce } = rateOf(config);
  const lanes = plan.subject.state === 'local' ? plan.subject.replicas : 1;
  const windowed = countsInWindows(config);
  const latencies = obs
    .map((o) => o.latencyMs)
    .filter((l): l is number => l !== null)
    .sort((a, b) => a - b);
  const p95 = quantile(latencies, 0.95);
  const unjudged: string[] = [];
  let judged = false;
  for (const f of findings) {
    if (f.status !== 'differs' || !PHASES.has(f.check) || f.tally === undefined) continue;
    const phase = plan.phases.find((ph) => ph.id === f.check);
    if (phase === undefined) continue;
    const answered = plan.requests
      .filter((q) => q.phase === phase.id)
      .map((q) => obs[q.i] as Observation)
      .filter((o) => o.kind === 'pass' || o.kind === 'reject' || o.kind === 'redirect');
    const from = Math.min(...answered.map((o) => o.sentMs));
    const to = Math.max(...answered.map((o) => o.sentMs + (o.latencyMs ?? 0)));
    // Each key of the phase has its own limit.
    const keys = new Set(plan.requests.filter((q) => q.phase === phase.id).map((q) => q.slot)).size;
    const bound =
      keys * lanes * (atOnce * (windowed ? 2 : 1) + Math.ceil(perMs * Math.max(0, to - from)));
    const name = PHASE_NAME[phase.id];
    const { gotPass, wantPass, gotHeld } = f.tally;
    if (gotPass > bound) {
      judged = true;
      f.text = `${name}: ${gotPass === answered.length ? 'all ' : ''}${gotPass} of ${answered.length} passed, where the configuration passes ${wantPass} at the planned times and at most ${bound} even if each was decided as late as its answer`;
    } else {
      f.status = 'inconclusive';
      f.text = `${name}: ${gotPass} of ${answered.length} passed${gotHeld > 0 ? ` (${gotHeld} after a delay)` : ''}, where the configuration passes ${wantPass} at the planned times; answers this slow leave room for up to ${bound}: not judged`;
      unjudged.push(name);
    }
  }
  if (unjudged.length === 0) return;
  const t = findings.find((x) => x.check === 'timing');
  if (t !== undefined) {
    const names =
      unjudged.length === 1
        ? `the ${unjudged[0]} check`
        : `the ${unjudged.slice(0, -1).join(', ')} and ${unjudged[unjudged.length - 1]} checks`;
    t.text = `the server answered in p95 ${duration(p95)} (median ${duration(timing.medianMs)}); ${names} cannot be judged within that`;
  }
  // "Nothing was limited" is a finding only when a check could be judged despite the slowness.
  const unlimited = findings.find(
    (x) => x.check === 'decisions' && x.text.startsWith('no request was limited'),
  );
  if (unlimited !== undefined && !judged) {
    unlimited.status = 'inconclusive';
    unlimited.text = unlimited.text.replace(
      /\. The limit does not apply to this address or key, or is not in place$/,
      ': with answers this slow, that cannot be told from a limit that decided late',
    );
  }
}

function runFindings(
  plan: Plan,
  result: ProbeResult,
  obs: readonly Observation[],
  timing: Timing,
  counts: Verdict['counts'],
  findings: Finding[],
): void {
  if (counts.unsent > 0 || result.end !== 'complete') {
    const why =
      result.end === 'interrupted'
        ? 'the run was interrupted'
        : result.end === 'duration-cap'
          ? 'the run reached its time cap'
          : result.end === 'request-cap'
            ? 'the run reached its request cap'
            : 'the run stopped early';
    findings.push({
      check: 'run',
      status: 'inconclusive',
      text: `${why}: ${counts.sent} of ${plural(counts.planned, 'request')} were sent; the checks cover those only`,
      requests: obs.filter((o) => o.kind === 'unsent').map((o) => o.i),
    });
  }
  const errors = obs.filter((o) => o.kind === 'error');
  if (errors.length > 0) {
    const by = new Map<string, number>();
    for (const o of errors) {
      const e = o.request?.error ?? 'other';
      by.set(e, (by.get(e) ?? 0) + 1);
    }
    const words: Record<string, string> = {
      timeout: 'timed out',
      reset: 'had the connection reset by the server',
      refused: 'were refused a connection',
      other: 'failed',
    };
    const parts = [...by].map(([e, n]) => `${n} ${words[e] ?? e}`);
    const detail = errors.find((o) => o.request?.detail !== undefined)?.request?.detail;
    findings.push({
      check: 'answers',
      status: 'inconclusive',
      text: `${plural(errors.length, 'request')} got no answer (${parts.join(', ')}${detail === undefined ? '' : `: ${quoteText(detail)}`}); the gateway may or may not have counted them`,
      requests: errors.map((o) => o.i),
    });
  }
  const redirects = obs.filter((o) => o.kind === 'redirect');
  if (redirects.length > 0) {
    const location = redirects[0]?.request?.headers.find(([n]) => n === 'location')?.[1];
    const all = redirects.length === counts.answered;
    findings.push({
      check: 'answers',
      status: all ? 'inconclusive' : 'note',
      text: all
        ? `every request was redirected (${redirects[0]?.status ?? ''}${location === undefined ? '' : ` to ${quoteText(location)}`}): the limit was never met. Probe the address it redirects to`
        : `${plural(redirects.length, 'request')} were redirected (${redirects[0]?.status ?? ''}${location === undefined ? '' : ` to ${quoteText(location)}`}); they count as passed`,
      requests: redirects.map((o) => o.i),
    });
  }
  if (counts.answered > 0 && timing.baselineMs > Math.max(1000, timing.resolutionMs)) {
    findings.push({
      check: 'timing',
      status: 'inconclusive',
      text: `the gateway took at least ${seconds(timing.baselineMs)} to answer: a delay of the limiter cannot be told from its own slowness`,
      requests: [],
    });
  } else if (2 * timing.medianMs >= timing.resolutionMs) {
    findings.push({
      check: 'timing',
      status: 'inconclusive',
      text: `answers took ${timing.medianMs.toFixed(0)} ms (median), more than half the time between the plan's closest requests (${timing.resolutionMs} ms): when the gateway took each one cannot be told`,
      requests: [],
    });
  }
  if (result.runner.kind === 'page' && result.runner.crossOrigin) {
    findings.push({
      check: 'headers',
      status: 'note',
      text: 'the page ran this across origins: it can read only the headers the gateway exposes (Access-Control-Expose-Headers), so missing headers are not counted',
      requests: [],
    });
  }
  void plan;
}

/**
 * Per phase: what passed against what the model passes, in words. When every answer of the phase
 * fits, the model's decisions that explain them; otherwise the counts expected are the plan's own
 * (the configured model at the planned send times), which no timing of the run can move.
 */
function phaseFindings(
  plan: Plan,
  obs: readonly Observation[],
  expected: ReadonlyArray<ExpectedAt | null>,
  planned: ReadonlyArray<PlannedDecision | null>,
  findings: Finding[],
): void {
  for (const phase of plan.phases) {
    const idx = plan.requests.filter((q) => q.phase === phase.id).map((q) => q.i);
    const answered = idx.filter((i) => {
      const k = obs[i]?.kind;
      return k === 'pass' || k === 'reject' || k === 'redirect';
    });
    if (answered.length === 0) continue;
    const fits = answered.every((i) => expected[i]?.fit === true);
    const modelOf = (i: number) => (fits ? expected[i]?.decision : planned[i]?.decision);
    const wantPass = answered.filter((i) => modelOf(i)?.outcome !== 'reject');
    const wantHeld = answered.filter((i) => (modelOf(i)?.delayMs ?? 0) > 0);
    const gotPass = answered.filter((i) => obs[i]?.kind !== 'reject');
    const gotHeld = answered.filter((i) => obs[i]?.delayed === true);
    const status: FindingStatus = fits ? 'ok' : 'differs';
    const wrong = answered.filter((i) => expected[i]?.fit !== true);
    const maxHeld = Math.max(0, ...wantHeld.map((i) => modelOf(i)?.delayMs ?? 0));
    const held = (n: number, m: number) =>
      n === 0 ? '' : ` and ${n} delayed (up to ${seconds(m)})`;
    const passWords = (pass: number, heldN: number, heldMax: number) =>
      heldN > 0 ? `${pass - heldN} to pass at once${held(heldN, heldMax)}` : `${pass} to pass`;
    // What passed: how many were held matters when as many passed, or when the model holds some.
    const gotWords =
      wantHeld.length > 0 || (gotHeld.length > 0 && gotPass.length === wantPass.length)
        ? `${gotPass.length - gotHeld.length} at once and ${gotHeld.length} delayed`
        : String(gotPass.length);
    const heldNote =
      gotHeld.length !== wantHeld.length
        ? `, ${gotHeld.length} delayed where the model delays ${wantHeld.length}`
        : '';
    let text: string;
    switch (phase.id) {
      case 'burst':
        text = fits
          ? `burst: ${passWords(wantPass.length, wantHeld.length, maxHeld).replace(/^(\d+) to pass/, '$1 passed')} of ${answered.length} sent at once, as configured`
          : `burst: expected ${passWords(wantPass.length, wantHeld.length, maxHeld)} of ${answered.length} sent at once, got ${gotWords}`;
        break;
      case 'steady': {
        const span = Math.max(1, phase.toMs - phase.fromMs);
        const n = answered.length;
        text = fits
          ? `steady: of ${rate(n, n, span)} sent, ${rate(gotPass.length, n, span)} passed and the excess was ${wantHeld.length > 0 ? 'delayed or rejected' : 'rejected'}, as configured`
          : `steady: expected ${rate(wantPass.length, n, span)} to pass of ${rate(n, n, span)} sent (${wantPass.length} of ${n}), got ${rate(gotPass.length, n, span)} (${gotPass.length})${heldNote}`;
        break;
      }
      case 'refill':
        text = fits
          ? `refill: after the pause ${wantPass.length} passed again, as configured`
          : `refill: expected ${passWords(wantPass.length, wantHeld.length, maxHeld)} after the pause, got ${gotWords}`;
        break;
      case 'keys': {
        const slots = [...new Set(answered.map((i) => plan.requests[i]?.slot ?? 0))].sort();
        const perKey = (set: number[]) =>
          slots.map((s) => set.filter((i) => plan.requests[i]?.slot === s).length);
        const want = perKey(wantPass);
        const got = perKey(gotPass);
        text = fits
          ? `several keys: each of keys ${slots.map((s) => s + 1).join(', ')} got its own limit (${want.join(', ')} passed), as configured`
          : `several keys: expected ${want.join(', ')} to pass for keys ${slots.map((s) => s + 1).join(', ')}, got ${got.join(', ')}${heldNote}`;
        break;
      }
      case 'boundary':
        text = fits
          ? `window edge: ${wantPass.length} passed of ${answered.length} sent around the edge, as configured`
          : `window edge: expected ${wantPass.length} of ${answered.length} to pass around the edge, got ${gotPass.length}${heldNote}`;
        break;
    }
    findings.push({
      check: phase.id,
      status,
      text,
      requests: fits ? [] : wrong,
      tally: {
        wantPass: wantPass.length,
        gotPass: gotPass.length,
        wantHeld: wantHeld.length,
        gotHeld: gotHeld.length,
      },
    });
  }
  // A gateway that never limits at all, named as such.
  const answered = obs.filter(
    (o) => o.kind === 'pass' || o.kind === 'reject' || o.kind === 'redirect',
  );
  const limited = answered.filter((o) => o.kind === 'reject' || o.delayed);
  const wantLimited = answered.filter((o) => {
    const d = expected[o.i]?.decision;
    return d !== undefined && (d.outcome === 'reject' || d.delayMs > 0);
  });
  if (answered.length > 0 && limited.length === 0 && wantLimited.length > 0) {
    findings.push({
      check: 'decisions',
      status: 'differs',
      text: `no request was limited: all ${answered.length} answered passed at once, where the model limits ${wantLimited.length}. The limit does not apply to this address or key, or is not in place`,
      requests: wantLimited.map((o) => o.i),
    });
  }
}

/** Rejected requests' statuses against the system's. */
function statusFindings(
  plan: Plan,
  obs: readonly Observation[],
  expected: ReadonlyArray<ExpectedAt | null>,
  findings: Finding[],
): void {
  const rejected = obs.filter(
    (o) => o.kind === 'reject' && expected[o.i]?.decision.outcome === 'reject',
  );
  if (rejected.length === 0) return;
  const want = expected[(rejected[0] as Observation).i]?.status ?? 0;
  const wrong = rejected.filter((o) => o.status !== want);
  if (wrong.length === 0) {
    findings.push({
      check: 'status',
      status: 'ok',
      text: `status: rejected requests got ${want}, as configured`,
      requests: [],
    });
    return;
  }
  const got = new Map<number, number>();
  for (const o of wrong) got.set(o.status ?? 0, (got.get(o.status ?? 0) ?? 0) + 1);
  const [top] = [...got].sort((a, b) => b[1] - a[1]);
  const [code, n] = top as [number, number];
  const system = plan.subject.entry.config;
  let why = '';
  if (system.kind === 'leaky-bucket' && code === 503)
    why = ' (nginx’s default: limit_req_status is not set)';
  if (system.kind === 'sliding-window-counter' && system.anchor === 'entry' && code === 403) {
    why = ' (HAProxy’s deny without deny_status)';
  }
  findings.push({
    check: 'status',
    status: 'differs',
    text: `status: expected ${want}, got ${code}${why} on ${plural(n, 'rejected request')}${got.size > 1 ? ` (and ${[...got.keys()].filter((c) => c !== code).join(', ')} on others)` : ''}`,
    requests: wrong.map((o) => o.i),
  });
}

/** The system's rate-limit headers on each answer, against the model's. */
function headerFindings(
  result: ProbeResult,
  obs: readonly Observation[],
  expected: Array<ExpectedAt | null>,
  findings: Finding[],
): void {
  const hidden = result.runner.kind === 'page' && result.runner.crossOrigin;
  const missing = new Map<string, number[]>();
  const wrong = new Map<string, Array<{ i: number; want: string; got: string }>>();
  const extra = new Map<string, number[]>();
  for (const o of obs) {
    const e = expected[o.i];
    if (e === null || e === undefined || !e.fit || o.request === null || o.status === null)
      continue;
    if (o.kind === 'redirect') continue;
    const got = new Map(o.request.headers.map(([n, v]) => [n.toLowerCase(), v]));
    const names = new Set<string>();
    for (const f of e.fields) {
      const name = f.name.toLowerCase();
      names.add(name);
      if (NOT_COMPARED.has(name)) continue;
      const value = got.get(name);
      if (value === undefined) {
        if (hidden) continue;
        const list = missing.get(f.name) ?? [];
        list.push(o.i);
        missing.set(f.name, list);
        e.headerProblems.push(`\`${f.name}\` missing`);
      } else if (!headerMatches(name, f.value, value)) {
        const list = wrong.get(f.name) ?? [];
        list.push({ i: o.i, want: f.value, got: value });
        wrong.set(f.name, list);
        e.headerProblems.push(
          `\`${f.name}\`: expected ${quoteText(f.value)}, got ${quoteText(value)}`,
        );
      }
    }
    for (const name of got.keys()) {
      if (RATE_HEADER.test(name) && !names.has(name)) {
        const list = extra.get(name) ?? [];
        list.push(o.i);
        extra.set(name, list);
      }
    }
  }
  for (const [name, list] of missing) {
    findings.push({
      check: 'headers',
      status: 'differs',
      text: `\`${name}\` missing on ${plural(list.length, 'response')} that should carry it`,
      requests: list,
    });
  }
  for (const [name, list] of wrong) {
    const first = list[0] as { i: number; want: string; got: string };
    findings.push({
      check: 'headers',
      status: 'differs',
      text: `\`${name}\`: expected ${quoteText(first.want)}, got ${quoteText(first.got)} (request ${first.i + 1}; ${plural(list.length, 'response')} in all)`,
      requests: list.map((x) => x.i),
    });
  }
  for (const [name, list] of extra) {
    findings.push({
      check: 'headers',
      status: 'note',
      text: `the gateway also sends \`${name}\`, which the lab's limiter does not (${plural(list.length, 'response')}): if you added rate-limit headers, turn on “add standard headers” in the lab too`,
      requests: list,
    });
  }
  if (missing.size === 0 && wrong.size === 0) {
    const any = expected.some(
      (e) => e !== null && e.fields.some((f) => !NOT_COMPARED.has(f.name.toLowerCase())),
    );
    findings.push({
      check: 'headers',
      status: 'ok',
      text: any
        ? 'headers: the rate-limit headers are the system’s, as configured'
        : 'headers: none expected, and none missing',
      requests: [],
    });
  }
}

/** The command that runs this plan from a clone (what the page shows to copy). */
export function probeCommand(url: string, link: string, plan: Plan): string {
  const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const lane = plan.subject.lane > 0 ? ` --lane ${plan.subject.lane + 1}` : '';
  return `npx rate-limit-lab probe ${sq(url)} --link ${sq(link)} --key ${keyModeText(plan.key)}${lane}`;
}
