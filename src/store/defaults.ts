import { DEFAULTS, defaultConfig } from '../config';
import type { PlaygroundConfig } from '../config';
import type { AlgorithmConfig, AlgorithmKind } from '../core';
import type { PlaygroundInputs } from './types';

/** Each algorithm's starting parameters: the link format's defaults, so links stay short. */
export const DEFAULT_LIMITERS: Readonly<Record<AlgorithmKind, AlgorithmConfig>> = DEFAULTS.limiter;

/** Playback speeds offered, virtual ms per real ms (log steps). */
export const SPEEDS: readonly number[] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100];

/** The inputs of a config (everything but the clock and the selection). */
export function inputsOf(config: PlaygroundConfig): PlaygroundInputs {
  return {
    limiters: config.limiters,
    scenario: config.scenario,
    untilMs: config.view.untilMs,
    mode: config.view.mode,
  };
}

/** What the playground opens with when there is no link and nothing saved: the v1 defaults. */
export function defaultInputs(): PlaygroundInputs {
  return inputsOf(defaultConfig());
}
