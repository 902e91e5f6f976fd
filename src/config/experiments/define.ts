/**
 * Building blocks of the experiment library (./library.ts): the types every experiment is written
 * against and the helpers that build their inputs, variants and answers.
 */
import type { AlgorithmConfig } from '../../core';
import { defaultScenario } from '../../sim';
import type { Scenario, SimResult } from '../../sim';
import { list, n, outcomeFacts, rerun } from '../measure';
import type { Answer } from '../measure';
import type { ScenarioConfig } from '../schema';
export type { Answer, AnswerFact } from '../measure';

/** One limiter of an experiment (the store's `LimiterEntry`). */
export interface ExperimentLimiter {
  /** Shown in the UI and used as the RateLimit policy name. Default: the algorithm's name. */
  name?: string;
  config: AlgorithmConfig;
  /** The real system (src/systems id) when not the algorithm's default, e.g. 'traefik'. */
  system?: string;
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
export function scenario(overrides: Partial<Scenario>): Scenario {
  return { ...defaultScenario(), ...overrides };
}

/** Inputs whose chart window is the scenario's metrics window (1 s unless set). */
export function inputs(
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
export interface Axis {
  id: string;
  label: string;
  apply: (s: Scenario) => Scenario;
}

export function variantsOf(base: ExperimentInputs, axes: readonly Axis[]): ExperimentVariant[] {
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
export function runAxes(
  result: SimResult,
  axes: readonly Axis[],
): Array<{ axis: Axis; run: SimResult }> {
  return axes.map((axis) => ({ axis, run: rerun(result, axis.apply(result.scenario)) }));
}

/** A generic answer, for runs edited beyond what an experiment's measure reads. */
export function countsAnswer(result: SimResult): Answer {
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
