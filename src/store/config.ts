import { CONFIG_VERSION, deepEqual } from '../config';
import type { PlaygroundConfig } from '../config';
import { experimentById } from '../config/experiments/registry';
import type { ExperimentInputs } from '../config/experiments';
import type { ExperimentRef, PlaygroundState } from './types';

/**
 * The config a link or the saved settings carry for this state. With `pausedAt`, the clock is
 * paused there (what "Copy link" shares: the same moment, the same pixels).
 */
export function configOf(s: PlaygroundState, pausedAt?: number): PlaygroundConfig {
  const tMs = Math.floor(pausedAt ?? s.tMs);
  return {
    version: CONFIG_VERSION,
    limiters: s.limiters,
    scenario: s.scenario,
    view: {
      untilMs: s.untilMs,
      tMs,
      paused: pausedAt !== undefined || !s.playing,
      speed: s.speed,
      selected: s.selected,
      mode: s.mode,
    },
  };
}

/** The inputs an experiment reference stands for (null for an unknown id). */
export function experimentInputs(ref: ExperimentRef): ExperimentInputs | null {
  const experiment = experimentById(ref.id);
  if (experiment === undefined) return null;
  return experiment.variants?.find((v) => v.id === ref.variant)?.inputs ?? experiment.inputs;
}

/** Whether the state still runs the experiment as written (compared by value: a link may load it). */
export function isExperimentAsWritten(
  s: Pick<PlaygroundState, 'experiment' | 'limiters' | 'scenario' | 'untilMs'>,
): boolean {
  if (s.experiment === null) return false;
  const inputs = experimentInputs(s.experiment);
  return (
    inputs !== null &&
    s.untilMs === inputs.untilMs &&
    deepEqual(s.limiters, inputs.limiters) &&
    deepEqual(s.scenario, inputs.scenario)
  );
}
