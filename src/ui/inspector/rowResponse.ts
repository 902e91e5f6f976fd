/**
 * What a lane's system sends for one request of a run, as the inspector shows it (the selected
 * lane and every lane side by side): the response written from the state the request met, at the
 * time the limiter decided it.
 */
import type { Decision, Inspection } from '../../core';
import type { SimResult } from '../../sim';
import { seekerFor } from '../../store';
import type { SystemResponse } from '../../systems';
import { systemOf } from '../../systems';
import type { SystemId } from '../../systems';
import { entryResponse } from '../../systems/respond';

/** A limiter entry as the inspector reads it (LimiterEntry, or a lane's bare config). */
type Entry = Parameters<typeof entryResponse>[0] & { system?: SystemId };

/**
 * The response `entry`'s system sends for request `row` of lane `lane`, decided `decision` for
 * `key` at lane time `wallMs` from the key's state `before`. A replayed log's time 0 is its first
 * request's instant (SimResult.originMs), so headers read from the wall clock (Date, absolute
 * resets, Kong's RateLimit-Reset to the end of its UTC period) are written at that instant plus
 * the request's time; synthetic traffic keeps the scenario's epoch (SCENARIO_EPOCH_MS).
 */
export function rowResponse(
  result: SimResult,
  lane: number,
  row: number,
  entry: Entry,
  at: { decision: Decision; key: string; wallMs: number; before: Inspection | undefined },
): SystemResponse {
  const name = result.lanes[lane]?.name ?? '';
  // Traefik's 429 carries a delay its float64 bucket got from the key's whole history.
  const history =
    at.decision.outcome === 'reject' && systemOf(entry).id === 'traefik'
      ? seekerFor(result).keyHistoryUpTo(lane, row)
      : undefined;
  return entryResponse(entry, at.decision, name, {
    nowMs: at.wallMs,
    ...(result.originMs === undefined ? {} : { epochMs: result.originMs }),
    key: at.key,
    ...(at.before === undefined ? {} : { before: at.before }),
    ...(history === undefined
      ? {}
      : {
          keyHistoryMs: history.timesMs,
          keyHistoryConfig: history.config,
          keyHistoryShared: history.shared,
        }),
  });
}
