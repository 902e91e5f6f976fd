/**
 * The experiment library (issue 5, item 3): presets that each pose a question, say what to look at,
 * and answer it with numbers measured from the simulation — never with text written by hand.
 *
 * Pure TypeScript on core and sim. `ExperimentInputs` has the shape of the store's
 * `PlaygroundInputs` (the store imports config, not the other way round), so an experiment's inputs
 * load straight into the store.
 *
 * `measure(result)` reads the run it is given, so it follows the person's edits: tweak a preset and
 * the answer is re-measured on the tweaked run. Where one run cannot hold the comparison (the
 * simulator has one retry policy, one deployment, one keying and one clock per run), the
 * experiment has `variants`, and `measure` simulates every variant itself from the run's limiters
 * and scenario with only that one part replaced. Every run is small (≤ 30 s virtual, ≤ 2,000
 * requests), so measuring all twelve takes milliseconds.
 */
import { quotaOf } from '../core';
import type { AlgorithmConfig } from '../core';
import { defaultScenario, peakWindow, rowRange } from '../sim';
import type { LaneFleet, LaneResult, RetryPolicy, Scenario, SimResult, StoreModel } from '../sim';
import {
  backendTimes,
  dec,
  firstAttemptsOf,
  list,
  n,
  outcomeFacts,
  passed,
  passedIn,
  pct,
  plural,
  ratePerSec,
  rejectTimes,
  rerun,
  secs,
  share,
  shareRange,
  status,
  times,
  waitPercentile,
  who,
} from './measure';
import type { Answer } from './measure';
import type { ScenarioConfig } from './schema';

export type { Answer, AnswerFact } from './measure';

/** One limiter of an experiment (the store's `LimiterEntry`). */
export interface ExperimentLimiter {
  /** Shown in the UI and used as the RateLimit policy name. Default: the algorithm's name. */
  name?: string;
  config: AlgorithmConfig;
}

/** Everything an experiment loads: the store's `PlaygroundInputs`, field for field. */
export interface ExperimentInputs {
  limiters: ExperimentLimiter[];
  /** `metrics.windowMs` is W in "the most passed in any interval of W" (1 s unless set). */
  scenario: ScenarioConfig;
  /** Length of the run, ms. */
  untilMs: number;
  mode: 'single' | 'compare';
}

/** Another run of the same experiment that differs in one part of the scenario. */
export interface ExperimentVariant {
  /** Stable slug, unique within the experiment. */
  id: string;
  label: string;
  inputs: ExperimentInputs;
}

export interface Experiment {
  /** Stable slug, used in links (`?x=<id>`). Never rename one. */
  id: string;
  title: string;
  /** The question, one sentence. */
  question: string;
  /** What to watch on screen, one or two sentences. */
  lookAt: string;
  /** What loads; with variants, the first variant's inputs. */
  inputs: ExperimentInputs;
  /**
   * The moment to open at, paused, ms: a moment after the key event (a burst opened at its very
   * instant shows every request still on its way, and the lanes look empty).
   */
  startAtMs: number;
  /** Runs to switch between; `measure` compares them all. */
  variants?: readonly ExperimentVariant[];
  /** The answer, measured on `result` (and on the variants' runs, simulated from it). */
  measure(result: SimResult): Answer;
}

// ---------------------------------------------------------------------------------------------
// Building experiments
// ---------------------------------------------------------------------------------------------

/** The default scenario with some groups replaced (a fresh object). */
function scenario(overrides: Partial<Scenario>): Scenario {
  return { ...defaultScenario(), ...overrides };
}

/** Inputs whose chart window is the scenario's metrics window (1 s unless set). */
function inputs(
  limiters: ExperimentLimiter[],
  sc: Scenario,
  untilMs: number,
  mode: 'single' | 'compare' = limiters.length > 1 ? 'compare' : 'single',
): ExperimentInputs {
  return {
    limiters,
    scenario: { ...sc, metrics: { ...sc.metrics, windowMs: sc.metrics?.windowMs ?? 1000 } },
    untilMs,
    mode,
  };
}

/** A variant axis: one part of the scenario, replaced. */
interface Axis {
  id: string;
  label: string;
  apply: (s: Scenario) => Scenario;
}

function variantsOf(base: ExperimentInputs, axes: readonly Axis[]): ExperimentVariant[] {
  return axes.map((a) => ({
    id: a.id,
    label: a.label,
    inputs: {
      ...structuredClone(base),
      scenario: {
        ...a.apply(structuredClone(base.scenario)),
        metrics: { ...base.scenario.metrics },
      },
    },
  }));
}

/** Each axis applied to the run's own scenario and simulated with the run's limiters. */
function runAxes(result: SimResult, axes: readonly Axis[]): Array<{ axis: Axis; run: SimResult }> {
  return axes.map((axis) => ({ axis, run: rerun(result, axis.apply(result.scenario)) }));
}

/** A generic answer, for runs edited beyond what an experiment's measure reads. */
function countsAnswer(result: SimResult): Answer {
  return {
    headline: list(
      result.lanes.map((l) => {
        const t = l.metrics.total;
        return `${l.name} passes ${n(t.admitted + t.delayed)} of ${n(t.offered)}`;
      }),
    ),
    facts: result.lanes.flatMap(outcomeFacts),
  };
}

// ---------------------------------------------------------------------------------------------
// 1. The boundary burst
// ---------------------------------------------------------------------------------------------

const window10per2s = { limit: 10, windowMs: 2000 };

const boundaryBurst: Experiment = {
  id: 'boundary-burst',
  title: 'The boundary burst',
  question:
    'With a limit of 10 requests per 2 s, how many can pass in the two seconds around a window boundary?',
  lookAt:
    'Ten requests arrive in the second before the fixed window resets at 4 s and ten in the second after. ' +
    'Watch the fixed window start counting from zero at 4 s, while the sliding log still remembers the first ten and the counter still weighs them.',
  inputs: inputs(
    [
      { name: 'fixed window', config: { kind: 'fixed-window', ...window10per2s } },
      {
        name: 'sliding log',
        config: { kind: 'sliding-log', ...window10per2s, logRejected: false },
      },
      {
        name: 'sliding-window counter',
        config: { kind: 'sliding-window-counter', ...window10per2s },
      },
    ],
    scenario({
      sources: [{ kind: 'boundary-burst', boundaryMs: 4000, count: 10, spreadMs: 1000 }],
      metrics: { windowMs: 2000, binMs: 100 },
    }),
    8000,
  ),
  startAtMs: 4950,
  measure(result) {
    const source = result.scenario.sources.find((s) => s.kind === 'boundary-burst');
    const per = result.lanes.map((lane) => {
      const limit = quotaOf(lane.config).limit;
      if (source === undefined) return { lane, limit, count: lane.metrics.peakPassed.count };
      const half = Math.max(1, source.spreadMs ?? 0);
      return {
        lane,
        limit,
        count: passedIn(lane, source.boundaryMs - half, source.boundaryMs + half),
      };
    });
    const span =
      source === undefined
        ? `the busiest ${secs(result.scenario.metrics?.windowMs ?? 1000)}`
        : `the ${secs(2 * Math.max(1, source.spreadMs ?? 0))} around the boundary`;
    const parts = per.map(
      ({ lane, limit, count }, i) =>
        `${lane.name} passes ${n(count)}` +
        (i === 0
          ? ` — ${times(count / limit)} its limit of ${n(limit)}`
          : ` (${times(count / limit)})`),
    );
    return {
      headline: `In ${span}, ${list(parts)}.`,
      facts: per.flatMap(({ lane }) => [
        {
          label: `${lane.name}: most passed in any ${secs(lane.metrics.peakPassed.windowMs)}`,
          value:
            lane.metrics.peakPassed.count > 0
              ? `${n(lane.metrics.peakPassed.count)}, from ${secs(lane.metrics.peakPassed.startMs)}`
              : '0',
        },
        {
          label: `${lane.name}: rejected`,
          value: `${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)}`,
        },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 2. Steady load slightly above the rate
// ---------------------------------------------------------------------------------------------

const steadyOverload: Experiment = {
  id: 'steady-overload',
  title: 'Steady load just above the rate',
  question:
    'Clients send 11 requests a second, evenly, to an Envoy token bucket refilled at 10 a second: what share gets 429, and from when?',
  lookAt:
    'The bucket starts full, so nothing is rejected at first: watch the tokens drain by one a second, then the first 429, then a steady trickle of them.',
  inputs: inputs(
    [
      {
        name: 'token bucket 10/s',
        config: {
          kind: 'token-bucket',
          maxTokens: 10,
          tokensPerFill: 10,
          fillIntervalMs: 1000,
          refill: 'continuous',
        },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 11, startMs: 0, endMs: 30_000 }],
      metrics: { windowMs: 1000, binMs: 500 },
    }),
    30_000,
  ),
  startAtMs: 9200,
  measure(result) {
    const per = result.lanes.map((lane) => {
      const t = lane.metrics.total;
      const rejects = rejectTimes(lane);
      const firstMs = rejects[0];
      let after = 0;
      if (firstMs !== undefined) {
        const [start, end] = rowRange(lane.columns, firstMs, Number.POSITIVE_INFINITY);
        after = end - start;
      }
      return { lane, t, firstMs, after, rejectedAfter: rejects.length };
    });
    const offeredRate = (result.arrivals.count * 1000) / result.untilMs;
    const parts = per.map(({ lane, t, firstMs, after, rejectedAfter }) => {
      const share = `${who(result, lane)}${pct(t.rejected, t.offered)} of ${n(t.offered)} requests get ${status(lane)}`;
      if (firstMs === undefined) return `${share}`;
      return (
        `${share} — none until ${secs(firstMs)}, then ${pct(rejectedAfter, after)}` +
        ` (about 1 in ${n(after / rejectedAfter)})`
      );
    });
    return {
      headline: `Offered ${dec(offeredRate, 1)} requests/s, ${parts.join('; ')}.`,
      facts: per.flatMap(({ lane, firstMs, after, rejectedAfter }) => [
        { label: `${lane.name}: allowed rate`, value: `${dec(ratePerSec(lane.config))}/s` },
        {
          label: `${lane.name}: first ${status(lane)}`,
          value: firstMs === undefined ? 'none' : secs(firstMs),
        },
        {
          label: `${lane.name}: rejected from then on`,
          value: `${n(rejectedAfter)} of ${n(after)}`,
        },
        ...outcomeFacts(lane).slice(0, 1),
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 3. A page load's burst, then the sustained rate
// ---------------------------------------------------------------------------------------------

const bucket = (maxTokens: number, perSec: number): AlgorithmConfig => ({
  kind: 'token-bucket',
  maxTokens,
  tokensPerFill: perSec,
  fillIntervalMs: 1000,
  refill: 'continuous',
});

const PAGE_LOAD_SOURCE = 0;

const pageLoad: Experiment = {
  id: 'page-load',
  title: "A page load's burst",
  question:
    'A page load fires 20 requests at once, then the app polls 3 times a second: does a token bucket sized for the page pass it, and what rate is left after?',
  lookAt:
    'Both buckets refill 2 tokens a second. Watch the 20-token bucket absorb the whole page load while the 5-token one rejects most of it, then both settle to the same trickle.',
  inputs: inputs(
    [
      { name: '20-token bucket', config: bucket(20, 2) },
      { name: '5-token bucket', config: bucket(5, 2) },
    ],
    scenario({
      sources: [
        { kind: 'burst', atMs: 1000, count: 20 },
        { kind: 'constant', ratePerSec: 3, startMs: 2000, endMs: 20_000 },
      ],
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  startAtMs: 1300,
  measure(result) {
    const tailFromMs = Math.max(0, result.untilMs - 10_000);
    const tailS = (result.untilMs - tailFromMs) / 1000;
    const per = result.lanes.map((lane) => ({
      lane,
      page: firstAttemptsOf(result, lane, (s) => s === PAGE_LOAD_SOURCE),
      tailRate: passedIn(lane, tailFromMs, result.untilMs) / tailS,
    }));
    const pages = per.map(
      ({ lane, page }) => `${lane.name} passes ${n(page.passed)} of the ${n(page.offered)}`,
    );
    const rates = per.map(({ tailRate }) => `${dec(tailRate)}/s`);
    const sameRate = new Set(rates).size === 1;
    return {
      headline:
        `Of the page load, ${list(pages)}. In the last ${secs(result.untilMs - tailFromMs)} ` +
        (sameRate
          ? `every bucket passes ${rates[0] ?? '0/s'}: the refill rate, not the size, sets the sustained rate.`
          : `they pass ${list(per.map(({ lane }, i) => `${rates[i] ?? ''} (${lane.name})`))}.`),
      facts: per.flatMap(({ lane, page, tailRate }) => [
        {
          label: `${lane.name}: page load passed`,
          value: `${n(page.passed)} of ${n(page.offered)}`,
        },
        {
          label: `${lane.name}: passed per second, last ${secs(result.untilMs - tailFromMs)}`,
          value: dec(tailRate),
        },
        { label: `${lane.name}: refill`, value: `${dec(ratePerSec(lane.config))}/s` },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 4. nginx burst: nodelay, delay=N, neither
// ---------------------------------------------------------------------------------------------

const nginx = (burst: number, delay: number | 'nodelay'): AlgorithmConfig => ({
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst,
  delay,
});

/** The directive as written in nginx.conf: "burst=5 nodelay", "burst=5 delay=2", "burst=5". */
function nginxDirective(config: AlgorithmConfig): string | null {
  if (config.kind !== 'leaky-bucket') return null;
  const delay =
    config.delay === 'nodelay' ? ' nodelay' : config.delay > 0 ? ` delay=${config.delay}` : '';
  return `burst=${config.burst}${delay}`;
}

const nginxBurst: Experiment = {
  id: 'nginx-burst',
  title: 'nginx burst: nodelay, delay, neither',
  question:
    'Seven requests arrive at once at nginx limit_req rate=1r/s burst=5: who passes at once, who waits and how long, who is rejected?',
  lookAt:
    'All three lanes make the same admit-or-reject decisions; only the timing differs. Watch the queue: nodelay sends the burst through now, delay=2 lets 3 through and spaces the rest, no delay spaces all but the first.',
  inputs: inputs(
    [
      { name: 'burst 5 nodelay', config: nginx(5, 'nodelay') },
      { name: 'burst 5 delay 2', config: nginx(5, 2) },
      { name: 'burst 5', config: nginx(5, 0) },
    ],
    scenario({
      sources: [{ kind: 'burst', atMs: 1000, count: 7 }],
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    8000,
  ),
  startAtMs: 1300,
  measure(result) {
    const per = result.lanes.map((lane) => {
      const t = lane.metrics.total;
      return {
        lane,
        passedCount: t.admitted + t.delayed,
        name: nginxDirective(lane.config) ?? lane.name,
      };
    });
    const parts = per.map(({ lane, passedCount, name }) => {
      const t = lane.metrics.total;
      const wait =
        t.delayed > 0
          ? `, ${n(t.delayed)} wait ${secs(lane.metrics.delay.p50Ms)} median, up to ${secs(lane.metrics.delay.maxMs)}`
          : '';
      return `${name} passes ${n(passedCount)} (${n(t.admitted)} at once${wait})`;
    });
    const rejected = per.map(({ lane }) => lane.metrics.total.rejected);
    const statuses = new Set(per.map(({ lane }) => status(lane)));
    const sameReject = new Set(rejected).size === 1 && statuses.size === 1;
    return {
      headline:
        `Of ${n(result.arrivals.count)} at once: ${list(parts)}.` +
        (sameReject
          ? ` In every lane ${plural(rejected[0] ?? 0, 'request')} ${(rejected[0] ?? 0) === 1 ? 'gets' : 'get'} ${[...statuses][0] ?? ''}.`
          : ` Rejected: ${list(per.map(({ lane, name }) => `${n(lane.metrics.total.rejected)} (${name})`))}.`),
      facts: per.flatMap(({ lane, name }) => [
        { label: `${name}: admitted at once`, value: n(lane.metrics.total.admitted) },
        {
          label: `${name}: delayed`,
          value:
            lane.metrics.delay.count > 0
              ? `${n(lane.metrics.delay.count)}, ${secs(lane.metrics.delay.p50Ms)} median, ${secs(lane.metrics.delay.maxMs)} max`
              : '0',
        },
        {
          label: `${name}: rejected (${status(lane)})`,
          value: n(lane.metrics.total.rejected),
        },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 5. A queue in front of the backend vs a fast 429 at the edge
// ---------------------------------------------------------------------------------------------

const queueVsEdge: Experiment = {
  id: 'queue-vs-edge',
  title: 'Queue in front of the backend, or 429 at the edge',
  question:
    'Traffic comes in bursts of 20 a second, one second in four: what does a delaying nginx queue cost the clients, and what does answering 429 at once cost them, for the same 5 requests a second?',
  lookAt:
    'Watch the backend line: the nginx queue (rate=5r/s burst=20, no nodelay) holds the burst and releases it steadily; the Envoy bucket at the edge passes what it has tokens for at once and rejects the rest.',
  inputs: inputs(
    [
      {
        name: 'nginx queue',
        config: { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 20, delay: 0 },
      },
      { name: 'edge bucket', config: bucket(5, 5) },
    ],
    scenario({
      sources: [
        { kind: 'on-off', ratePerSec: 20, onMs: 1000, offMs: 3000, startMs: 0, endMs: 20_000 },
      ],
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    20_000,
  ),
  startAtMs: 1000,
  measure(result) {
    const per = result.lanes.map((lane) => ({
      lane,
      peak: peakWindow(
        backendTimes(lane),
        lane.metrics.total.admitted + lane.metrics.total.delayed,
        1000,
      ).count,
      p50: waitPercentile(lane, 0.5),
      p95: waitPercentile(lane, 0.95),
      max: waitPercentile(lane, 1),
    }));
    const parts = per.map(({ lane, peak, p95, max }) => {
      const t = lane.metrics.total;
      const waits =
        max === 0
          ? 'answers every client at once'
          : `makes clients wait up to ${secs(max)} (p95 ${secs(p95)})`;
      return (
        `${lane.name} ${waits}, ${t.rejected === 0 ? 'rejects none' : `rejects ${n(t.rejected)} of ${n(t.offered)} (${pct(t.rejected, t.offered)}) with ${status(lane)}`}` +
        ` and sends the backend at most ${n(peak)} in a second`
      );
    });
    return {
      headline: `${parts.join('; ')}.`,
      facts: per.flatMap(({ lane, peak, p50, p95 }) => [
        ...outcomeFacts(lane),
        { label: `${lane.name}: most at the backend in any 1 s`, value: n(peak) },
        { label: `${lane.name}: client wait, median / p95`, value: `${secs(p50)} / ${secs(p95)}` },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 6. Retrying clients at a fixed window's reset
// ---------------------------------------------------------------------------------------------

// One run has one retry policy (a scenario-wide setting), and three limiter lanes would all retry
// the same way, so the policies are variants: `measure` simulates all three from the run it is
// given, changing only `scenario.retry`.
/** Only the policy changes between variants: attempts, backoff and round trip are the run's own. */
const onReject =
  (policy: RetryPolicy['onReject']) =>
  (s: Scenario): Scenario => ({ ...s, retry: { ...s.retry, onReject: policy } });
const RETRY_AXES: readonly Axis[] = [
  {
    id: 'immediate',
    label: 'Retry at once',
    apply: onReject('immediate'),
  },
  {
    id: 'retry-after',
    label: 'Wait for Retry-After',
    apply: onReject('retry-after'),
  },
  {
    id: 'backoff',
    label: 'Backoff with jitter',
    apply: onReject('backoff'),
  },
];

const retryBaseInputs = inputs(
  [{ name: 'fixed window 10/s', config: { kind: 'fixed-window', limit: 10, windowMs: 1000 } }],
  scenario({
    sources: [{ kind: 'burst', atMs: 200, count: 30 }],
    retry: {
      onReject: 'immediate',
      maxAttempts: 10,
      backoffBaseMs: 100,
      backoffCapMs: 10_000,
      turnaroundMs: 100,
    },
    clients: { count: 30, keying: 'shared', assign: 'round-robin' },
    metrics: { windowMs: 1000, binMs: 100 },
  }),
  10_000,
);
const retryVariants = variantsOf(retryBaseInputs, RETRY_AXES);

/** When the last request that passed got through (its passing attempt's arrival), or −1. */
function lastPassMs(lane: LaneResult): number {
  const c = lane.columns;
  for (let r = c.rows - 1; r >= 0; r -= 1)
    if (passed(c.outcome[r] as number)) return c.arrivalMs[r] as number;
  return -1;
}

const retryStorm: Experiment = {
  id: 'retry-storm',
  title: 'Retries at the window reset',
  question:
    '30 clients share one API key limited to 10 a second by a fixed window, and 20 of them are rejected: should they retry at once, wait for Retry-After, or back off with jitter?',
  lookAt:
    'Switch between the variants and watch the retries (attempt numbers) pile up before the window resets at 1 s, 2 s, 3 s. Every client tries at most 10 times, 100 ms round trip.',
  inputs: (retryVariants[0] as ExperimentVariant).inputs,
  variants: retryVariants,
  startAtMs: 1000,
  measure(result) {
    const runs = runAxes(result, RETRY_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const m = lane.metrics;
      return {
        axis,
        lane,
        attempts: m.total.offered,
        rejected: m.total.rejected,
        gaveUp: m.gaveUp,
        doneMs: lastPassMs(lane),
        requests: run.arrivals.count,
      };
    });
    const parts = runs.map(
      (r) =>
        `${r.axis.label}: ${n(r.attempts)} attempts (${n(r.rejected)} × ${status(r.lane)})` +
        (r.gaveUp > 0 ? `, ${n(r.gaveUp)} give up` : ', none gives up') +
        (r.doneMs >= 0 ? `, last through at ${secs(r.doneMs)}` : ''),
    );
    return {
      headline: `For ${plural(runs[0]?.requests ?? 0, 'request')}: ${parts.join('; ')}.`,
      facts: runs.flatMap((r) => [
        { label: `${r.axis.label}: attempts`, value: n(r.attempts) },
        { label: `${r.axis.label}: rejected attempts`, value: n(r.rejected) },
        { label: `${r.axis.label}: gave up`, value: n(r.gaveUp) },
        {
          label: `${r.axis.label}: last request through`,
          value: r.doneMs >= 0 ? secs(r.doneMs) : 'none',
        },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 7. A bucket that starts empty vs full
// ---------------------------------------------------------------------------------------------

// The core's token bucket starts full for a new key, as Envoy's, nginx's and redis-cell's do. An
// implementation that starts a key empty (tokens = 0 on creation) is in exactly the state of a full
// bucket drained at its creation: so client 2's key is drained by `max_tokens` priming requests at
// t = 0, and from then on it is the empty-start bucket. Client 1's key is new at 3 s and starts full.
const PRIME_SOURCE = 0;
const FULL_START_SOURCE = 1;
const EMPTY_START_SOURCE = 2;

const emptyVsFull: Experiment = {
  id: 'empty-vs-full',
  title: 'A bucket that starts empty',
  question:
    'A new client sends 10 requests at once: does a bucket that starts full pass them, and one that starts empty?',
  lookAt:
    "Envoy's token bucket starts full. To show an empty start, client-2's bucket is drained at 0 s (the priming burst), which is exactly where a bucket created empty begins; inspect each key at 3 s, when both clients send 10.",
  inputs: inputs(
    [{ name: 'token bucket', config: bucket(10, 2) }],
    scenario({
      sources: [
        { kind: 'burst', atMs: 0, count: 10, client: 1 },
        { kind: 'burst', atMs: 3000, count: 10, client: 0 },
        { kind: 'burst', atMs: 3000, count: 10, client: 1 },
      ],
      clients: { count: 2, keying: 'per-client', assign: 'round-robin' },
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    10_000,
  ),
  startAtMs: 3300,
  measure(result) {
    const sources = result.scenario.sources;
    const full = sources[FULL_START_SOURCE];
    const empty = sources[EMPTY_START_SOURCE];
    const prime = sources[PRIME_SOURCE];
    if (full?.kind !== 'burst' || empty?.kind !== 'burst' || prime?.kind !== 'burst')
      return countsAnswer(result);
    const per = result.lanes.map((lane) => ({
      lane,
      full: firstAttemptsOf(result, lane, (s) => s === FULL_START_SOURCE),
      empty: firstAttemptsOf(result, lane, (s) => s === EMPTY_START_SOURCE),
      fillMs: quotaOf(lane.config).windowMs,
    }));
    const sinceMs = empty.atMs - prime.atMs;
    const parts = per.map(
      (p) =>
        `${who(result, p.lane)}the key that starts full passes ${n(p.full.passed)} of ${n(p.full.offered)}; ` +
        `the one that started empty ${secs(sinceMs)} earlier passes ${n(p.empty.passed)} of ${n(p.empty.offered)}, ` +
        `and an empty bucket takes ${secs(p.fillMs)} to fill`,
    );
    return {
      headline: `${parts.map((x) => x.charAt(0).toUpperCase() + x.slice(1)).join('. ')}.`,
      facts: per.flatMap((p) => [
        {
          label: `${p.lane.name}: new key, starts full`,
          value: `${n(p.full.passed)} of ${n(p.full.offered)} passed`,
        },
        {
          label: `${p.lane.name}: key emptied ${secs(sinceMs)} before`,
          value: `${n(p.empty.passed)} of ${n(p.empty.offered)} passed`,
        },
        { label: `${p.lane.name}: empty to full`, value: secs(p.fillMs) },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 8. The sliding log as a memory attack surface
// ---------------------------------------------------------------------------------------------

/** Bytes in SI units, as the views label memory: "80 B", "8 kB". */
function bytes(b: number): string {
  if (b < 1000) return `${n(b)} B`;
  return `${dec(b / 1000, 1)} kB`;
}

const slidingLogMemory: Experiment = {
  id: 'sliding-log-memory',
  title: 'The sliding log under a flood',
  question:
    'One client floods a sliding log (10 per 10 s) with 100 requests a second: how much memory does its key take when rejected requests are logged too (logRejected), and when they are not?',
  lookAt:
    "Watch the log of each lane: the plain log holds the 10 it admitted; with logRejected every request goes in, so the log grows with the attacker's rate and the flooding key never gets through again.",
  inputs: inputs(
    [
      {
        name: 'sliding log',
        config: { kind: 'sliding-log', limit: 10, windowMs: 10_000, logRejected: false },
      },
      {
        name: 'logRejected',
        config: { kind: 'sliding-log', limit: 10, windowMs: 10_000, logRejected: true },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 20_000 }],
      metrics: { windowMs: 10_000, binMs: 500 },
    }),
    20_000,
  ),
  startAtMs: 12_000,
  measure(result) {
    const offeredRate = (result.arrivals.count * 1000) / result.untilMs;
    const parts = result.lanes.map(
      (lane) =>
        `${lane.name} holds up to ${plural(lane.metrics.state.peakEntries, 'entry', 'entries')} (${bytes(lane.metrics.state.peakBytes)}) and admits ${n(lane.metrics.total.admitted)}`,
    );
    return {
      headline: `Under ${dec(offeredRate, 1)} requests/s from one key, ${parts.join('; ')}.`,
      facts: result.lanes.flatMap((lane) => [
        {
          label: `${lane.name}: peak memory`,
          value: `${bytes(lane.metrics.state.peakBytes)} at ${secs(lane.metrics.state.peakAtMs)}`,
        },
        { label: `${lane.name}: peak log entries`, value: n(lane.metrics.state.peakEntries) },
        {
          label: `${lane.name}: admitted`,
          value: `${n(lane.metrics.total.admitted)} of ${n(lane.metrics.total.offered)}`,
        },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 9. Limiting by IP behind a NAT
// ---------------------------------------------------------------------------------------------

// Keying is one setting per run: "behind one NAT address" and "an address each" are variants.
const NAT_AXES: readonly Axis[] = [
  {
    id: 'nat',
    label: 'One NAT address',
    apply: (s) => ({ ...s, clients: { ...s.clients, keying: 'shared' } }),
  },
  {
    id: 'own-address',
    label: 'An address each',
    apply: (s) => ({ ...s, clients: { ...s.clients, keying: 'per-client' } }),
  },
];

const natVariants = variantsOf(
  inputs(
    [
      {
        name: 'limit_req 5r/s burst 10',
        config: { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 10, delay: 'nodelay' },
      },
    ],
    scenario({
      sources: [{ kind: 'poisson', ratePerSec: 20, startMs: 0, endMs: 20_000 }],
      clients: { count: 20, keying: 'shared', assign: 'random' },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  NAT_AXES,
);

/** Over the clients that sent anything: the smallest and largest share of their requests passed. */
function clientShares(lane: LaneResult): { min: number; max: number; clients: number } {
  const { offered, passed: ok } = lane.metrics.perClient;
  let min = 1;
  let max = 0;
  let clients = 0;
  for (let c = 0; c < offered.length; c += 1) {
    const o = offered[c] as number;
    if (o === 0) continue;
    clients += 1;
    const share = (ok[c] as number) / o;
    min = Math.min(min, share);
    max = Math.max(max, share);
  }
  return clients === 0 ? { min: 0, max: 0, clients } : { min, max, clients };
}

const natKey: Experiment = {
  id: 'nat-one-key',
  title: 'Limiting by IP behind a NAT',
  question:
    '20 people behind one office NAT each make about one request a second; the limit per IP address is 5 a second: how much does each get through?',
  lookAt:
    'Every request carries the key nat-gateway: one bucket for twenty people. Switch to "An address each" to see the same people with a key each.',
  inputs: (natVariants[0] as ExperimentVariant).inputs,
  variants: natVariants,
  startAtMs: 5000,
  measure(result) {
    const runs = runAxes(result, NAT_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      return { axis, run, lane, shares: clientShares(lane) };
    });
    const users = result.scenario.clients.count;
    const perUser = (result.arrivals.count * 1000) / result.untilMs / users;
    const limit = ratePerSec((result.lanes[0] as LaneResult).config);
    const parts = runs.map(({ axis, lane, shares }) => {
      const t = lane.metrics.total;
      return (
        `${axis.label}: ${pct(t.rejected, t.offered)} get ${status(lane)}, ` +
        `each person gets ${shareRange(shares.min, shares.max)} of their requests through`
      );
    });
    return {
      headline: `${n(users)} people sending ${dec(perUser, 1)} requests/s each against ${dec(limit)}/s per key — ${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, run, lane, shares }) => [
        { label: `${axis.label}: keys`, value: n(run.keyNames.length) },
        {
          label: `${axis.label}: rejected (${status(lane)})`,
          value: `${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)}`,
        },
        {
          label: `${axis.label}: share passed per person`,
          value: shareRange(shares.min, shares.max),
        },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 10. N instances: local, shared, racy
// ---------------------------------------------------------------------------------------------

// The deployment is one setting per run, so its three kinds are variants simulated in `measure`.
const deployment =
  (state: 'local' | 'shared-atomic' | 'shared-racy') =>
  (s: Scenario): Scenario => {
    if (state !== 'shared-racy') return { ...s, deployment: { ...s.deployment, state } };
    // Read-then-write is modelled without fleet settings (issue 14): a fleet run drops them here.
    const deployment = { ...s.deployment, state };
    delete deployment.fleet;
    if (deployment.balancer !== 'random') deployment.balancer = 'round-robin';
    return { ...s, deployment };
  };
const DEPLOY_AXES: readonly Axis[] = [
  { id: 'local', label: 'Local state', apply: deployment('local') },
  { id: 'shared', label: 'Shared store', apply: deployment('shared-atomic') },
  { id: 'racy', label: 'Racy read-then-write', apply: deployment('shared-racy') },
];

const deployVariants = variantsOf(
  inputs(
    [{ name: 'fixed window 10/s', config: { kind: 'fixed-window', limit: 10, windowMs: 1000 } }],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 10_000 }],
      deployment: { instances: 4, balancer: 'round-robin', state: 'local', roundTripMs: 20 },
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    10_000,
  ),
  DEPLOY_AXES,
);

const instances: Experiment = {
  id: 'instances',
  title: 'Four instances, one limit',
  question:
    'Four instances behind a round-robin balancer each run the limiter (10 a second): what passes when each keeps its own count, when they share one store atomically, and when they read, decide and write back 20 ms later?',
  lookAt:
    'Each request is marked with the instance that decided it. Switch the variants and watch the passes per second against the limit.',
  inputs: (deployVariants[0] as ExperimentVariant).inputs,
  variants: deployVariants,
  startAtMs: 1000,
  measure(result) {
    const seconds = result.untilMs / 1000;
    const runs = runAxes(result, DEPLOY_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const rate = (lane.metrics.total.admitted + lane.metrics.total.delayed) / seconds;
      return { axis, lane, rate, limit: ratePerSec(lane.config) };
    });
    const limit = runs[0]?.limit ?? 0;
    const parts = runs.map(
      ({ axis, rate }) =>
        `${axis.label}: ${dec(rate, 1)}/s (${times(limit > 0 ? rate / limit : 0)})`,
    );
    return {
      headline: `${n(result.instances)} instances, a limit of ${dec(limit)}/s, passed: ${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, lane, rate }) => [
        { label: `${axis.label}: passed per second`, value: dec(rate, 1) },
        { label: `${axis.label}: most passed in any 1 s`, value: n(lane.metrics.peakPassed.count) },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 11. A wall-clock jump vs a monotonic clock
// ---------------------------------------------------------------------------------------------

// The clock is one setting per run; the jump is kept in both variants (a monotonic clock ignores it).
const CLOCK_AXES: readonly Axis[] = [
  {
    id: 'monotonic',
    label: 'Monotonic clock',
    apply: (s) => ({ ...s, clock: { ...s.clock, mode: 'monotonic' } }),
  },
  {
    id: 'wall',
    label: 'Wall clock',
    apply: (s) => ({ ...s, clock: { ...s.clock, mode: 'wall' } }),
  },
];

const clockVariants = variantsOf(
  inputs(
    [{ name: 'token bucket 5/s', config: bucket(5, 5) }],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 5, startMs: 0, endMs: 20_000 }],
      clock: { mode: 'monotonic', jumps: [{ atMs: 8000, byMs: -5000 }] },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  CLOCK_AXES,
);

const clockJump: Experiment = {
  id: 'clock-jump',
  title: 'The clock steps back',
  question:
    'Clients send exactly the refill rate, 5 a second, and at 8 s NTP sets the wall clock back 5 s: what happens to a token bucket that reads the wall clock, and one that reads a monotonic clock?',
  lookAt:
    'Switch to the wall clock: after the jump the bucket sees time standing still before its last update, so it stops refilling until the clock catches up.',
  inputs: (clockVariants[0] as ExperimentVariant).inputs,
  variants: clockVariants,
  startAtMs: 10_000,
  measure(result) {
    const jumps = result.scenario.clock.jumps;
    const runs = runAxes(result, CLOCK_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const rejects = rejectTimes(lane);
      return { axis, lane, rejects };
    });
    const parts = runs.map(({ axis, lane, rejects }) => {
      const first = rejects[0];
      const last = rejects.at(-1);
      if (first === undefined || last === undefined)
        return `${axis.label}: none of ${n(lane.metrics.total.offered)} rejected`;
      return `${axis.label}: ${n(rejects.length)} get ${status(lane)}, from ${secs(first)} to ${secs(last)}`;
    });
    const jump = jumps.length === 1 ? jumps[0] : undefined;
    const when =
      jump === undefined
        ? ''
        : `The wall clock ${jump.byMs < 0 ? 'steps back' : 'jumps ahead'} ${secs(Math.abs(jump.byMs))} at ${secs(jump.atMs)}. `;
    return {
      headline: `${when}${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, lane, rejects }) => [
        {
          label: `${axis.label}: rejected`,
          value: `${n(rejects.length)} of ${n(lane.metrics.total.offered)}`,
        },
        {
          label: `${axis.label}: refill stalled`,
          value:
            rejects.length > 0
              ? `${secs((rejects.at(-1) as number) - (rejects[0] as number))}, from ${secs(rejects[0] as number)}`
              : 'never',
        },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 12. Envoy's old interval refill vs continuous refill
// ---------------------------------------------------------------------------------------------

const envoy = (refill: 'interval' | 'continuous'): AlgorithmConfig => ({
  kind: 'token-bucket',
  maxTokens: 10,
  tokensPerFill: 10,
  fillIntervalMs: 1000,
  refill,
});

/** The longest time between consecutive ascending `timesMs`; 0 with fewer than two. */
function longestGapMs(timesMs: readonly number[]): number {
  let gap = 0;
  for (let i = 1; i < timesMs.length; i += 1)
    gap = Math.max(gap, (timesMs[i] as number) - (timesMs[i - 1] as number));
  return gap;
}

const STEP_WINDOW_MS = 250;
/** The first fill interval spends the bucket's initial 10 tokens: measure the steady state after. */
const STEADY_FROM_MS = 2000;

const envoyRefill: Experiment = {
  id: 'envoy-refill',
  title: "Envoy's interval refill vs continuous",
  question:
    "An Envoy token bucket (max_tokens=10, tokens_per_fill=10, fill_interval=1s) faces 40 requests a second: how do the old interval timer and today's continuous refill hand out the same 10 a second?",
  lookAt:
    'Watch the token level: the interval bucket jumps back to 10 at every whole second and is empty in between; the continuous one gains a token every 100 ms.',
  inputs: inputs(
    [
      { name: 'interval refill', config: envoy('interval') },
      { name: 'continuous refill', config: envoy('continuous') },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 40, startMs: 0, endMs: 10_000 }],
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    10_000,
  ),
  startAtMs: 2600,
  measure(result) {
    const fromMs = Math.min(STEADY_FROM_MS, result.untilMs - 1);
    const seconds = (result.untilMs - fromMs) / 1000;
    const per = result.lanes.map((lane) => {
      const c = lane.columns;
      const times: number[] = [];
      const [start, end] = rowRange(c, fromMs, result.untilMs);
      for (let r = start; r < end; r += 1)
        if (passed(c.outcome[r] as number)) times.push(c.arrivalMs[r] as number);
      return {
        lane,
        rate: times.length / seconds,
        gap: longestGapMs(times),
        peak: peakWindow(Float64Array.from(times), times.length, STEP_WINDOW_MS).count,
      };
    });
    const parts = per.map(
      ({ lane, rate, gap, peak }) =>
        `${lane.name} passes ${dec(rate, 1)}/s, up to ${n(peak)} within ${secs(STEP_WINDOW_MS)}, with gaps of up to ${secs(gap)}`,
    );
    return {
      headline: `From ${secs(fromMs)} on, ${parts.join('; ')}.`,
      facts: per.flatMap(({ lane, rate, gap, peak }) => [
        { label: `${lane.name}: passed per second from ${secs(fromMs)}`, value: dec(rate, 1) },
        { label: `${lane.name}: most passed in any ${secs(STEP_WINDOW_MS)}`, value: n(peak) },
        { label: `${lane.name}: longest gap between passes`, value: secs(gap) },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// 13 – 15. Fleets (issue 14)
// ---------------------------------------------------------------------------------------------

/** The fleet part of a lane, or null for a run without one (the person may have edited it out). */
function fleetOf(lane: LaneResult | undefined): LaneFleet | null {
  return lane?.fleet ?? null;
}

/** Passed rows of `lane` with arrival in [fromMs, toMs), per second. */
function passedRate(lane: LaneResult, fromMs: number, toMs: number): number {
  return toMs > fromMs ? (passedIn(lane, fromMs, toMs) * 1000) / (toMs - fromMs) : 0;
}

/** The busiest replica's share of a lane's attempts (from the instance column). */
function maxShare(lane: LaneResult): { slot: number; share: number } {
  const c = lane.columns;
  const counts = new Map<number, number>();
  const one = c.instance.length < c.rows;
  for (let r = 0; r < c.rows; r += 1) {
    const i = one ? 0 : (c.instance[r] as number);
    counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  let slot = 0;
  let most = 0;
  for (const [i, k] of counts) if (k > most || (k === most && i < slot)) [slot, most] = [i, k];
  return { slot, share: c.rows > 0 ? most / c.rows : 0 };
}

/** A fleet axis's scenario: 'shared-racy' has no fleet model, so the store takes its place. */
function fleetable(s: Scenario): Scenario {
  return s.deployment.state === 'shared-racy'
    ? { ...s, deployment: { ...s.deployment, state: 'shared-atomic' } }
    : s;
}

/**
 * The axes simulated, or null when the person's edits make an axis invalid (an outage longer than
 * a shortened run, say): the answer then falls back to plain counts.
 */
function tryAxes(
  result: SimResult,
  axes: readonly Axis[],
): Array<{ axis: Axis; run: SimResult }> | null {
  try {
    return runAxes(result, axes);
  } catch {
    return null;
  }
}

// 13. Twelve replicas at 600 r/s each (istio #54759)

const BALANCE_AXES: readonly Axis[] = [
  {
    id: 'skewed',
    label: 'Skewed balancer',
    apply: (sc) => {
      const s = fleetable(sc);
      return {
        ...s,
        deployment: {
          ...s.deployment,
          balancer: 'weighted',
          fleet: { ...s.deployment.fleet, weights: [11, ...Array<number>(11).fill(8)] },
        },
      };
    },
  },
  {
    id: 'even',
    label: 'Round-robin',
    apply: (s) => ({ ...s, deployment: { ...s.deployment, balancer: 'round-robin' } }),
  },
];

const skewVariants = variantsOf(
  inputs(
    [
      {
        name: 'Envoy 600 per s per replica',
        config: { kind: 'token-bucket', maxTokens: 60, tokensPerFill: 600, fillIntervalMs: 1000 },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 6000, startMs: 0, endMs: 2000 }],
      clients: { count: 1000, keying: 'shared', assign: 'round-robin' },
      deployment: { instances: 12, balancer: 'round-robin', state: 'local', roundTripMs: 5 },
      metrics: { windowMs: 1000, binMs: 50 },
    }),
    2000,
  ),
  BALANCE_AXES,
);

const fleetSkew: Experiment = {
  id: 'fleet-skew',
  title: 'Twelve replicas at 600 r/s each: why the limit bites early',
  question:
    'Twelve replicas each run an Envoy local limit of 600 requests/s, so the fleet should take 7,200/s: why do clients get 429s at 6,000/s when the balancer gives one replica a little more than its share?',
  lookAt:
    'The replica strip: replica 1 (the first colour) takes more than 1/12 of the traffic, empties its bucket and rejects while the other eleven still have tokens.',
  inputs: (skewVariants[0] as ExperimentVariant).inputs,
  variants: skewVariants,
  startAtMs: 1200,
  measure(result) {
    const seconds = result.untilMs / 1000;
    const axesRuns = tryAxes(result, BALANCE_AXES);
    if (axesRuns === null) return countsAnswer(result);
    const runs = axesRuns.map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      return { axis, lane, top: maxShare(lane), replicas: run.instances };
    });
    const lane0 = result.lanes[0];
    const perReplica = lane0 === undefined ? 0 : ratePerSec(lane0.config);
    const replicas = result.scenario.deployment.instances;
    const promised = perReplica * replicas;
    const offered = (lane0?.metrics.total.offered ?? 0) / seconds;
    const parts = runs.map(({ axis, lane, top }) => {
      const bites = top.share > 0 ? perReplica / top.share : 0;
      return `${axis.label}: the busiest replica (replica ${top.slot + 1}) takes ${share(top.share)}, so the limit bites at ${n(bites)}/s (${share(promised > 0 ? bites / promised : 0)} of ${n(promised)}/s); ${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)} rejected`;
    });
    return {
      headline: `${n(replicas)} replicas × ${n(perReplica)}/s promise ${n(promised)}/s; at ${n(offered)}/s offered — ${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, lane, top }) => {
        const first = rejectTimes(lane)[0];
        return [
          { label: `${axis.label}: busiest replica's share`, value: share(top.share) },
          {
            label: `${axis.label}: the per-replica limit bites at`,
            value: `${n(top.share > 0 ? perReplica / top.share : 0)}/s`,
          },
          {
            label: `${axis.label}: rejected (${status(lane)})`,
            value: `${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)}`,
          },
          { label: `${axis.label}: first 429`, value: first === undefined ? 'none' : secs(first) },
        ];
      }),
    };
  },
};

// 14. Scaling out lets a burst through (kyma-project/api-gateway #2829)

const SCALE_AXES: readonly Axis[] = [
  {
    id: 'scale-out',
    label: 'Scale out to 8 at 10 s',
    apply: (sc) => {
      const s = fleetable(sc);
      return {
        ...s,
        deployment: { ...s.deployment, fleet: { scale: [{ atMs: 10_000, instances: 8 }] } },
      };
    },
  },
  {
    id: 'stay',
    label: 'Stay at 4',
    apply: (s) => {
      const deployment = { ...s.deployment };
      delete deployment.fleet;
      return { ...s, deployment };
    },
  },
];

const SCALE_AT_MS = 10_000;

const scaleVariants = variantsOf(
  inputs(
    [
      {
        name: 'Envoy 100 per s split over N',
        config: bucket(100, 100),
      },
    ],
    scenario({
      sources: [
        { kind: 'constant', ratePerSec: 150, startMs: 0, endMs: 20_000 },
        { kind: 'burst', atMs: 10_200, count: 200 },
      ],
      clients: { count: 50, keying: 'shared', assign: 'round-robin' },
      deployment: { instances: 4, balancer: 'round-robin', state: 'local-divided', roundTripMs: 5 },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  SCALE_AXES,
);

const fleetScaleOut: Experiment = {
  id: 'fleet-scale-out',
  title: 'Scaling out lets a burst through',
  question:
    'A global limit of 100 requests/s is spread as 100 ÷ 4 = 25/s on each of 4 replicas, under 150/s of load with a burst of 200 at 10.2 s: what passes when the fleet scales out to 8 replicas at 10 s?',
  lookAt:
    'At 10 s four new replicas appear with full buckets (Envoy starts a token bucket full): the backend chart jumps, and from then on 8 × 25/s lets the whole load through.',
  inputs: (scaleVariants[0] as ExperimentVariant).inputs,
  variants: scaleVariants,
  startAtMs: 10_400,
  measure(result) {
    const at = Math.min(SCALE_AT_MS, result.untilMs);
    const axesRuns = tryAxes(result, SCALE_AXES);
    if (axesRuns === null) return countsAnswer(result);
    const runs = axesRuns.map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const f = fleetOf(lane);
      const burst = passedIn(lane, at, at + 1000);
      return {
        axis,
        lane,
        before: passedRate(lane, at - 5000, at),
        after: passedRate(lane, at + 1000, run.untilMs),
        burst,
        beyond: f?.metrics.beyond.count ?? 0,
        replicas: run.instances,
      };
    });
    const lane0 = result.lanes[0];
    const global = lane0 === undefined ? 0 : ratePerSec(lane0.config);
    const parts = runs.map(
      (r) =>
        `${r.axis.label}: ${n(r.burst)} pass in the second after 10 s and ${dec(r.after, 1)}/s after that (${n(r.beyond)} beyond the global limit)`,
    );
    return {
      headline: `Global limit ${n(global)}/s, ${dec(runs[0]?.before ?? 0, 1)}/s passing before 10 s — ${parts.join('; ')}. New replicas start full, and global ÷ N was computed for N = ${n(result.scenario.deployment.instances)}.`,
      facts: runs.flatMap((r) => [
        { label: `${r.axis.label}: replicas at most`, value: n(r.replicas) },
        { label: `${r.axis.label}: passed in the second after 10 s`, value: n(r.burst) },
        { label: `${r.axis.label}: passed per second after 11 s`, value: dec(r.after, 1) },
        { label: `${r.axis.label}: beyond the global limit`, value: n(r.beyond) },
        {
          label: `${r.axis.label}: worst burst at the backend in any 1 s`,
          value: n(r.lane.metrics.peakBackend.count),
        },
      ]),
    };
  },
};

// 15. The store is down (istio #12115: 429; envoyproxy/ratelimit #333: 500; failure_mode_deny)

const OUTAGE = { fromMs: 8000, toMs: 14_000 };
const STORE_BASE: StoreModel = { rttMs: 2, jitterMs: 3, outages: [OUTAGE], onDown: 'closed' };
const storePolicy =
  (onDown: StoreModel['onDown']) =>
  (sc: Scenario): Scenario => {
    const s = fleetable(sc);
    const store = s.deployment.fleet?.store ?? STORE_BASE;
    return {
      ...s,
      deployment: {
        ...s.deployment,
        fleet: {
          ...s.deployment.fleet,
          store: { ...store, onDown, ...(onDown === 'closed' ? { downStatus: 429 } : {}) },
        },
      },
    };
  };
const STORE_AXES: readonly Axis[] = [
  { id: 'closed', label: 'Fail closed (429)', apply: storePolicy('closed') },
  { id: 'open', label: 'Fail open', apply: storePolicy('open') },
  { id: 'local', label: 'Local fallback', apply: storePolicy('local') },
];

const storeVariants = variantsOf(
  inputs(
    [
      {
        name: 'ratelimit service 100 per s',
        config: { kind: 'fixed-window', limit: 100, windowMs: 1000 },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 150, startMs: 0, endMs: 20_000 }],
      clients: { count: 50, keying: 'shared', assign: 'round-robin' },
      deployment: {
        instances: 4,
        balancer: 'round-robin',
        state: 'shared-atomic',
        roundTripMs: 5,
        fleet: { store: { ...STORE_BASE, downStatus: 429 } },
      },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  STORE_AXES,
);

const fleetStoreDown: Experiment = {
  id: 'fleet-store-down',
  title: 'The store is down: 429 for everyone, or nobody limited',
  question:
    'Four replicas share a global limit of 100 requests/s in a store, under 150/s of load, and the store is unreachable from 8 s to 14 s: what do clients get if the replicas fail closed, fail open, or fall back to a local limit of 100 ÷ 4?',
  lookAt:
    'Inside the outage the inspector says "store unreachable" and which policy decided; switch the variants and watch passes per second against the limit.',
  inputs: (storeVariants[0] as ExperimentVariant).inputs,
  variants: storeVariants,
  startAtMs: 9000,
  measure(result) {
    const outage = result.scenario.deployment.fleet?.store?.outages[0] ?? OUTAGE;
    const to = Math.min(outage.toMs, result.untilMs);
    const from = Math.min(outage.fromMs, to);
    const axesRuns = tryAxes(result, STORE_AXES);
    if (axesRuns === null) return countsAnswer(result);
    const runs = axesRuns.map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const f = fleetOf(lane);
      const c = lane.columns;
      const [start, end] = rowRange(c, from, to);
      let rejected = 0;
      for (let r = start; r < end; r += 1) if (!passed(c.outcome[r] as number)) rejected += 1;
      return {
        axis,
        lane,
        rate: passedRate(lane, from, to),
        rejected,
        offered: end - start,
        beyond: f?.metrics.beyond.count ?? 0,
        status: run.scenario.deployment.fleet?.store?.downStatus ?? 500,
      };
    });
    const lane0 = result.lanes[0];
    const limit = lane0 === undefined ? 0 : ratePerSec(lane0.config);
    const parts = runs.map(
      (r) =>
        `${r.axis.label}: ${dec(r.rate, 1)}/s pass, ${n(r.rejected)} of ${n(r.offered)} rejected, ${n(r.beyond)} beyond the limit`,
    );
    return {
      headline: `While the store is down (from ${secs(from)} to ${secs(to)}), against a limit of ${n(limit)}/s: ${parts.join('; ')}.`,
      facts: runs.flatMap((r) => [
        { label: `${r.axis.label}: passed per second in the outage`, value: dec(r.rate, 1) },
        {
          label: `${r.axis.label}: rejected in the outage`,
          value: `${n(r.rejected)} of ${n(r.offered)}${r.axis.id === 'closed' ? ` (${r.status})` : ''}`,
        },
        { label: `${r.axis.label}: beyond the global limit`, value: n(r.beyond) },
      ]),
    };
  },
};

// ---------------------------------------------------------------------------------------------

/** The library, in the order it is shown. */
export const EXPERIMENTS: readonly Experiment[] = [
  boundaryBurst,
  steadyOverload,
  pageLoad,
  nginxBurst,
  queueVsEdge,
  retryStorm,
  emptyVsFull,
  slidingLogMemory,
  natKey,
  instances,
  clockJump,
  envoyRefill,
  fleetSkew,
  fleetScaleOut,
  fleetStoreDown,
];

/** The experiment with this id, or undefined. */
export function experimentById(id: string): Experiment | undefined {
  return EXPERIMENTS.find((e) => e.id === id);
}
