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

/**
 * Content keys of a result made with a SimCache: equal keys mean equal content (the run is
 * deterministic), so another thread holding a piece under its key need not be sent it again.
 */
export interface ResultKeys {
  /** The first attempts and keys (arrivals, keyNames, clientKey). */
  traffic: string;
  /** Each lane's result (its run, name, metrics options and instance column). */
  lanes: string[];
  /** Every lane's instance column is the run's one column of zeros (one instance). */
  zeros: boolean;
}

export interface SimInternals {
  clock: WallClock;
  lanes: LaneInternals[];
  /** Present for results made with a cache (see ResultKeys). */
  keys?: ResultKeys;
}

const registry = new WeakMap<SimResult, SimInternals>();

export function attachInternals(result: SimResult, internals: SimInternals): void {
  registry.set(result, internals);
}

export function hasInternals(result: SimResult): boolean {
  return registry.has(result);
}

/** The content keys of a result made with a cache (null otherwise, or for a foreign result). */
export function resultKeys(result: SimResult): ResultKeys | null {
  return registry.get(result)?.keys ?? null;
}

export function internalsOf(result: SimResult): SimInternals {
  const internals = registry.get(result);
  if (internals === undefined) {
    throw new TypeError('not a result of simulate(): seeking needs the result object itself');
  }
  return internals;
}
