/**
 * What a result keeps for seeking but does not show: checkpoints hold live Limiter objects, which
 * are not plain data, so they live beside the result instead of in it.
 */
import type { WallClock } from './clock';
import type { EngineSnapshot } from './deployment';
import type { FleetSnapshot } from './fleet';
import type { SimResult } from './types';

/** The engine's state just before row `row` was decided (and before writes due at its time landed). */
export interface Checkpoint {
  row: number;
  snapshot: EngineSnapshot | FleetSnapshot;
  /** Estimated bytes (core stateSize plus a per-key overhead). */
  bytes: number;
}

export interface LaneInternals {
  checkpoints: Checkpoint[];
  /** Rows between checkpoints. */
  every: number;
  /**
   * True for a result adopted from elsewhere (made in a worker: its checkpoints held live objects
   * and stayed there): the seeker records checkpoints as it replays, every `every` rows.
   */
  lazy?: boolean;
}

export interface SimInternals {
  clock: WallClock;
  lanes: LaneInternals[];
}

const registry = new WeakMap<SimResult, SimInternals>();

export function attachInternals(result: SimResult, internals: SimInternals): void {
  registry.set(result, internals);
}

export function hasInternals(result: SimResult): boolean {
  return registry.has(result);
}

export function internalsOf(result: SimResult): SimInternals {
  const internals = registry.get(result);
  if (internals === undefined) {
    throw new TypeError('not a result of simulate(): seeking needs the result object itself');
  }
  return internals;
}
