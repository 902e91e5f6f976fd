import { statusText } from '../../core';
import type { Explanation } from '../../core';
import type { LaneResult, SimResult } from '../../sim';
import type { SystemInfo, SystemResponse } from '../../systems';
import { systemWho } from '../../trace';

/**
 * What the inspector says of a row its lane decided without the limiter: a replayed trace request
 * whose key is empty, under a system that does not limit such requests (nginx, HAProxy, Envoy's
 * ratelimit service) or denies them (Spring Cloud Gateway). Null for any other row.
 */
export interface EmptyKeyRow {
  /** Short words beside the outcome, e.g. "not limited (no key)". */
  label: string;
  explanation: Explanation;
  /** The response the system sends: its usual answer without rate-limit headers, or the denial. */
  response: SystemResponse;
}

/**
 * The words beside the key of a row whose key was empty and that its lane counted under the
 * client address instead (`NamedLimiter.emptyKey` `'client'`: Kong), else null.
 */
export function addressKeyNote(
  result: SimResult,
  lane: LaneResult,
  row: number,
  system: Pick<SystemInfo, 'name' | 'shortName'>,
): string | null {
  const own = lane.clientKey;
  const origin = lane.columns.origin[row];
  if (own === undefined || origin === undefined) return null;
  const client = result.arrivals.client[origin] as number;
  // Only an address's own client is keyed apart from the run's keys (under the empty key there).
  if (own[client] === result.clientKey[client]) return null;
  return `the client address: ${systemWho(system)}'s fallback for an empty key`;
}

/** See EmptyKeyRow; `response` is what the system's respond code wrote for the row. */
export function emptyKeyRow(
  result: SimResult,
  lane: LaneResult,
  row: number,
  system: Pick<SystemInfo, 'name' | 'emptyKey'>,
  response: SystemResponse,
): EmptyKeyRow | null {
  const rule = lane.emptyKey;
  if (rule === undefined) return null;
  const origin = lane.columns.origin[row];
  if (origin === undefined) return null;
  // By key: the empty-key requests a trace keeps addresses for are clients of their own when
  // another lane keys them by address (keysWithTrace), and this lane skips them all the same.
  const keys = result.clientKey;
  if (keys[result.arrivals.client[origin] as number] !== keys[rule.client]) return null;
  if (rule.outcome === 'admit') {
    return {
      label: 'not limited (no key)',
      explanation: {
        rule: `${system.name} does not limit a request whose key is empty: no limiter is asked and nothing is counted.`,
        steps: ['The request passes as if no limit were configured.'],
      },
      response: {
        ...response,
        status: 200,
        statusText: statusText(200),
        statusLine: `HTTP/1.1 200 ${statusText(200)}`,
        headers: [],
        fields: [],
      },
    };
  }
  const status = typeof system.emptyKey === 'object' ? system.emptyKey.denied : 403;
  return {
    label: 'denied (no key)',
    explanation: {
      rule: `${system.name} denies a request whose key is empty with ${status}, without asking its limiter or counting it.`,
      steps: [
        'The client gets the denial at once; it is not a rate-limit answer, so it does not retry.',
      ],
    },
    response: {
      ...response,
      status,
      statusText: statusText(status),
      statusLine: `HTTP/1.1 ${status} ${statusText(status)}`,
      headers: [],
      fields: [],
    },
  };
}
