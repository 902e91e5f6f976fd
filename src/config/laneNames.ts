/**
 * The one rule for what a lane is called, wherever it shows: the stage, the timeline, the compare
 * table, the inspector, the charts, the experiment answers, screen-reader names and downloads.
 */
import type { AlgorithmConfig } from '../core';
import { systemOf } from '../systems';
import type { SystemId, SystemInfo } from '../systems';

/** What names a lane: the person's own name, else its system. */
export interface NamedLane {
  name?: string;
  system?: SystemId;
  config: AlgorithmConfig;
}

/**
 * Every lane's name, in order: the name the person gave it, else its system's (`shortName`: "nginx",
 * "Traefik", "Kong"). Two lanes with the same name are told apart by their place among the lanes of
 * that name: "nginx", "nginx #2", "nginx #3". The number follows the lanes' order, not their
 * parameters, so editing a lane never renames it (nor its downloads). Names are unique.
 */
export function laneNames(lanes: readonly NamedLane[]): string[] {
  const bases = lanes.map((l) => {
    if (typeof l.name === 'string') return l.name;
    // Lanes not yet validated (a link being repaired) may lack a known kind: they are named by
    // what they have, and the validation names what is wrong.
    const kind: unknown = (l.config as Partial<AlgorithmConfig> | undefined)?.kind;
    const system = typeof kind === 'string' ? (systemOf(l) as SystemInfo | undefined) : undefined;
    return system?.shortName ?? system?.name ?? (typeof kind === 'string' ? kind : 'limiter');
  });
  const taken = new Set<string>();
  const seen = new Map<string, number>();
  return bases.map((base) => {
    let n = seen.get(base) ?? 0;
    let name: string;
    do {
      n += 1;
      name = n === 1 ? base : `${base} #${n}`;
    } while (taken.has(name));
    seen.set(base, n);
    taken.add(name);
    return name;
  });
}

/** Lane `index`'s name among `lanes` (`laneNames`); '' for an index out of range. */
export function laneName(lanes: readonly NamedLane[], index: number): string {
  return laneNames(lanes)[index] ?? '';
}
