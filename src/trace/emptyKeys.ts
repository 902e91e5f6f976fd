/**
 * Requests whose key is empty (a log line without X-Forwarded-For keyed by its first hop, an empty
 * CSV column): the trace holds them under one key (`emptyKeyName`), and each system treats them by
 * its own rule (`EmptyKeyRule` in src/systems, cited next to each system's field): nginx and
 * HAProxy do not limit them, Spring Cloud Gateway denies them, most count them under one shared
 * key. A replay applies the rule here, at the trace layer: the limiter only sees the requests the
 * system would give it (the core stays algorithm-only).
 */
import type { AlgorithmConfig, EmptyKeyRule } from '../core';
import { emptyKeyOutcome, plural, quoteText } from '../core';
import { replayColumns } from './overview';
import type { OverviewColumns } from './overview';
import { ADMIT, REJECT } from './replay';
import type { Replay } from './replay';
import type { EmptyKeyClients, EmptyKeyExempt, KeySpec } from './types';

/**
 * The key the trace gives a request whose every key part is empty (src/trace/keys.ts writes an
 * empty part `-`), or null when the spec keys every request alike.
 */
export function emptyKeyName(spec: KeySpec): string | null {
  if (spec.length === 0) return null;
  return spec.map(() => '-').join(' | ');
}

/** The id of the empty key in `trace.keys`, or -1 when no request has an empty key. */
export function emptyKeyId(trace: { keys: readonly string[]; keySpec: KeySpec }): number {
  const name = emptyKeyName(trace.keySpec);
  return name === null ? -1 : trace.keys.indexOf(name);
}

/** Requests of `keyId` (the first `count`) that have key `id`. */
export function countKey(keyId: Uint32Array, count: number, id: number): number {
  if (id < 0) return 0;
  let c = 0;
  for (let i = 0; i < count; i += 1) if (keyId[i] === id) c += 1;
  return c;
}

/**
 * What a replay does with the empty key's requests: `admit` or `reject` them without the limiter
 * (not limited; denied), or null — give them to the limiter under one key (see `emptyKeyWords`).
 */
export type EmptyKeyOutcome = 'admit' | 'reject' | null;

/** The outcome a system's rule gives a request with an empty key (the core's, re-exported). */
export { emptyKeyOutcome };

/**
 * `replayColumns`, with the requests of key `exempt.id` never given to the limiter: each gets
 * `exempt.outcome` (admitted with no delay, or rejected) and changes no state, as the system's
 * rule says. Without `exempt` (or when no request has that key) it is `replayColumns` itself.
 */
export function replayWithEmptyKey(
  columns: OverviewColumns,
  config: AlgorithmConfig,
  exempt: EmptyKeyExempt | null,
  replay: (c: OverviewColumns, config: AlgorithmConfig) => Replay = (c, cfg) =>
    replayColumns(c, cfg),
): Replay {
  const n = columns.timeMs.length;
  const skip = exempt === null ? 0 : countKey(columns.keyId, n, exempt.id);
  if (exempt === null || skip === 0) return replay(columns, config);
  // The other requests, in order, through the limiter.
  const timeMs = new Int32Array(n - skip);
  const keyId = new Uint32Array(n - skip);
  for (let i = 0, j = 0; i < n; i += 1) {
    const k = columns.keyId[i] as number;
    if (k === exempt.id) continue;
    timeMs[j] = columns.timeMs[i] as number;
    keyId[j] = k;
    j += 1;
  }
  const inner = replay(
    { timeMs, keyId, keys: columns.keys, originMs: columns.originMs ?? 0 },
    config,
  );
  const outcome = new Uint8Array(n);
  const delayMs = new Uint32Array(n);
  const code = exempt.outcome === 'admit' ? ADMIT : REJECT;
  for (let i = 0, j = 0; i < n; i += 1) {
    if (columns.keyId[i] === exempt.id) {
      outcome[i] = code;
      continue;
    }
    outcome[i] = inner.outcome[j] as number;
    delayMs[i] = inner.delayMs[j] as number;
    j += 1;
  }
  return {
    count: n,
    outcome,
    delayMs,
    admitted: inner.admitted + (code === ADMIT ? skip : 0),
    delayed: inner.delayed,
    rejected: inner.rejected + (code === REJECT ? skip : 0),
  };
}

/**
 * The trace's key column with each empty-key request that has a client address moved to the key of
 * that address, as a system whose rule is `client` counts it (Kong: its identifier falls back to
 * `kong.client.get_forwarded_ip()`, which is nginx's `$remote_addr` — kong/pdk/client.lua, Kong
 * 3.10.0 (master 22246ef); realip, when trusted_ips and real_ip_header are set, rewrites that
 * variable to the forwarded address before the plugin runs). The lab takes the address the log line
 * recorded (the combined log's `%h`, which nginx writes from the same `$remote_addr`). An address
 * that is already a key (a trace keyed by X-Forwarded-For's first hop, where a header value equals
 * it) shares that key's id, since Kong's counter is named by the identifier alone; other addresses
 * get new ids after the trace's keys. Requests whose line has no address stay under the empty key.
 * Null when no empty-key request has an address (nothing moves).
 */
export function keyEmptyByClient(
  trace: { keyId: Uint32Array; keys: readonly string[]; count: number; keySpec: KeySpec },
  clients: EmptyKeyClients | undefined,
): { keyId: Uint32Array; keys: string[]; moved: number } | null {
  return keyEmptyIdByClient(trace, emptyKeyId(trace), clients);
}

/** `keyEmptyByClient` with the empty key's id given (−1: none), as a replay's trace marks it. */
export function keyEmptyIdByClient(
  trace: { keyId: Uint32Array; keys: readonly string[]; count: number },
  emptyId: number,
  clients: (Pick<EmptyKeyClients, 'client'> & { names: readonly string[] }) | undefined,
): { keyId: Uint32Array; keys: string[]; moved: number } | null {
  if (clients === undefined || emptyId < 0) return null;
  const keys = trace.keys.slice();
  // The trace's own keys by name, made only when some address needs one.
  let known: Map<string, number> | null = null;
  const ids = new Map<string, number>();
  const idOf = (name: string): number => {
    let id = ids.get(name);
    if (id === undefined) {
      known ??= new Map(trace.keys.map((k, i) => [k, i]));
      const at = known.get(name);
      id = at !== undefined && at !== emptyId ? at : keys.push(name) - 1;
      ids.set(name, id);
    }
    return id;
  };
  const keyId = trace.keyId.slice(0, trace.count);
  let moved = 0;
  for (let i = 0, e = 0; i < trace.count; i += 1) {
    if (keyId[i] !== emptyId) continue;
    const c = clients.client[e] ?? 0;
    e += 1;
    if (c === 0) continue;
    keyId[i] = idOf(clients.names[c - 1] as string);
    moved += 1;
  }
  return moved === 0 ? null : { keyId, keys, moved };
}

/** A system's name in a sentence: its short name, else the first word of its name. */
export function systemWho(system: { name: string; shortName?: string }): string {
  return system.shortName ?? system.name.split(' ')[0] ?? system.name;
}

/** What is missing from a request keyed by `spec` when its key is empty, in words. */
export function missingWhat(spec: KeySpec): string {
  if (spec.length !== 1) return 'an empty key';
  const p = spec[0] as KeySpec[number];
  switch (p.kind) {
    case 'client':
      return 'no client address';
    case 'xff-first':
    case 'xff-last':
      return 'no X-Forwarded-For';
    case 'path':
      return 'no path';
    case 'field':
      return `no value in ${quoteText(p.name)}`;
  }
}

/**
 * The page's sentence for `count` requests with an empty key under `system`'s rule, e.g.
 * `1,204 requests have no X-Forwarded-For: nginx does not limit them.`
 */
export function emptyKeyWords(
  count: number,
  spec: KeySpec,
  system: { name: string; shortName?: string; emptyKey?: EmptyKeyRule },
  /** Of the `count`, those whose log line has a client address (`keyEmptyByClient`). */
  withAddress = 0,
): string {
  const who = systemWho(system);
  const have = count === 1 ? 'has' : 'have';
  const head = `${plural(count, 'request')} ${have} ${missingWhat(spec)}`;
  const rule = system.emptyKey;
  const them = count === 1 ? 'it' : 'them';
  if (rule === 'not-limited') return `${head}: ${who} does not limit ${them} (not counted).`;
  if (typeof rule === 'object')
    return `${head}: ${who} denies ${them} with ${rule.denied}, without counting ${them}.`;
  if (rule === 'client' && withAddress > 0) {
    // The stage, the dry run and the sweep key them by address (keysWithTrace, keyEmptyByClient).
    const rest = count - withAddress;
    const n = (k: number) => k.toLocaleString('en-US');
    const which =
      rest === 0
        ? `${them} with ${count === 1 ? 'its' : 'their'} address's other requests`
        : `the ${n(withAddress)} that ${withAddress === 1 ? 'has' : 'have'} one with ` +
          `${withAddress === 1 ? 'its' : 'their'} address's other requests, and the other ` +
          `${n(rest)} (no address on ${rest === 1 ? 'its line' : 'their lines'}) under one shared key`;
    return (
      `${head}: ${who} uses the client address as the key instead. The stage, the dry run and ` +
      `the sweep count ${which}.`
    );
  }
  if (rule === 'client')
    return (
      `${head}: ${who} uses the client address as the key instead; the lab has no address for ` +
      `${them} here, so it counts ${them} under one shared key.`
    );
  const all = count === 1 ? 'it' : 'them all';
  if (rule === 'shared') return `${head}: ${who} counts ${all} under one empty key.`;
  return `${head}: the lab counts ${all} under one key (${who}'s rule is not known).`;
}
