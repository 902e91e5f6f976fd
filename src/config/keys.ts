/** Keys and comparisons of configs, and the limiter list as the simulator takes it. */
import { emptyKeyOutcome } from '../core';
import type { EmptyKeyLaneOutcome, NamedLimiter } from '../sim';
import { systemOf } from '../systems';
import type { SystemInfo } from '../systems';
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
 * system's): the run's lanes carry the names every view, answer and download shows. A lane whose
 * system keeps requests with an empty key from its limiter says so (`emptyKey`: not limited, or
 * denied), and one that keys them by their client address (Kong) says `'client'`, so a replayed
 * trace's empty-key requests get that system's rule.
 */
export function simLimiters(config: Pick<PlaygroundConfig, 'limiters'>): NamedLimiter[] {
  const names = laneNames(config.limiters);
  return config.limiters.map((l, i) => {
    // Read defensively: a list being validated may hold anything (laneNames reads it alike).
    const kind = (l.config as { kind?: unknown } | undefined)?.kind;
    const system = typeof kind === 'string' ? (systemOf(l) as SystemInfo | undefined) : undefined;
    const outcome: EmptyKeyLaneOutcome | 'client' | null =
      system?.emptyKey === 'client' ? 'client' : emptyKeyOutcome(system?.emptyKey);
    return {
      name: names[i] as string,
      config: l.config,
      ...(outcome === null ? {} : { emptyKey: outcome }),
    };
  });
}
