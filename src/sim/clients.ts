/**
 * Clients and their keys, and what a client does after a rejection.
 */
import { toSeconds } from '../core';
import { hash32, toUnit } from './random';
import type { ClientModel, RetryPolicy, SimTrace, TrafficSource } from './types';

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
 * Keys and clients with a trace replayed: the client model's clients first, then one
 * client per trace key (client `clients.count + j` is the trace's key j). A trace key named like a
 * client model key is that same key (the limiter sees one key).
 *
 * With `byAddress` (some lane keys the trace's empty-key requests by their client address) and a
 * trace that has those addresses (`SimTrace.emptyClients`), each address is a client of its own
 * after the trace keys' (`clients.count + trace.keys.length + a` for `names[a]`): `clientKey` puts
 * it under the empty key (the other lanes' rule), `addressKey` under the address, a key of the
 * trace when one is named so (Kong's counter is named by the identifier alone), else a new key.
 */
export function keysWithTrace(
  clients: ClientModel,
  trace: SimTrace | null,
  byAddress = false,
): {
  keyNames: string[];
  clientKey: Uint16Array | Uint32Array;
  addressKey: Uint16Array | Uint32Array | null;
} {
  const base = keysOf(clients);
  if (trace === null) return { ...base, addressKey: null };
  const keyNames = base.keyNames;
  const index = new Map<string, number>();
  keyNames.forEach((k, i) => index.set(k, i));
  const names = addressesOf(trace, byAddress);
  const traceClients = clients.count + trace.keys.length;
  const total = traceClients + names.length;
  const clientKey = total > 0xffff ? new Uint32Array(total) : new Uint16Array(total);
  clientKey.set(base.clientKey);
  const indexOf = (k: string): number => {
    let i = index.get(k);
    if (i === undefined) {
      i = keyNames.length;
      keyNames.push(k);
      index.set(k, i);
    }
    return i;
  };
  trace.keys.forEach((k, j) => {
    clientKey[clients.count + j] = indexOf(k);
  });
  if (names.length === 0) return { keyNames, clientKey, addressKey: null };
  const emptyKey = clientKey[clients.count + (trace.emptyKeyId as number)] as number;
  clientKey.fill(emptyKey, traceClients);
  const addressKey = clientKey.slice();
  names.forEach((name, a) => {
    const i = index.get(name);
    addressKey[traceClients + a] = i !== undefined && i !== emptyKey ? i : indexOf(name);
  });
  return { keyNames, clientKey, addressKey };
}

/** The trace's empty-key addresses when a lane keys by them, else none. */
function addressesOf(trace: SimTrace, byAddress: boolean): readonly string[] {
  const empty = trace.emptyKeyId ?? -1;
  return byAddress && empty >= 0 && trace.emptyClients !== undefined
    ? trace.emptyClients.names
    : [];
}

/**
 * The client of each first attempt: the source's own `client` when set, else in turn over all
 * clients (counting only unpinned arrivals) or by a seeded draw per arrival. A trace source's n-th
 * arrival is the trace's n-th request: its client is `clients.count` + that request's key.
 */
export function assignClients(
  sourceOf: Uint8Array,
  count: number,
  sources: readonly TrafficSource[],
  clients: ClientModel,
  seed: number,
  trace: SimTrace | null = null,
  byAddress = false,
): Uint16Array | Uint32Array {
  const traceSource = trace === null ? -1 : sources.findIndex((s) => s.kind === 'trace');
  const names = traceSource < 0 || trace === null ? [] : addressesOf(trace, byAddress);
  const total =
    clients.count + (traceSource < 0 || trace === null ? 0 : trace.keys.length) + names.length;
  const out = total > 0xffff ? new Uint32Array(count) : new Uint16Array(count);
  const k = clients.count;
  if (k === 1 && traceSource < 0) return out;
  const pinned = sources.map((s) => (s.kind === 'trace' || s.client === undefined ? -1 : s.client));
  let turn = 0;
  let traceRow = 0;
  // An empty-key request with an address is that address's client (see keysWithTrace).
  const emptyId = names.length === 0 ? -1 : ((trace as SimTrace).emptyKeyId as number);
  const address = trace?.emptyClients?.client;
  const addressClient = k + (trace?.keys.length ?? 0) - 1;
  let emptyRow = 0;
  for (let i = 0; i < count; i += 1) {
    const src = sourceOf[i] as number;
    if (src === traceSource) {
      const id = (trace as SimTrace).keyId[traceRow++] as number;
      const a = id === emptyId ? ((address as Uint32Array)[emptyRow++] ?? 0) : 0;
      out[i] = a === 0 ? k + id : addressClient + a;
      continue;
    }
    const p = pinned[src] as number;
    if (k === 1) out[i] = 0;
    else if (p >= 0) out[i] = p;
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
