/**
 * Release times of delayed requests, kept per key only so drawings can show the queue. They never
 * feed back into a decision.
 */

/** Drops releases at or before `nowMs` (they have left the queue). Mutates `releases`. */
export function pruneReleases(releases: number[], nowMs: number): void {
  let n = 0;
  while (n < releases.length && (releases[n] as number) <= nowMs) n += 1;
  if (n > 0) releases.splice(0, n);
}

/** Inserts `atMs` keeping the list ascending (nearly always an append). */
export function addRelease(releases: number[], atMs: number): void {
  let i = releases.length;
  while (i > 0 && (releases[i - 1] as number) > atMs) i -= 1;
  releases.splice(i, 0, atMs);
}

/** The releases still waiting at `nowMs`, ascending, as a fresh array. */
export function pendingReleases(releases: readonly number[] | null, nowMs: number): number[] {
  if (releases === null) return [];
  return releases.filter((r) => r > nowMs);
}
