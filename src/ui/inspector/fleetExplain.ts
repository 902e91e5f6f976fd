import type { Explanation } from '../../core/explain';
import {
  WHY_BATCHED,
  WHY_CACHE,
  WHY_DOWN_CLOSED,
  WHY_DOWN_LOCAL,
  WHY_DOWN_OPEN,
  WHY_KONG_READ,
  WHY_LAYER_LOCAL,
  WHY_REPLICA,
  WHY_STORE,
  outageAt,
} from '../../sim';
import type { Decision } from '../../core';
import { isTraefikBucket } from '../../core';
import type { LaneResult, SimResult } from '../../sim';
import { formatTime } from '../common/format';
import { replicaLabel } from '../../viz/replicaColors';

/** One fleet row as the inspector shows it. */
export interface FleetRow {
  /** Virtual arrival time, ms (outages are on this clock). */
  arrivalMs: number;
  /** The replica slot that took it. */
  instance: number;
  decision: Decision;
}

/**
 * Why the store could not be asked for a row at `atMs`: an outage (with when it ends) or a call
 * slower than the timeout, which the replicas count as down.
 */
function unreachable(result: SimResult, lane: LaneResult, row: number, atMs: number): string {
  const dep = result.scenario.deployment;
  const o = outageAt(dep, atMs);
  if (o !== null)
    return `the store is down from ${formatTime(o.fromMs)} to ${formatTime(o.toMs)}: back in ${formatTime(o.toMs - atMs)}`;
  const took = lane.fleet?.storeMs[row] ?? -1;
  const timeout = dep.fleet?.store?.timeoutMs;
  return took >= 0 && timeout !== undefined
    ? `the store call took ${took} ms > the timeout of ${timeout} ms: counted as down`
    : 'the store could not be reached';
}

/**
 * The rule that decided a fleet row, with that moment's numbers. `limiter` explains the limiter
 * the row read (core's `explainDecision` on the state it met): kept, with what sent the row there,
 * when a limiter decided; replaced when no limiter was asked — the store's failure policy (fail
 * open, fail closed) or the over-limit cache decided, and a limiter's count then says nothing.
 */
export function explainFleetRow(
  result: SimResult,
  lane: LaneResult,
  row: number,
  at: FleetRow,
  limiter: Explanation,
): Explanation {
  const fleet = lane.fleet;
  if (fleet === undefined) return limiter;
  const why = fleet.why[row] ?? WHY_REPLICA;
  const dep = result.scenario.deployment;
  const store = dep.fleet?.store;
  const replica = replicaLabel(at.instance);
  const with_ = (first: string): Explanation => ({
    rule: limiter.rule,
    steps: [first, ...limiter.steps],
  });
  switch (why) {
    case WHY_DOWN_OPEN:
      return {
        rule: 'store unreachable → fail open → admit',
        steps: [
          unreachable(result, lane, row, at.arrivalMs),
          'no limit is checked while the store cannot be reached: every request passes',
        ],
      };
    case WHY_DOWN_CLOSED: {
      if (isTraefikBucket(lane.config))
        // rate_limiter.go ServeHTTP (traefik v3.7.9): the limiter's error is answered with
        // http.Error(rw, "Could not insert/update bucket", 500); there is no fail-open setting.
        return {
          rule: 'Redis unreachable → the script cannot run → Traefik answers 500',
          steps: [
            unreachable(result, lane, row, at.arrivalMs),
            `Traefik's Redis limiter returns the error and the middleware answers 500 with the body "Could not insert/update bucket" and a newline (31 bytes); Traefik has no fail-open or fallback setting, so this lane fails closed whatever the store's policy says`,
            'the error carries no Retry-After; clients that wait for one are modelled as waiting 1 s',
          ],
        };
      const status = store?.downStatus ?? 500;
      return {
        rule: `store unreachable → fail closed → reject with ${status}`,
        steps: [
          unreachable(result, lane, row, at.arrivalMs),
          `no limit is checked while the store cannot be reached: every request gets ${status}`,
          'the error carries no Retry-After; clients that wait for one are modelled as waiting 1 s',
        ],
      };
    }
    case WHY_DOWN_LOCAL:
      if (dep.state === 'layered')
        return {
          rule: 'store unreachable → the local limit in front, which passed it, decides alone → admit',
          steps: [unreachable(result, lane, row, at.arrivalMs)],
        };
      return with_(
        `${unreachable(result, lane, row, at.arrivalMs)}; ${replica}'s fallback limit (the global limit ÷ ${dep.instances}) decided`,
      );
    case WHY_CACHE:
      return {
        rule: 'key in the over-limit cache → reject (the store is not asked)',
        steps: [
          `an earlier rejection cached this key until ${formatTime(at.arrivalMs + at.decision.retryAfterMs)}, in ${formatTime(at.decision.retryAfterMs)}`,
        ],
      };
    case WHY_BATCHED:
      return with_(
        `${replica} decided on its own copy of the store, written back every ${formatTime(store?.syncMs ?? 0)}: admits on other replicas since the last write-back are not in it`,
      );
    case WHY_KONG_READ:
      return with_(
        `Kong cluster: decided on the store's count as read; this request's increment lands ${formatTime(store?.rttMs ?? 0)} later`,
      );
    case WHY_LAYER_LOCAL:
      return with_(
        `${replica}'s local limit in front of the store rejected it: the store was not asked`,
      );
    case WHY_STORE: {
      const rtt = fleet.storeMs[row] ?? -1;
      return with_(`the shared store decided${rtt >= 0 ? ` (round trip ${rtt} ms)` : ''}`);
    }
    default:
      return with_(`${replica}'s own limiter decided`);
  }
}
