/**
 * Values derived from the store's inputs, memoised by identity: the store keeps inputs only
 * (CONVENTIONS.md, "Derived, not stored"). Actions replace changed inputs with new objects, so an
 * identity check is enough.
 */
import { SimulationInputError, createSimCache, seekerFor, simulate, validateRun } from '../sim';
import type { LaneResult, LaneState, ScenarioIssue, SimLimiter, SimResult, SimTrace } from '../sim';
import { tracesFor } from './traceSim';
import { simLimiters as configSimLimiters } from '../config/keys';
import type { PlaygroundInputs } from './types';

export type SimOutcome =
  { ok: true; result: SimResult } | { ok: false; issues: readonly ScenarioIssue[] };

/**
 * What a run depends on. `traces`: the replayable traces it was made with (default: what the page
 * holds now for this scenario, `tracesFor`).
 */
export type RunInputs = Pick<PlaygroundInputs, 'limiters' | 'scenario' | 'untilMs'> & {
  traces?: readonly SimTrace[];
};

/** The traces a run of `inputs` replays. */
export function runTraces(inputs: RunInputs): readonly SimTrace[] {
  return inputs.traces ?? tracesFor(inputs.scenario);
}

let last: { inputs: RunInputs; outcome: SimOutcome } | null = null;
/** Arrivals and lane runs kept between runs on this thread: an edit re-runs the edited lane. */
const cache = createSimCache();

export function sameRun(a: RunInputs, b: RunInputs): boolean {
  return (
    a.limiters === b.limiters &&
    a.scenario === b.scenario &&
    a.untilMs === b.untilMs &&
    runTraces(a) === runTraces(b)
  );
}

/** The outcome for exactly these inputs if it is the one kept, else null (nothing computed). */
export function cachedOutcome(inputs: RunInputs): SimOutcome | null {
  return last !== null && sameRun(last.inputs, inputs) ? last.outcome : null;
}

/** The last run kept (what the page shows while a newer one computes), or null. */
export function lastRun(): { inputs: RunInputs; outcome: SimOutcome } | null {
  return last;
}

/** Keeps an outcome computed elsewhere (the worker) as the one for `inputs`. */
export function rememberOutcome(inputs: RunInputs, outcome: SimOutcome): void {
  last = {
    inputs: {
      limiters: inputs.limiters,
      scenario: inputs.scenario,
      untilMs: inputs.untilMs,
      traces: runTraces(inputs),
    },
    outcome,
  };
}

/** Limiters as the simulator takes them, each named by config's `laneNames`. */
export function simLimiters(inputs: Pick<PlaygroundInputs, 'limiters'>): SimLimiter[] {
  return configSimLimiters(inputs);
}

/**
 * The run for these inputs (the last one is cached). Invalid inputs give their issues instead of
 * throwing: the UI shows them and keeps everything else on screen.
 */
export function simulationOf(inputs: RunInputs): SimOutcome {
  if (last !== null && sameRun(last.inputs, inputs)) return last.outcome;
  const limiters = simLimiters(inputs);
  const issues = validateRun(limiters, inputs.scenario, inputs.untilMs);
  let outcome: SimOutcome;
  if (issues.length > 0) outcome = { ok: false, issues };
  else {
    try {
      outcome = {
        ok: true,
        result: simulate(limiters, inputs.scenario, inputs.untilMs, {
          cache,
          traces: runTraces(inputs),
        }),
      };
    } catch (e) {
      if (!(e instanceof SimulationInputError)) throw e;
      outcome = { ok: false, issues: e.issues };
    }
  }
  rememberOutcome(inputs, outcome);
  return outcome;
}

const laneStates = new WeakMap<
  LaneResult,
  { result: SimResult; lane: number; tMs: number; key: string; state: LaneState }
>();

/**
 * Lane `lane`'s state at whole-ms `tMs` for `key` (the result's shared seeker, that lane's cursor
 * only), the last one cached per lane result. A lane drawn from an older result whose lane is the
 * same object (simulate's cache keeps unchanged lanes) asks that result's seeker: its cursor goes
 * on from where it was instead of starting over.
 */
export function laneStateAtTime(
  result: SimResult,
  lane: number,
  tMs: number,
  key: string,
): LaneState | undefined {
  const laneResult = result.lanes[lane];
  if (laneResult === undefined) return undefined;
  const t = Math.floor(tMs);
  const kept = laneStates.get(laneResult);
  if (kept?.result === result && kept.lane === lane && kept.tMs === t && kept.key === key) {
    return kept.state;
  }
  const state = seekerFor(result).laneStateAt(lane, t, key);
  laneStates.set(laneResult, { result, lane, tMs: t, key, state });
  return state;
}

export { seekerFor };
