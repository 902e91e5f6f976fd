/**
 * A trace as the simulator replays it (sim's SimTrace: whole-ms times from 0, keys) and its
 * fingerprint: the name, size and hash a link carries instead of the trace.
 *
 * The hash covers exactly what the replay depends on — each request's virtual time and key, and the
 * key names — so two files that replay identically share it, and re-keying a file changes it.
 */
import type { SimTrace, TraceSource } from '../sim';
import { virtualOrigin, virtualTimes } from './replay';
import type { Trace } from './types';

/** Two independent 32-bit FNV-1a style lanes (different offsets), mixed per 32-bit word. */
class Hash64 {
  private a = 0x811c9dc5;
  private b = 0x01000193 ^ 0x5bd1e995;

  word(x: number): void {
    this.a = Math.imul(this.a ^ (x & 0xffff), 0x01000193);
    this.a = Math.imul(this.a ^ (x >>> 16), 0x01000193);
    this.b = Math.imul(this.b ^ (x >>> 16), 0x5bd1e995);
    this.b = Math.imul(this.b ^ (x & 0xffff), 0x5bd1e995);
    this.b ^= this.b >>> 13;
  }

  /** Both lanes, to be carried through a loop in locals and set back. */
  get lanes(): [number, number] {
    return [this.a, this.b];
  }

  set lanes([a, b]: [number, number]) {
    this.a = a;
    this.b = b;
  }

  hex(): string {
    const h = (n: number) => (n >>> 0).toString(16).padStart(8, '0');
    return h(this.a) + h(this.b);
  }
}

/**
 * Each key's rank in the order of first requests (`rank[id]`), and the key names in that order;
 * keys no request uses (none from the parsers) follow in their own order.
 */
function rankKeys(
  keyId: Uint32Array,
  keys: readonly string[],
  count: number,
): { rank: Int32Array; ranked: string[] } {
  const rank = new Int32Array(keys.length).fill(-1);
  const ranked: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = keyId[i] as number;
    if (rank[id] === -1) {
      rank[id] = ranked.length;
      ranked.push(keys[id] as string);
    }
  }
  keys.forEach((k, id) => {
    if (rank[id] === -1) {
      rank[id] = ranked.length;
      ranked.push(k);
    }
  });
  return { rank, ranked };
}

/**
 * 16 hex digits over the times, each request's key and the key names. Keys count in the order of
 * their first request, whatever numbering `keyId` uses: a parser numbers keys as it meets them in
 * the file (out of time order in most access logs, which are written as requests complete), the
 * compact file in time order; the same requests under the same key names give the same hash.
 */
export function traceHash(timeMs: Int32Array, keyId: Uint32Array, keys: readonly string[]): string {
  const { rank, ranked } = rankKeys(keyId, keys, timeMs.length);
  return hashRanked(timeMs, keyId, rank, ranked);
}

/**
 * `traceHash` of a trace whose keys are numbered in the order of their first request already (as
 * `keysInTimeOrder` leaves them, and the page holds them): every key's rank is its id, so the pass
 * that ranks them is not made again. The same hash.
 */
export function traceHashInTimeOrder(
  timeMs: Int32Array,
  keyId: Uint32Array,
  keys: readonly string[],
): string {
  return hashRanked(timeMs, keyId, null, keys);
}

/** The hash over times, each request's key rank (`rank[id]`, or the id itself) and the names. */
function hashRanked(
  timeMs: Int32Array,
  keyId: Uint32Array,
  rank: Int32Array | null,
  ranked: readonly string[],
): string {
  const h = new Hash64();
  h.word(timeMs.length);
  // The requests' words are mixed in locals (Hash64.word's steps, the same lanes): a million
  // requests are two million words, and the loop keeps the lanes out of the object meanwhile.
  let a = h.lanes[0];
  let b = h.lanes[1];
  const n = timeMs.length;
  for (let i = 0; i < n; i += 1) {
    const t = timeMs[i] as number;
    const id = keyId[i] as number;
    const k = rank === null ? id : (rank[id] as number);
    a = Math.imul(a ^ (t & 0xffff), 0x01000193);
    a = Math.imul(a ^ (t >>> 16), 0x01000193);
    b = Math.imul(b ^ (t >>> 16), 0x5bd1e995);
    b = Math.imul(b ^ (t & 0xffff), 0x5bd1e995);
    b ^= b >>> 13;
    a = Math.imul(a ^ (k & 0xffff), 0x01000193);
    a = Math.imul(a ^ (k >>> 16), 0x01000193);
    b = Math.imul(b ^ (k >>> 16), 0x5bd1e995);
    b = Math.imul(b ^ (k & 0xffff), 0x5bd1e995);
    b ^= b >>> 13;
  }
  h.lanes = [a, b];
  h.word(ranked.length);
  for (const k of ranked) {
    h.word(k.length);
    for (let j = 0; j < k.length; j += 1) h.word(k.charCodeAt(j));
  }
  return h.hex();
}

/**
 * Numbers the keys in the order of their first request: rewrites `keyId` (its first `count`
 * entries) in place and returns the key names in that order. A trace read from a file whose lines
 * are out of time order then lists its keys as the compact file of it does.
 */
export function keysInTimeOrder(
  keyId: Uint32Array,
  keys: readonly string[],
  count: number,
): string[] {
  // rankKeys and the rewrite in one pass: each request's key is ranked when first met, and its
  // id replaced by that rank at once.
  const rank = new Int32Array(keys.length).fill(-1);
  const ranked: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = keyId[i] as number;
    let r = rank[id] as number;
    if (r === -1) {
      r = ranked.length;
      rank[id] = r;
      ranked.push(keys[id] as string);
    }
    keyId[i] = r;
  }
  keys.forEach((k, id) => {
    if (rank[id] === -1) {
      rank[id] = ranked.length;
      ranked.push(k);
    }
  });
  return ranked;
}

/** The replayable form of a trace (throws when it spans more than a replay takes). */
export function simTraceOf(trace: Pick<Trace, 'count' | 'arrivalMs' | 'keyId' | 'keys'>): SimTrace {
  const timeMs = virtualTimes(trace);
  const keyId = trace.keyId.subarray(0, trace.count);
  const hash = traceHash(timeMs, keyId, trace.keys);
  return { hash, timeMs, keyId, keys: trace.keys, originMs: virtualOrigin(trace) };
}

/** Characters a file name keeps in a link (the config's TRACE_NAME_PATTERN); others become `_`. */
const NAME_CHAR = /[\p{L}\p{M}\p{N} _.()+@-]/u;

/** The name a link carries for `fileName`: unsupported characters replaced, at most 200 long. */
export function linkName(fileName: string): string {
  let out = '';
  for (const ch of fileName) out += NAME_CHAR.test(ch) ? ch : '_';
  out = out.slice(0, 200).trim();
  return out === '' ? 'access.log' : out;
}

/**
 * A key a link's `key=` can carry (the config's TRACE_KEY_PATTERN): a link splits its options at
 * commas, so a column named with one is not written (the link then names the client address).
 */
const LINK_KEY = /^(?:xff-first|xff-last|path|client\+path|all|field:[^\p{Cc},]{1,200})$/u;

/**
 * The scenario source that replays `sim` (the trace of file `fileName` of `bytes` bytes, read
 * with the key `key` writes, src/trace/keys.ts `keySpecText`; the client address, the default,
 * and a key no word names are left out).
 */
export function traceSourceOf(
  sim: SimTrace,
  fileName: string,
  bytes: number,
  key: string | null = null,
): TraceSource {
  return {
    kind: 'trace',
    name: linkName(fileName),
    bytes,
    requests: sim.timeMs.length,
    hash: sim.hash,
    ...(key === null || key === 'client' || !LINK_KEY.test(key) ? {} : { key }),
  };
}
