/**
 * Clients and their keys, and what a client does after a rejection.
 */
import { toSeconds } from '../core';
import { hash32, toUnit } from './random';
import type { ClientModel, RetryPolicy, TrafficSource } from './types';

/** The key all clients share with `keying: 'shared'` (many users behind one NAT address). */
export const SHARED_KEY = 'nat-gateway';

/** Stream ids for counter-based draws, so draws for different purposes never coincide. */
export const DRAW_ASSIGN = 1;
export const DRAW_BALANCE = 2;
export const DRAW_JITTER = 3;

/** The key names (index = key index) and each client's key index. */
export function keysOf(clients: ClientModel): { keyNames: string[]; clientKey: Uint16Array } {
  const clientKey = new Uint16Array(clients.count);
  if (clients.keying === 'shared') return { keyNames: [SHARED_KEY], clientKey };
  const keyNames: string[] = [];
  for (let c = 0; c < clients.count; c += 1) {
    keyNames.push(`client-${c + 1}`);
    clientKey[c] = c;
  }
  return { keyNames, clientKey };
}

/**
 * The client of each first attempt: the source's own `client` when set, else in turn over all
 * clients (counting only unpinned arrivals) or by a seeded draw per arrival.
 */
export function assignClients(
  sourceOf: Uint8Array,
  count: number,
  sources: readonly TrafficSource[],
  clients: ClientModel,
  seed: number,
): Uint16Array {
  const out = new Uint16Array(count);
  const k = clients.count;
  if (k === 1) return out;
  const pinned = sources.map((s) => (s.client === undefined ? -1 : s.client));
  let turn = 0;
  for (let i = 0; i < count; i += 1) {
    const p = pinned[sourceOf[i] as number] as number;
    if (p >= 0) out[i] = p;
    else if (clients.assign === 'random') out[i] = hash32(seed, DRAW_ASSIGN, i) % k;
    else {
      out[i] = turn;
      turn = turn + 1 === k ? 0 : turn + 1;
    }
  }
  return out;
}

/**
 * How long the client waits before its next attempt after attempt number `attempt` (1 = first) of
 * request `origin` was rejected with `retryAfterMs`; −1 when it does not retry.
 */
export function retryWaitMs(
  policy: RetryPolicy,
  seed: number,
  origin: number,
  attempt: number,
  retryAfterMs: number,
): number {
  if (policy.onReject === 'give-up' || attempt >= policy.maxAttempts) return -1;
  switch (policy.onReject) {
    case 'immediate':
      return policy.turnaroundMs;
    case 'retry-after':
      // The header carries whole seconds, rounded up (RFC 9110 delay-seconds).
      return toSeconds(retryAfterMs) * 1000 + policy.turnaroundMs;
    case 'backoff': {
      // Full jitter: uniform over [0, min(cap, base·2^(n−1))], whole ms; the exponent is capped
      // before it can overflow (2^30·base is already past any cap allowed).
      const ceiling = Math.min(
        policy.backoffCapMs,
        policy.backoffBaseMs * 2 ** Math.min(attempt - 1, 30),
      );
      const u = toUnit(hash32(seed, DRAW_JITTER, origin, attempt));
      return Math.floor(u * (ceiling + 1)) + policy.turnaroundMs;
    }
  }
}
