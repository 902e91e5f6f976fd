/**
 * The diagnosis: which configurations explain every observed decision of a run, exactly, within
 * the run's measured timing tolerance. It searches the system's parameters around the configured
 * ones (the sweep's way of laying out values around the current one), the number of replicas each
 * holding its own state (with every round-robin start), and the key (as planned, or every request
 * counted as one client), and replays each candidate through the core's limiter (`replay`), dropping
 * it at its first unexplained request. The answers closest to the configuration come first:
 * "consistent with burst 19", "consistent with 2 replicas each holding its own bucket of burst 20".
 *
 * Pure and bounded: at most `MAX_CANDIDATES` replays; the page runs it in a worker.
 */
import type { AlgorithmConfig, Limiter } from '../core';
import { RANGES, checkAlgorithmConfig, createLimiter, plural } from '../core';
import { systemOf } from '../systems';
import type { Hypothesis } from './model';
import { ModelRun } from './model';
import type { Observation, Pairing, Replay, Timing } from './observe';
import { replay } from './observe';
import type { KeyMode, Plan } from './plan';
import { configuredHypothesis, rateOf } from './plan';
import { fieldOf, paramWords, searchedFields, stateNoun } from './words';

/** Most candidates replayed in one diagnosis. */
export const MAX_CANDIDATES = 60_000;
/** Most replicas tried. */
export const MAX_REPLICAS = 4;

/** A configuration that explains the run, with how it differs from the configured one. */
export interface Explanation {
  hypothesis: Hypothesis;
  /** What differs from the configuration, in the system's words ("burst 19 (configured: 20)"). */
  changes: string[];
  /** "consistent with …". */
  text: string;
  /** Parts changed (parameters, replicas, key); the configuration itself is 0. */
  distance: number;
}

export interface Diagnosis {
  /** Candidates replayed. */
  searched: number;
  /** Whether the configuration itself explains every observed decision. */
  configuredExplains: boolean;
  /** The explanations with the fewest changes first (at most 5), and how many explain in all. */
  explanations: Explanation[];
  explaining: number;
  /** One paragraph: what the run is consistent with. */
  summary: string;
  /** True when the candidates were cut at MAX_CANDIDATES. */
  capped: boolean;
}

/** Whole values around `v`: v − span … v + span, and v·k for the factors, within [lo, hi]. */
function around(
  v: number,
  span: number,
  factors: readonly number[],
  lo: number,
  hi: number,
): number[] {
  const out = new Set<number>();
  for (let d = -span; d <= span; d += 1) out.add(v + d);
  for (const f of factors) out.add(Math.round(v * f));
  return [...out].filter((x) => Number.isInteger(x) && x >= lo && x <= hi).sort((a, b) => a - b);
}

/** 0 … 2·size + 3: every size a burst of 2·size + 2 tells apart. */
function sizes(v: number, lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let x = lo; x <= Math.min(hi, 2 * v + 3); x += 1) out.push(x);
  return out;
}

/** The values tried for each searched field of `config`. */
export function searchSpace(config: AlgorithmConfig): Array<[string, unknown[]]> {
  const rateFactors = [0.5, 1 / 1.2, 1.2, 1.5, 2, 3];
  switch (config.kind) {
    case 'leaky-bucket': {
      const delays = new Set<number | 'nodelay'>(['nodelay', 0, config.delay]);
      if (typeof config.delay === 'number') {
        for (const d of [config.delay - 1, config.delay + 1]) if (d >= 0) delays.add(d);
      }
      return [
        ['burst', sizes(config.burst, 0, RANGES['leaky-bucket'].burst.max)],
        ['rate', around(config.rate, 2, rateFactors, 1, RANGES['leaky-bucket'].rate.max)],
        ['delay', [...delays]],
      ];
    }
    case 'token-bucket':
      return [
        ['maxTokens', sizes(config.maxTokens, 1, RANGES['token-bucket'].maxTokens.max)],
        [
          'tokensPerFill',
          around(config.tokensPerFill, 2, rateFactors, 1, RANGES['token-bucket'].tokensPerFill.max),
        ],
      ];
    case 'gcra':
      return [
        ['burst', sizes(config.burst, 0, RANGES.gcra.burst.max)],
        ['count', around(config.count, 2, rateFactors, 1, RANGES.gcra.count.max)],
      ];
    case 'calendar-windows': {
      const field = searchedFields(config)[0] as string;
      const v = fieldOf(config, field) as number;
      return [[field, sizes(v, 1, 1_000_000_000)]];
    }
    default: {
      const c = config as { limit: number; windowMs: number };
      return [
        ['limit', sizes(c.limit, 1, 1_000_000)],
        ['windowMs', around(c.windowMs, 0, [0.5, 0.9, 1.1, 2], 2, 86_400_000)],
      ];
    }
  }
}

/**
 * The replica layouts tried: one, and 2 – 4 (and the configured number) each with its own state.
 * Round robin's starting replica is not searched: replicas start idle and alike, so it only names
 * them.
 */
function layouts(configured: Hypothesis): Array<Pick<Hypothesis, 'replicas' | 'state' | 'offset'>> {
  const counts = new Set([
    1,
    2,
    3,
    MAX_REPLICAS,
    configured.state === 'local' ? configured.replicas : 1,
  ]);
  return [...counts]
    .sort((a, b) => a - b)
    .map((replicas) => ({ replicas, state: 'local' as const, offset: 0 }));
}

/** Whether two layouts decide alike (one replica, or one shared state, are the same). */
function sameLayout(
  a: Pick<Hypothesis, 'replicas' | 'state'>,
  b: Pick<Hypothesis, 'replicas' | 'state'>,
): boolean {
  const ea = a.state === 'shared' ? 1 : a.replicas;
  const eb = b.state === 'shared' ? 1 : b.replicas;
  return ea === eb;
}

/** What the key hypothesis means in words. */
function keyWords(key: KeyMode): string {
  if (key.kind === 'header') return `the ${key.name} header`;
  if (key.kind === 'address') return 'the client address';
  return 'the key';
}

/** "2 replicas each holding its own bucket of burst 20", "burst 19 (configured: 20)", … */
export function describeHypothesis(
  h: Hypothesis,
  configured: Hypothesis,
  plan: Plan,
): { changes: string[]; text: string; distance: number } {
  if (h.config === null) {
    return {
      changes: ['no limit'],
      text: 'consistent with no limit at all on these requests (every one passed)',
      distance: 3,
    };
  }
  const system = systemOf(plan.subject.entry);
  const base = configured.config as AlgorithmConfig;
  const fields = searchedFields(base);
  const size = fields[0] as string;
  const changes: string[] = [];
  const parts: string[] = [];
  let distance = 0;
  const layoutChanged = !sameLayout(h, configured);
  if (layoutChanged) {
    distance += 1;
    const lead =
      h.replicas > 1
        ? `${plural(h.replicas, 'replica')} each holding its own ${stateNoun(h.config)} of ${paramWords(system, h.config, size, fieldOf(h.config, size))}`
        : `one ${stateNoun(h.config)} for all (configured: ${plural(configured.replicas, 'replica')} each with its own)`;
    changes.push(lead);
    parts.push(lead);
  }
  for (const f of fields) {
    const was = fieldOf(base, f);
    const now = fieldOf(h.config, f);
    if (was === now) continue;
    distance += 1;
    const change = `${paramWords(system, h.config, f, now)} (configured: ${paramWords(system, base, f, was)})`;
    changes.push(change);
    // With replicas named, the size is already in the lead.
    if (!(layoutChanged && h.replicas > 1 && f === size)) parts.push(change);
  }
  if (h.keying !== configured.keying) {
    distance += 1;
    const k = `every request counted as one client: the gateway does not key by ${keyWords(plan.key)}`;
    changes.push(k);
    parts.push(k);
  }
  return {
    changes,
    text:
      distance === 0
        ? 'consistent with the configuration'
        : `consistent with ${parts.join(' and ')}`,
    distance,
  };
}

/**
 * The configs searched, as the size field's values (ascending) and every combination of the other
 * fields' values (the configured combination first). A config the core refuses is skipped later.
 */
export function candidateGrid(plan: Plan): {
  sizeField: string;
  sizes: number[];
  others: Array<Record<string, unknown>>;
} {
  const base = plan.subject.entry.config;
  const [first, ...rest] = searchSpace(base);
  const [sizeField, sizeValues] = first as [string, unknown[]];
  let others: Array<Record<string, unknown>> = [{}];
  for (const [field, values] of rest) {
    others = others.flatMap((o) => values.map((v) => ({ ...o, [field]: v })));
  }
  const changed = (o: Record<string, unknown>) =>
    Object.entries(o).filter(([f, v]) => fieldOf(base, f) !== v).length;
  others.sort((x, y) => changed(x) - changed(y));
  return { sizeField, sizes: (sizeValues as number[]).slice().sort((x, y) => x - y), others };
}

/** Positions (in decision order) of the plan's first group, the burst every plan opens with. */
function firstGroup(plan: Plan, p: Pairing): number[] {
  const g = plan.requests[0]?.group;
  const out: number[] = [];
  p.order.forEach((i, k) => {
    if (plan.requests[i]?.group === g) out.push(k);
  });
  return out;
}

/**
 * Requests the model passes in the first group (at the send times): it grows with the limiter's
 * size, which lets the search skip the sizes whose first burst is far from what was observed.
 */
function passesAtOnce(
  h: Hypothesis,
  plan: Plan,
  p: Pairing,
  positions: readonly number[],
  idle: Limiter,
): number {
  const run = ModelRun.start(h, idle);
  let n = 0;
  for (const k of positions) {
    const d = run.decideNow(p.timesMs[k] as number, plan.requests[p.order[k] as number]?.slot ?? 0);
    if (d.outcome !== 'reject') n += 1;
  }
  return n;
}

/** Searches for the configurations that explain every observation (see the module's comment). */
export function diagnose(
  plan: Plan,
  p: Pairing,
  timing: Timing,
  observations: readonly Observation[],
): Diagnosis {
  const configured = configuredHypothesis(plan.subject);
  const keyings: Array<Hypothesis['keying']> =
    plan.key.kind === 'none' || plan.keySlots < 2 ? ['planned'] : ['planned', 'one'];
  // Until the first request of another key, 'one' key decides exactly as the planned keys.
  const otherKey = p.order.findIndex((i) => (plan.requests[i]?.slot ?? 0) !== 0);
  const keysMatterFrom = otherKey < 0 ? Number.POSITIVE_INFINITY : otherKey;
  const found: Explanation[] = [];
  let configuredExplains = false;
  let searched = 0;
  /** Candidates set aside by their first burst alone. */
  let screened = 0;
  let capped = false;
  const consider = (h: Hypothesis, r: Replay) => {
    if (!r.explains) return;
    const words = describeHypothesis(h, configured, plan);
    if (words.distance === 0 && h.config !== null) configuredExplains = true;
    found.push({ hypothesis: h, ...words });
  };
  const grid = candidateGrid(plan);
  const first = firstGroup(plan, p);
  const observedAtOnce = first.filter((k) => {
    const kind = p.observed[k]?.kind;
    return kind === 'pass' || kind === 'redirect';
  }).length;
  const unanswered = first.some((k) => {
    const kind = p.observed[k]?.kind;
    return kind === 'error' || kind === 'unsent';
  });
  const spanMs =
    first.length === 0
      ? 0
      : (p.timesMs[first[first.length - 1] as number] as number) -
        (p.timesMs[first[0] as number] as number);
  const base = configured.config as AlgorithmConfig;
  outer: for (const other of grid.others) {
    for (const layout of layouts(configured)) {
      // The sizes whose first burst passes about as many as observed: the count grows with the
      // size, so two binary searches find them. "About": what refills while the burst is being
      // decided may move it by a few (counted generously).
      const configAt = (size: number): AlgorithmConfig | null => {
        const c = { ...base, ...other, [grid.sizeField]: size };
        return checkAlgorithmConfig(c).length === 0 ? c : null;
      };
      const idles = new Map<number, Limiter>();
      const idleAt = (size: number): Limiter | null => {
        const c = configAt(size);
        if (c === null) return null;
        let l = idles.get(size);
        if (l === undefined) {
          l = createLimiter(c, { originMs: p.originMs });
          idles.set(size, l);
        }
        return l;
      };
      const countAt = (size: number): number => {
        const idle = idleAt(size);
        if (idle === null) return -1;
        return passesAtOnce(
          { config: idle.config, ...layout, keying: 'planned' },
          plan,
          p,
          first,
          idle,
        );
      };
      let lo = 0;
      let hi = grid.sizes.length;
      if (first.length > 0 && !unanswered) {
        const c = configAt(grid.sizes[0] as number);
        const perMs = c === null ? 0 : rateOf(c).perMs * layout.replicas;
        const slack = 2 + Math.ceil(perMs * spanMs);
        const lowest = (want: number) => {
          let a = 0;
          let b = grid.sizes.length;
          while (a < b) {
            const m = (a + b) >> 1;
            if (countAt(grid.sizes[m] as number) < want) a = m + 1;
            else b = m;
          }
          return a;
        };
        lo = lowest(observedAtOnce - slack);
        hi = lowest(observedAtOnce + slack + 1);
      }
      for (let si = lo; si < hi; si += 1) {
        const size = grid.sizes[si] as number;
        const idle = idleAt(size);
        if (idle === null) continue;
        let planned: Replay | null = null;
        for (const keying of keyings) {
          if (searched >= MAX_CANDIDATES) {
            capped = true;
            break outer;
          }
          searched += 1;
          if (
            keying === 'one' &&
            planned !== null &&
            !planned.explains &&
            planned.firstMiss < keysMatterFrom
          ) {
            continue;
          }
          const h: Hypothesis = { config: idle.config, ...layout, keying };
          const r = replay(h, plan, p, timing.toleranceMs, true, idle);
          if (keying === 'planned') planned = r;
          consider(h, r);
        }
      }
      screened += grid.sizes.length * keyings.length - (hi - lo) * keyings.length;
    }
  }
  const none: Hypothesis = { ...configured, config: null, replicas: 1, offset: 0 };
  consider(none, replay(none, plan, p, timing.toleranceMs, true));
  searched += 1;
  found.sort((a, b) => a.distance - b.distance);
  // One explanation per wording (the same words can come from equivalent layouts).
  const distinct = found.filter((e, k) => found.findIndex((f) => f.text === e.text) === k);
  const answered = observations.some(
    (o) => o.kind === 'pass' || o.kind === 'reject' || o.kind === 'redirect',
  );
  let summary: string;
  if (!answered) {
    summary = 'Nothing to diagnose: no request was answered.';
  } else if (distinct.length === 0) {
    summary =
      'Nothing the search covers explains every observed decision: not these parameters nearby, not 1 – 4 replicas each with its own state, not one key for every request. The gateway may run another algorithm or more than one limit, or the network was too uneven to judge.';
  } else if (configuredExplains) {
    const others = distinct.filter((e) => e.distance > 0);
    summary =
      others.length === 0
        ? 'Every observed decision is the configuration’s, and no other configuration searched explains them.'
        : `Every observed decision is the configuration’s; ${others.length === 1 ? 'one other configuration' : `${others.length} other configurations`} searched also explain${others.length === 1 ? 's' : ''} them (${(others[0] as Explanation).text.replace(/^consistent with /, '')}${others.length > 1 ? ', …' : ''}).`;
  } else {
    const best = distinct[0] as Explanation;
    const ties = distinct.filter((e) => e.distance === best.distance);
    summary = `${capitalise(best.text)}.${
      ties.length > 1
        ? ` Equally: ${ties
            .slice(1, 3)
            .map((e) => e.text.replace(/^consistent with /, ''))
            .join('; ')}${ties.length > 3 ? '; …' : ''}.`
        : ''
    }`;
  }
  return {
    searched: searched + screened,
    configuredExplains,
    explanations: distinct.slice(0, 5),
    explaining: distinct.length,
    summary,
    capped,
  };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
