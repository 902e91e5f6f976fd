/** Keys and comparisons of configs, and the limiter list as the simulator takes it. */
import type { AlgorithmConfig } from '../core';
import { DEFAULTS } from './defaults';
import { deepEqual } from './equal';
import type { PlaygroundConfig } from './schema';
import { encodeConfig } from './url-encode';
import { laneNames } from './laneNames';

/** A string that is equal for two valid configs exactly when they are deep-equal (the link). */
export function configKey(config: PlaygroundConfig): string {
  return encodeConfig(config);
}

/** Whether two valid configs are the same. */
export function configsEqual(a: PlaygroundConfig, b: PlaygroundConfig): boolean {
  return deepEqual(a, b);
}

/**
 * A key for what the simulation depends on (limiters, scenario, run length): two configs with the
 * same key give the same simulation result, whatever their time, selection or speed.
 */
export function runKey(config: PlaygroundConfig): string {
  const base = DEFAULTS.config.view;
  return encodeConfig({ ...config, view: { ...base, untilMs: config.view.untilMs } });
}

/**
 * The limiter list as `simulate` takes it, each lane named by `laneNames` (its own name, else its
 * system's): the run's lanes carry the names every view, answer and download shows.
 */
export function simLimiters(
  config: Pick<PlaygroundConfig, 'limiters'>,
): Array<{ name: string; config: AlgorithmConfig }> {
  const names = laneNames(config.limiters);
  return config.limiters.map((l, i) => ({ name: names[i] as string, config: l.config }));
}
