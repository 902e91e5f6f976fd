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
  const taken = new Set<string>();
  return lanes.map((l) => {
    // Lanes not yet validated (a link being repaired) may lack a known kind: named by what they
    // have, while the validation names what is wrong.
    const kind: unknown = (l.config as Partial<AlgorithmConfig> | undefined)?.kind;
    const s = typeof kind === 'string' ? (systemOf(l) as SystemInfo | undefined) : undefined;
    const base = l.name ?? s?.shortName ?? s?.name.split(' ')[0] ?? String(kind);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base} #${n}`;
    taken.add(name);
    return name;
  });
}
