/**
 * Collects parsed records into a Trace: a reader's builder interns keys and counts malformed lines;
 * the merger joins readers in file order and sorts requests by arrival through the reorder window.
 */
import { keyOf } from './keys';
import type { RequestRecord } from './record';
import {
  MALFORMED_LISTED,
  MAX_EPOCH_MS,
  MAX_TRACE_KEYS,
  MAX_TRACE_REQUESTS,
  MIN_EPOCH_MS,
  TraceError,
} from './types';
import type { EmptyKeyClients, KeySpec, Malformed, ParseReport, Trace, TraceFormat } from './types';
import { emptyKeyName } from './emptyKeys';
import { plural } from '../core';
import { Columns, REORDER_WINDOW_MS, ReorderWindow } from './reorder';
import type { OrderedSink } from './reorder';
import { releaseBuffers } from './release';

/** Distinct user agents on one client address from which the page hints at NAT. */
export const NAT_USER_AGENTS = 10;
/** User agents remembered per address (enough to pass the hint's threshold). */
const UA_CAP = 64;

/** An address that many user agents share. */
export interface NatHint {
  client: string;
  /** Distinct user agents seen (at most 64 are counted). */
  userAgents: number;
  requests: number;
}

export interface BuiltTrace extends Trace {
  /** Addresses with ≥ NAT_USER_AGENTS distinct user agents, most first (at most 10). */
  natHints: NatHint[];
}

/**
 * Empty-key requests a reader read, in line order: their times, lines and addresses (0: none, else
 * 1 + an index into `names`, each address once).
 */
export interface EmptyRows {
  t: number[];
  line: number[];
  client: number[];
  names: string[];
}

function emptyRows(): EmptyRows {
  return { t: [], line: [], client: [], names: [] };
}

/** Adds address `c` ('' none) to `rows.names` via `ids`: its code for `rows.client`. */
function addressCode(rows: EmptyRows, ids: Map<string, number>, c: string): number {
  if (c === '') return 0;
  let id = ids.get(c);
  if (id === undefined) {
    id = rows.names.push(detach(c));
    ids.set(rows.names[id - 1] as string, id);
  }
  return id;
}

/**
 * In a streaming pass (TraceMerger with `pass`), an empty-key request whose line has a client
 * address comes out of the reorder window with key `ADDRESS_KEY + a` instead of the empty key's
 * id: `a` indexes the merger's `addresses`. The pass counts it as the empty key's (`emptyId`) and a
 * system that keys such requests by address (Kong) decides it under that address, as the held
 * trace's `emptyClients` let the stage and the dry run do. Key ids stay below MAX_TRACE_KEYS, far
 * under this.
 */
export const ADDRESS_KEY = 0x8000_0000;

function optional<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V };
}

/** Sorts a merged trace's empty-key rows as the trace's requests are (time, then line). */
function emptyKeyClients(rows: EmptyRows): EmptyKeyClients | undefined {
  if (rows.names.length === 0) return undefined;
  const n = rows.t.length;
  const order = Array.from({ length: n }, (_, i) => i);
  order.sort(
    (a, b) =>
      (rows.t[a] as number) - (rows.t[b] as number) ||
      (rows.line[a] as number) - (rows.line[b] as number),
  );
  const client = new Uint32Array(n);
  for (let i = 0; i < n; i += 1) client[i] = rows.client[order[i] as number] as number;
  return { client, names: rows.names };
}

function isoOf(ms: number): string {
  // Date.prototype.toISOString on a given time: reads no clock.
  return Number.isFinite(ms) && Math.abs(ms) < 8.64e15
    ? new Intl.DateTimeFormat('en-CA', {
        timeZone: 'UTC',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23',
      })
        .format(ms)
        .replace(', ', 'T') + 'Z'
    : String(ms);
}

/** A copy of `s` that shares no memory with the text it was sliced from. */
function detach(s: string): string {
  return s.length === 0 ? '' : (' ' + s).slice(1);
}

/** Keys longer than this (UTF-16 units) are held cut, with a hash of the whole key. */
export const MAX_KEY_CHARS = 1024;
/** What a cut key keeps of its start. */
const KEY_PREFIX_CHARS = 96;
/** Longest malformed-line reason kept. */
const MAX_REASON_CHARS = 400;

/**
 * A key as the trace holds it: itself, or — when longer than MAX_KEY_CHARS — its first
 * KEY_PREFIX_CHARS characters, `…`, its length and a 64-bit hash of the whole, so 40,000 distinct
 * 5,000-character keys take ~5 MB, not 400 MB, and stay distinct (two keys share a held form only
 * when both their start and their 64-bit hash agree).
 */
export function internKey(key: string): string {
  if (key.length <= MAX_KEY_CHARS) return key;
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i += 1) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  let cut = KEY_PREFIX_CHARS;
  // Never end the kept start between the two halves of a surrogate pair.
  const last = key.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  const hex = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');
  return `${key.slice(0, cut)}… (${key.length.toLocaleString('en-US')} characters, hash ${hex(a)}${hex(b)})`;
}

/**
 * A user agent's fingerprint (collisions only lower the NAT count), over its UTF-16 units taken
 * four at a time as one 32-bit word (unit i of the four in bits 8i up; on ASCII text that is the
 * word the four bytes make, little-endian), the last 1 – 3 units as one word, in two interleaved
 * lanes: so the byte reader (fastLines.ts `scanHash`) hashes a field in the same pass that finds
 * its end, one word at a time, and gives this value for every ASCII user agent. Each word is mixed
 * by a bijection of the lane (`agentMix`), so two agents that differ in one word never collide.
 */
export function agentHash(s: string): number {
  let a = AGENT_SEED_A;
  let b = AGENT_SEED_B;
  const n = s.length;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const w =
      s.charCodeAt(i) |
      (s.charCodeAt(i + 1) << 8) |
      (s.charCodeAt(i + 2) << 16) |
      (s.charCodeAt(i + 3) << 24);
    const t = a;
    a = b;
    b = agentMix(t, w);
  }
  if (i < n) {
    let w = 0;
    for (let j = 0; i + j < n; j += 1) w |= s.charCodeAt(i + j) << (8 * j);
    const t = a;
    a = b;
    b = agentMix(t, w);
  }
  return agentHashEnd(a, b, n);
}

/** The lanes' seeds. */
export const AGENT_SEED_A = 0x811c9dc5 | 0;
export const AGENT_SEED_B = 0x050c5d1f;
const FNV_PRIME = 0x01000193;

/** A lane `h` after word `w`: XOR, an odd multiplier and an xorshift, each a bijection of h. */
export function agentMix(h: number, w: number): number {
  const x = Math.imul(h ^ w, 0x9e3779b1);
  return x ^ (x >>> 15);
}

/** Joins the two lanes (which lane ends last depends on the length's parity). */
export function agentHashEnd(a: number, b: number, length: number): number {
  const h = Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ length, FNV_PRIME);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Per key id: requests that had a client address and a user agent, and the distinct user agents'
 * hashes (at most UA_CAP a key), in one open-addressing table of (key id, hash) pairs — no object
 * per key, one probe per request.
 */
class AgentTable {
  requests = new Uint32Array(1024);
  distinct = new Uint8Array(1024);
  private slotKey = new Int32Array(4096).fill(-1);
  private slotUa = new Int32Array(4096);
  private used = 0;

  add(id: number, ua: number, requests = 1): void {
    if (id >= this.requests.length) this.growKeys(id + 1);
    this.requests[id] = (this.requests[id] as number) + requests;
    if ((this.distinct[id] as number) >= UA_CAP) return;
    if ((this.used + 1) * 2 > this.slotKey.length) this.rehash();
    const mask = this.slotKey.length - 1;
    for (let at = pairHash(id, ua) & mask; ; at = (at + 1) & mask) {
      const k = this.slotKey[at] as number;
      if (k < 0) {
        this.slotKey[at] = id;
        this.slotUa[at] = ua | 0;
        this.used += 1;
        this.distinct[id] = (this.distinct[id] as number) + 1;
        return;
      }
      if (k === id && this.slotUa[at] === (ua | 0)) return;
    }
  }

  /** Key ids with at least one user agent, with their hashes. */
  entries(): Map<number, number[]> {
    const out = new Map<number, number[]>();
    for (let at = 0; at < this.slotKey.length; at += 1) {
      const k = this.slotKey[at] as number;
      if (k < 0) continue;
      let list = out.get(k);
      if (list === undefined) out.set(k, (list = []));
      list.push((this.slotUa[at] as number) >>> 0);
    }
    return out;
  }

  private growKeys(n: number): void {
    const c = Math.max(n, this.requests.length * 2);
    const r = new Uint32Array(c);
    r.set(this.requests);
    this.requests = r;
    const d = new Uint8Array(c);
    d.set(this.distinct);
    this.distinct = d;
  }

  private rehash(): void {
    const keys = this.slotKey;
    const uas = this.slotUa;
    this.slotKey = new Int32Array(keys.length * 2).fill(-1);
    this.slotUa = new Int32Array(keys.length * 2);
    const mask = this.slotKey.length - 1;
    for (let i = 0; i < keys.length; i += 1) {
      const k = keys[i] as number;
      if (k < 0) continue;
      let at = pairHash(k, uas[i] as number) & mask;
      while ((this.slotKey[at] as number) >= 0) at = (at + 1) & mask;
      this.slotKey[at] = k;
      this.slotUa[at] = uas[i] as number;
    }
  }
}

function pairHash(id: number, ua: number): number {
  let h = Math.imul(id ^ Math.imul(ua, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  return Math.imul(h, 0xc2b2ae35) ^ (h >>> 16);
}

/** A client's user agents, as a reader hands them on. */
export interface ClientAgents {
  client: string;
  uas: number[];
  requests: number;
}

/** What a reader read besides requests, handed on with its last chunk. */
export interface ReaderEnd {
  /** Non-blank lines read. */
  lines: number;
  /** Every line, blank ones included (the next reader's line numbers start after them). */
  lineCount: number;
  malformed: number;
  /** Line numbers counted from the reader's first line (1). */
  malformedFirst: Malformed[];
  mixed: [string, number][];
  agents: ClientAgents[];
  firstLine: string | null;
  allSameLine: boolean;
}

/**
 * Requests a reader (a stream over a file, or over one byte range of it) read since its last chunk,
 * in line order, with key ids of its own: a merger (TraceMerger) maps them, sorts them in time
 * order and hands them on. Its arrays are its own (transfer them).
 */
export interface TraceChunk {
  count: number;
  /** Epoch ms. */
  arrivalMs: Float64Array;
  /** Into the reader's keys (every chunk's `keys` so far, in order). */
  keyId: Uint32Array;
  cost: Uint16Array;
  status: Uint16Array;
  /** Each request's line, counted from the reader's first line (1). */
  line: Float64Array;
  /** Keys first seen in this chunk, in the order of their ids. */
  keys: string[];
  /**
   * This chunk's empty-key requests, in line order (one row for each request of the empty key, its
   * line counted from the reader's first line), with their addresses (EmptyKeyClients), when the
   * key is not the address; absent when the chunk has none.
   */
  empties?: EmptyRows;
  /** Set on the reader's last chunk. */
  end: ReaderEnd | null;
}

/** All a reader read, as one chunk (a byte range read in a worker of its own). */
export type TracePart = TraceChunk & { end: ReaderEnd };

/** A reader's request columns, all of one length (its capacity). */
export interface PartColumns {
  arrivalMs: Float64Array<ArrayBuffer>;
  keyId: Uint32Array<ArrayBuffer>;
  cost: Uint16Array<ArrayBuffer>;
  status: Uint16Array<ArrayBuffer>;
  line: Float64Array<ArrayBuffer>;
}

/** The buffers of `columns` a range request transfers to its reader (none without columns). */
export function columnBuffers(columns: PartColumns | null): ArrayBuffer[] {
  if (columns === null) return [];
  const { arrivalMs, keyId, cost, status, line } = columns;
  return [arrivalMs.buffer, keyId.buffer, cost.buffer, status.buffer, line.buffer];
}

/**
 * The whole columns under a part once it is merged (a part's arrays are views of its reader's
 * columns), for a reader to fill again instead of making new ones; null when they differ in length.
 */
export function partColumns(part: TraceChunk): PartColumns | null {
  const whole = (a: ArrayBufferView): ArrayBuffer => a.buffer as ArrayBuffer;
  const c: PartColumns = {
    arrivalMs: new Float64Array(whole(part.arrivalMs)),
    keyId: new Uint32Array(whole(part.keyId)),
    cost: new Uint16Array(whole(part.cost)),
    status: new Uint16Array(whole(part.status)),
    line: new Float64Array(whole(part.line)),
  };
  const n = c.arrivalMs.length;
  const same = [c.keyId, c.cost, c.status, c.line].every((a) => a.length === n);
  return same && n > 0 ? c : null;
}

/**
 * Collects what one reader parses: requests in line order with their line numbers, its own key
 * ids, malformed lines, user agents per client. `takeChunk` hands the requests read so far on.
 */
export class TraceBuilder {
  /** Requests added, over every chunk. */
  count = 0;
  lines = 0;
  malformed = 0;
  readonly malformedFirst: Malformed[] = [];
  /** Requests not yet taken. */
  private held = 0;
  private capacity = 4096;
  private arrival = new Float64Array(this.capacity);
  private key = new Uint32Array(this.capacity);
  private cost = new Uint16Array(this.capacity);
  private status = new Uint16Array(this.capacity);
  private line = new Float64Array(this.capacity);
  /** Whether the columns were made here (not given): only those are freed when outgrown. */
  private madeHere = true;
  private readonly keyIds = new Map<string, number>();
  private readonly keys: string[] = [];
  /** Keys handed on in earlier chunks. */
  private keysTaken = 0;
  /** User agents per key id, when the key is the client address. */
  private readonly agentsById: AgentTable | null;
  /** User agents per client address, when the key is something else. */
  private readonly agents = new Map<string, { uas: Set<number>; requests: number }>();
  private firstLine: string | null = null;
  private allSameLine = true;
  private readonly mixed = new Map<string, number>();
  private firstBytes: Uint8Array | null = null;
  /** The key a request with every key part empty gets, when the key is not the address alone. */
  private readonly emptyName: string | null;
  /** Empty-key rows since the last chunk (handed on with it), and their addresses' codes. */
  private empties = emptyRows();
  private emptyIds = new Map<string, number>();

  constructor(
    private readonly spec: KeySpec,
    /** Requests read before the log is refused. */
    private readonly maxRequests = MAX_TRACE_REQUESTS,
    /** Columns to fill (a merged part's, given back: `partColumns`) instead of new ones. */
    columns: PartColumns | null = null,
  ) {
    this.agentsById = this.natById ? new AgentTable() : null;
    this.emptyName = this.natById ? null : emptyKeyName(spec);
    if (columns !== null && columns.arrivalMs.length > 0) {
      this.capacity = columns.arrivalMs.length;
      this.arrival = columns.arrivalMs;
      this.key = columns.keyId;
      this.cost = columns.cost;
      this.status = columns.status;
      this.line = columns.line;
      this.madeHere = false;
    }
  }

  /** `noteLine` of an ASCII line given as bytes b[s, e). */
  noteLineBytes(b: Uint8Array, s: number, e: number): void {
    if (this.firstLine === null || !this.allSameLine) {
      this.noteLine(
        this.firstLine === null ? new TextDecoder('latin1').decode(b.subarray(s, e)) : '',
      );
      return;
    }
    this.lines += 1;
    const first = (this.firstBytes ??= new TextEncoder().encode(this.firstLine));
    let same = first.length === e - s;
    for (let i = 0; i < first.length && same; i += 1) same = first[i] === b[s + i];
    if (!same) this.allSameLine = false;
  }

  /** Counts a non-blank line and remembers whether every line so far is the same text. */
  noteLine(text: string): void {
    this.lines += 1;
    if (this.firstLine === null) this.firstLine = text;
    else if (this.allSameLine && text !== this.firstLine) this.allSameLine = false;
  }

  bad(line: number, reason: string, looksLike?: string): void {
    this.malformed += 1;
    if (looksLike !== undefined) this.mixed.set(looksLike, (this.mixed.get(looksLike) ?? 0) + 1);
    if (this.malformedFirst.length < MALFORMED_LISTED) {
      // Readers quote the fields they name (quoteText, length-capped); this bounds the rest too,
      // so the listed reasons stay a few kB whatever the lines held.
      const r = reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}…` : reason;
      this.malformedFirst.push({
        line,
        reason: looksLike !== undefined ? `${r} (it looks like ${looksLike})` : r,
      });
    }
  }

  add(rec: RequestRecord, line: number): void {
    const t = rec.timeMs;
    if (!(t >= MIN_EPOCH_MS)) {
      this.bad(line, `time ${Number.isFinite(t) ? isoOf(t) : String(t)} is before 1970-01-01`);
      return;
    }
    if (t > MAX_EPOCH_MS) {
      this.bad(line, `time ${isoOf(t)} is after 2100-01-01`);
      return;
    }
    this.checkRoom(line);
    const key = keyOf(rec, this.spec);
    const id = this.idOf(key, line);
    this.put(t, id, rec.cost, rec.status, line);
    if (key === this.emptyName) {
      // Rare rows only: the common path pays one string comparison.
      const e = this.empties;
      e.t.push(t);
      e.line.push(line);
      e.client.push(addressCode(e, this.emptyIds, rec.client));
    }
    if (rec.client !== '' && rec.userAgent !== '') {
      const ua = agentHash(rec.userAgent);
      if (this.agentsById !== null) this.agentsById.add(id, ua);
      else addAgent(this.agents, internKey(rec.client), [ua], 1);
    }
  }

  /**
   * The arrival of the request the next `addFast` adds, epoch ms, written here by its caller: an
   * arrival (a number past 2^30) handed to a call as an argument is boxed when the call is not
   * inlined — a heap number per line, most of a range reader's garbage — while a typed array's
   * slot holds it as is.
   */
  readonly fastArrival = new Float64Array(1);

  /**
   * A request read straight from bytes (src/trace/fastLines.ts): its arrival (`fastArrival`, within
   * the accepted range), key id (from `idOf`), status, and its user agent's hash (null when the
   * line has no client address or user agent). The same effect as `add` of the record it stands
   * for, cost 1.
   */
  addFast(id: number, status: number, uaHash: number | null, line: number): void {
    this.checkRoom(line);
    this.put(this.fastArrival[0] as number, id, 1, status, line);
    if (uaHash !== null) (this.agentsById as AgentTable).add(id, uaHash);
  }

  /** Whether `addFast` may be given user-agent hashes (user agents are kept per key id). */
  get natById(): boolean {
    return this.spec.length === 1 && this.spec[0]?.kind === 'client';
  }

  /** The id of key `k` (held cut when long), made on first sight; throws past MAX_TRACE_KEYS. */
  idOf(k0: string, line: number): number {
    const k = internKey(k0);
    let id = this.keyIds.get(k);
    if (id === undefined) {
      if (this.keys.length === MAX_TRACE_KEYS) throw tooManyKeys(line);
      id = this.keys.length;
      // A key is a slice of a line, which is a slice of a whole chunk of the file: copy it, or
      // every kept key pins its chunk (the whole file, with many keys) in memory.
      const own = detach(k);
      this.keys.push(own);
      this.keyIds.set(own, id);
    }
    return id;
  }

  private checkRoom(line: number): void {
    if (this.count === this.maxRequests) throw tooManyRequests(this.maxRequests, line);
  }

  private put(t: number, id: number, cost: number, status: number, line: number): void {
    if (this.held === this.capacity) this.grow();
    const i = this.held;
    this.arrival[i] = t;
    this.key[i] = id;
    this.cost[i] = cost;
    this.status[i] = status;
    this.line[i] = line;
    this.held = i + 1;
    this.count += 1;
  }

  /**
   * Room for `n` requests held at once (not yet taken), made now in one step: the columns are then
   * not grown and copied as they fill. Never shrinks them; never more than the requests the log may
   * still hold.
   */
  reserve(n: number): void {
    const cap = Math.min(n, this.maxRequests - this.count + this.held);
    if (cap > this.capacity) this.grow(cap);
  }

  /** Grows the columns to `to` requests (default: twice what they hold, at least 4096). */
  private grow(to = 0): void {
    const cap = to > 0 ? to : Math.max(4096, this.capacity * 2);
    const n = this.held;
    const outgrown = [
      this.arrival.buffer,
      this.key.buffer,
      this.cost.buffer,
      this.status.buffer,
      this.line.buffer,
    ];
    const a = new Float64Array(cap);
    a.set(this.arrival.subarray(0, n));
    this.arrival = a;
    const k = new Uint32Array(cap);
    k.set(this.key.subarray(0, n));
    this.key = k;
    const c = new Uint16Array(cap);
    c.set(this.cost.subarray(0, n));
    this.cost = c;
    const s = new Uint16Array(cap);
    s.set(this.status.subarray(0, n));
    this.status = s;
    const l = new Float64Array(cap);
    l.set(this.line.subarray(0, n));
    this.line = l;
    this.capacity = cap;
    // Outgrown arrays made here are held by nothing else (a chunk taken before is a copy): their
    // memory is given back now, not at the worker's next collection (a range worker starting from
    // its own grows them six times in a 32 MB segment). Given ones are left to the collector:
    // detaching a buffer that came in a message leaves its memory held by the browser and no
    // longer counted by the worker's heap, so no collection comes for it (src/trace/release.ts).
    if (this.madeHere) releaseBuffers(...outgrown);
    this.madeHere = true;
  }

  /** Requests read since the last chunk was taken (held: `count` of them). */
  get pending(): number {
    return this.held;
  }

  /**
   * The requests read since the last chunk and the new keys: trimmed copies; with `last` (no
   * request follows) views of the builder's own arrays, which it gives up (transfer them); with
   * `lend`, views of them only until the next request is added, which overwrites them (for a
   * merger that copies what it keeps before it returns: no copy of the columns made to be
   * dropped).
   */
  takeChunk(last = false, lend = false): TraceChunk {
    const n = this.held;
    const cut = <A extends Float64Array | Uint32Array | Uint16Array>(a: A): A =>
      (last || lend ? a.subarray(0, n) : a.slice(0, n)) as A;
    const chunk: TraceChunk = {
      count: n,
      arrivalMs: cut(this.arrival),
      keyId: cut(this.key),
      cost: cut(this.cost),
      status: cut(this.status),
      line: cut(this.line),
      keys: this.keys.slice(this.keysTaken),
      ...(this.empties.t.length > 0 ? { empties: this.empties } : {}),
      end: null,
    };
    if (this.empties.t.length > 0) {
      // The rows go with the requests they stand for (a streaming pass needs each request's
      // address as it leaves the reorder window, not when the reader ends).
      this.empties = emptyRows();
      this.emptyIds = new Map();
    }
    if (last) {
      // A later add starts on arrays of its own.
      this.capacity = 0;
    }
    this.keysTaken = this.keys.length;
    this.held = 0;
    return chunk;
  }

  /** The last chunk, with what the reader read besides requests (`lineCount`: every line). */
  finishReader(lineCount: number): TracePart {
    const chunk = this.takeChunk(true);
    const agents: ClientAgents[] = [];
    if (this.agentsById !== null) {
      const t = this.agentsById;
      for (const [id, uas] of t.entries()) {
        agents.push({
          client: this.keys[id] as string,
          uas,
          requests: t.requests[id] as number,
        });
      }
    } else {
      for (const [client, a] of this.agents) {
        agents.push({ client, uas: [...a.uas], requests: a.requests });
      }
    }
    return {
      ...chunk,
      end: {
        lines: this.lines,
        lineCount,
        malformed: this.malformed,
        malformedFirst: this.malformedFirst.slice(),
        mixed: [...this.mixed],
        agents,
        firstLine: this.firstLine,
        allSameLine: this.allSameLine,
      },
    };
  }
}

function addAgent(
  agents: Map<string, { uas: Set<number>; requests: number }>,
  client: string,
  uas: readonly number[],
  requests: number,
): void {
  let a = agents.get(client);
  if (a === undefined) {
    a = { uas: new Set(), requests: 0 };
    agents.set(detach(client), a);
  }
  a.requests += requests;
  for (const u of uas) if (a.uas.size < UA_CAP) a.uas.add(u);
}

function tooManyKeys(line: number): TraceError {
  return new TraceError(
    `Too many keys: line ${line.toLocaleString('en-US')} adds key ${(MAX_TRACE_KEYS + 1).toLocaleString('en-US')}; the page holds at most ` +
      `${MAX_TRACE_KEYS.toLocaleString('en-US')}. Choose a coarser key.`,
  );
}

function tooManyRequests(max: number, line: number): TraceError {
  return new TraceError(
    `Too many requests: the page holds at most ${plural(max, 'request')} ` +
      `(16 bytes each) and line ${line.toLocaleString('en-US')} would be one more. Split the log or filter it first.`,
  );
}

/**
 * Merges what readers read, in file order, into one trace: key ids of its own (in order of first
 * appearance in the file), line numbers from the file's start, requests in time order through the
 * reorder window (src/trace/reorder.ts). Requests further back than the window are kept apart and
 * sorted into place at the end, so the trace is exactly the one a stable sort of the whole log by
 * time gives; the report names them (how many, the first one's line, how far back).
 */
/** A share of the kept columns filled above which the trace keeps them, not exact copies. */
const NEARLY_FILLED = 0.9;

export class TraceMerger {
  private readonly keyIds = new Map<string, number>();
  readonly keys: string[] = [];
  /** The current reader's key ids → this merger's. */
  private map = new Uint32Array(1024);
  private mapN = 0;
  private lineOffset = 0;
  private readonly window: ReorderWindow;
  /** Requests taken in, outside the window or not. */
  count = 0;
  private readonly out = {
    t: new Float64Array(4096),
    k: new Uint32Array(4096),
    c: new Uint16Array(4096),
    s: new Uint16Array(4096),
  };
  private outN = 0;
  /** Requests outside the window, in line order (columns: a badly ordered log has millions). */
  private readonly outliers = new Columns(1024);
  private outliersN = 0;
  private lines = 0;
  private malformed = 0;
  private readonly malformedFirst: Malformed[] = [];
  private readonly mixed = new Map<string, number>();
  private readonly agentsById: AgentTable | null;
  private readonly agents = new Map<string, { uas: Set<number>; requests: number }>();
  private firstLine: string | null = null;
  private allSameLine = true;
  /** Every reader's empty-key rows, lines counted from the file's start (held reads only). */
  private readonly empties = emptyRows();
  private readonly emptyIds = new Map<string, number>();
  /** The key a request with every key part empty gets (emptyKeyName), and its id once seen. */
  private readonly emptyName: string | null;
  emptyId = -1;
  /**
   * In a streaming pass, the addresses of the empty-key requests handed on as `ADDRESS_KEY + a`
   * (`a` indexes this list), each once, in the order first met.
   */
  readonly addresses: string[] = [];
  private readonly addressIds = new Map<string, number>();

  /**
   * Every key taken in so far → its id (an index of `keys`), live: it grows as readers bring new
   * keys, each added before any of its requests is handed on.
   */
  get keyIndex(): ReadonlyMap<string, number> {
    return this.keyIds;
  }

  constructor(
    private readonly name: string,
    private readonly spec: KeySpec,
    /** Requests held before the log is refused. */
    private readonly maxRequests = MAX_TRACE_REQUESTS,
    /** How far back a line may be and still be sorted in as it is read, ms. */
    private readonly windowMs = REORDER_WINDOW_MS,
    /**
     * Where requests go instead of the kept columns (a streaming pass over a log too large to
     * hold): those in time order, and those outside the window, in line order.
     */
    private readonly pass: {
      ordered: OrderedSink;
      outside: (t: number, key: number, cost: number, status: number, line: number) => void;
    } | null = null,
  ) {
    this.agentsById = spec.length === 1 && spec[0]?.kind === 'client' ? new AgentTable() : null;
    this.emptyName = emptyKeyName(spec);
    this.window = new ReorderWindow(
      pass?.ordered ?? ((c, from, n) => this.keep(c, from, n)),
      pass?.outside ??
        ((t, k, c, s, line) => {
          const i = this.outliersN;
          if (i === this.outliers.capacity) this.outliers.reserve(i * 2, 0, i);
          this.outliers.set(i, t, k, c, s, line);
          this.outliersN = i + 1;
        }),
      windowMs,
    );
  }

  /** Takes a chunk of the current reader (file order); after its last chunk, the next reader's. */
  add(chunk: TraceChunk): void {
    if (this.count + chunk.count > this.maxRequests) {
      const line = (chunk.line[this.maxRequests - this.count] as number) + this.lineOffset;
      throw tooManyRequests(this.maxRequests, line);
    }
    // The reader's new keys, in its id order.
    if (this.mapN + chunk.keys.length > this.map.length) {
      const m = new Uint32Array(Math.max(this.map.length * 2, this.mapN + chunk.keys.length));
      m.set(this.map.subarray(0, this.mapN));
      this.map = m;
    }
    for (const k of chunk.keys) {
      let id = this.keyIds.get(k);
      if (id === undefined) {
        if (this.keys.length === MAX_TRACE_KEYS)
          throw tooManyKeys(this.firstUse(chunk) + this.lineOffset);
        id = this.keys.length;
        this.keys.push(k);
        this.keyIds.set(k, id);
        if (k === this.emptyName) this.emptyId = id;
      }
      this.map[this.mapN++] = id;
    }
    const keyId =
      chunk.empties === undefined ? chunk.keyId : this.takeEmpties(chunk, chunk.empties);
    this.window.pushMany(
      chunk.arrivalMs,
      keyId,
      this.map,
      chunk.cost,
      chunk.status,
      chunk.line,
      this.lineOffset,
      chunk.count,
    );
    this.count += chunk.count;
    if (chunk.end !== null) this.endReader(chunk.end);
  }

  /**
   * The chunk's empty-key rows. A held read keeps them (lines from the file's start) for the
   * trace's `emptyClients`. A streaming pass keeps nothing: each empty-key request with an address
   * is handed on as `ADDRESS_KEY + a` (see ADDRESS_KEY) through scratch entries of the key map
   * past the reader's keys, in a copy of the chunk's key column. The rows are the chunk's
   * empty-key requests one for one, both in line order.
   */
  private takeEmpties(chunk: TraceChunk, e: EmptyRows): Uint32Array {
    if (this.pass === null) {
      const off = this.lineOffset;
      // The reader's address codes → this merger's.
      const codes = [0, ...e.names.map((c) => addressCode(this.empties, this.emptyIds, c))];
      for (let i = 0; i < e.t.length; i += 1) {
        this.empties.t.push(e.t[i] as number);
        this.empties.line.push((e.line[i] as number) + off);
        this.empties.client.push(codes[e.client[i] as number] as number);
      }
      return chunk.keyId;
    }
    let addressed = 0;
    for (const c of e.client) if (c !== 0) addressed += 1;
    if (addressed === 0 || this.emptyId < 0) return chunk.keyId;
    const codes = e.names.map((name) => {
      let a = this.addressIds.get(name);
      if (a === undefined) {
        a = this.addresses.push(name) - 1;
        this.addressIds.set(name, a);
      }
      return ADDRESS_KEY + a;
    });
    const base = this.mapN;
    if (base + addressed > this.map.length) {
      const m = new Uint32Array(Math.max(this.map.length * 2, base + addressed));
      m.set(this.map.subarray(0, base));
      this.map = m;
    }
    const keyId = chunk.keyId.slice(0, chunk.count);
    let row = 0;
    let scratch = base;
    for (let i = 0; i < chunk.count && row < e.client.length; i += 1) {
      if (this.map[keyId[i] as number] !== this.emptyId) continue;
      const c = e.client[row] as number;
      row += 1;
      if (c === 0) continue;
      this.map[scratch] = codes[c - 1] as number;
      keyId[i] = scratch;
      scratch += 1;
    }
    return keyId;
  }

  /** The line of the chunk where the reader's key numbered `mapN` (the next to map) first appears. */
  private firstUse(chunk: TraceChunk): number {
    for (let i = 0; i < chunk.count; i += 1) {
      if (chunk.keyId[i] === this.mapN) return chunk.line[i] as number;
    }
    return 1;
  }

  private endReader(end: ReaderEnd): void {
    const off = this.lineOffset;
    if (end.firstLine !== null) {
      if (this.firstLine === null) this.firstLine = end.firstLine;
      else if (end.firstLine !== this.firstLine) this.allSameLine = false;
    }
    if (!end.allSameLine) this.allSameLine = false;
    this.lines += end.lines;
    for (const m of end.malformedFirst) {
      if (this.malformedFirst.length < MALFORMED_LISTED) {
        this.malformedFirst.push({ line: m.line + off, reason: m.reason });
      }
    }
    this.malformed += end.malformed;
    for (const [look, c] of end.mixed) this.mixed.set(look, (this.mixed.get(look) ?? 0) + c);
    for (const a of end.agents) {
      if (this.agentsById !== null) {
        const id = this.keyIds.get(a.client) as number;
        // The first hash counts the requests; the rest only join the set.
        this.agentsById.add(id, a.uas[0] ?? 0, a.requests);
        for (let i = 1; i < a.uas.length; i += 1) this.agentsById.add(id, a.uas[i] as number, 0);
      } else {
        addAgent(this.agents, a.client, a.uas, a.requests);
      }
    }
    this.lineOffset += end.lineCount;
    this.mapN = 0;
  }

  /**
   * Makes room for `n` requests in all in the kept columns at once (a merge of parts knows their
   * sum), so they are not grown and copied as they fill, nor copied again at the end.
   */
  reserve(n: number): void {
    const cap = Math.min(this.maxRequests, n);
    const o = this.out;
    if (cap <= o.t.length) return;
    const grow = <A extends Float64Array | Uint32Array | Uint16Array>(a: A, b: A): A => {
      b.set(a.subarray(0, this.outN));
      return b;
    };
    o.t = grow(o.t, new Float64Array(cap));
    o.k = grow(o.k, new Uint32Array(cap));
    o.c = grow(o.c, new Uint16Array(cap));
    o.s = grow(o.s, new Uint16Array(cap));
  }

  /** Appends requests in time order to the kept columns. */
  private keep(c: Parameters<OrderedSink>[0], from: number, n: number): void {
    const o = this.out;
    if (this.outN + n > o.t.length) {
      const cap = Math.min(this.maxRequests, Math.max(this.outN + n, o.t.length * 2));
      const grow = <A extends Float64Array | Uint32Array | Uint16Array>(
        a: A,
        make: (n: number) => A,
      ): A => {
        const b = make(cap);
        b.set(a.subarray(0, this.outN));
        return b;
      };
      o.t = grow(o.t, (m) => new Float64Array(m));
      o.k = grow(o.k, (m) => new Uint32Array(m));
      o.c = grow(o.c, (m) => new Uint16Array(m));
      o.s = grow(o.s, (m) => new Uint16Array(m));
    }
    o.t.set(c.t.subarray(from, from + n), this.outN);
    o.k.set(c.key.subarray(from, from + n), this.outN);
    o.c.set(c.cost.subarray(from, from + n), this.outN);
    o.s.set(c.status.subarray(from, from + n), this.outN);
    this.outN += n;
  }

  /** The trace, every reader merged and sorted (those outside the window sorted into place). */
  finish(
    info: Pick<ParseReport, 'formatName' | 'resolutionMs' | 'timeSource'> & { format: TraceFormat },
  ): BuiltTrace {
    const report = this.finishReport(info);
    const { arrival, key, cost, status } = this.sorted();
    return {
      name: this.name,
      count: arrival.length,
      arrivalMs: arrival,
      keyId: key,
      keys: this.keys.slice(),
      cost,
      status,
      keySpec: this.spec,
      natHints: this.natHints(),
      report,
      ...optional('emptyClients', emptyKeyClients(this.empties)),
    };
  }

  /**
   * Lets every request out of the window and reports what was read (throws when no request
   * was): the trace's report, or a streaming pass's.
   */
  finishReport(
    info: Pick<ParseReport, 'formatName' | 'resolutionMs' | 'timeSource'> & { format: TraceFormat },
  ): ParseReport {
    this.window.flush();
    const r = this.window.report;
    if (this.count === 0) {
      const first = this.malformedFirst
        .slice(0, 3)
        .map((m) => `line ${m.line}: ${m.reason}`)
        .join('; ');
      throw new TraceError(
        this.lines === 0
          ? 'Empty file: no lines to read.'
          : `No request could be read as ${info.formatName}: all ${plural(this.lines, 'line')} are malformed (${first}).`,
      );
    }
    const notes: string[] = [];
    if (info.resolutionMs >= 1000) {
      notes.push(
        'Times have 1-second resolution only: requests within a second share its start. Log $msec (nginx) or use a format with milliseconds for exact replays.',
      );
    }
    if (r.outOfOrder > 0) {
      notes.push(
        `${plural(r.outOfOrder, 'request')} ${r.outOfOrder === 1 ? 'was' : 'were'} earlier than a line before them (by up to ${r.maxBackstepMs.toLocaleString('en-US')} ms) and were sorted into place.`,
      );
    }
    if (r.outside > 0) {
      const w = this.windowMs;
      const span = w % 60_000 === 0 ? `${w / 60_000}-minute` : `${w.toLocaleString('en-US')} ms`;
      notes.push(
        `${plural(r.outside, 'request')} ${r.outside === 1 ? 'was' : 'were'} further back than the ${span} reorder window ` +
          `(the first at line ${r.firstOutsideLine.toLocaleString('en-US')}, up to ${r.maxOutsideMs.toLocaleString('en-US')} ms before requests already sorted); ` +
          (this.pass === null
            ? `the whole trace is held, so ${r.outside === 1 ? 'it was' : 'they were'} sorted into place at the end.`
            : `the log is too large to hold, so ${r.outside === 1 ? 'it was' : 'they were'} decided where ${r.outside === 1 ? 'it stands' : 'they stand'} in the file: figures that depend on order are not exact.`),
      );
    }
    if (this.lines > 1 && this.allSameLine) {
      notes.push(`All ${plural(this.lines, 'line')} are the same line repeated.`);
    }
    for (const [fmt, c] of this.mixed) {
      notes.push(
        `Mixed formats: ${plural(c, 'line')} ${c === 1 ? 'looks' : 'look'} like ${fmt}, not ${info.formatName}; ${c === 1 ? 'it was' : 'they were'} skipped.`,
      );
    }
    if (this.malformed > 0) {
      notes.push(
        `${plural(this.malformed, 'malformed line')} ${this.malformed === 1 ? 'was' : 'were'} skipped.`,
      );
    }
    return {
      format: info.format,
      formatName: info.formatName,
      lines: this.lines,
      malformed: this.malformed,
      malformedFirst: this.malformedFirst.slice(),
      outOfOrder: r.outOfOrder,
      maxBackstepMs: r.maxBackstepMs,
      resolutionMs: info.resolutionMs,
      timeSource: info.timeSource,
      notes,
      reorderWindowMs: this.windowMs,
      outsideWindow: r.outside,
      firstOutsideLine: r.firstOutsideLine,
    };
  }

  /**
   * The kept requests (already in time order) with those outside the window merged in: each goes
   * after every kept request not later than it, for those all came from earlier lines (a kept
   * request as early as it from a later line would have been outside too).
   */
  private sorted(): {
    arrival: Float64Array;
    key: Uint32Array;
    cost: Uint16Array;
    status: Uint16Array;
  } {
    const o = this.out;
    const m = this.outN;
    const late = this.outliers;
    const nl = this.outliersN;
    if (nl === 0) {
      // Filled exactly (reserved for every request): the columns themselves, not copies.
      if (m === o.t.length) return { arrival: o.t, key: o.k, cost: o.c, status: o.s };
      // Nearly filled (reserved from an estimate a little over, as a merge of ranges reserves):
      // views of the columns, not copies. Copying 16 bytes a request to free a few per cent of
      // them cost the read time after its last range; when the estimate was far over, the
      // copies free more than they cost to make.
      if (m >= o.t.length * NEARLY_FILLED) {
        return {
          arrival: o.t.subarray(0, m),
          key: o.k.subarray(0, m),
          cost: o.c.subarray(0, m),
          status: o.s.subarray(0, m),
        };
      }
      return {
        arrival: o.t.slice(0, m),
        key: o.k.slice(0, m),
        cost: o.c.slice(0, m),
        status: o.s.slice(0, m),
      };
    }
    // Stable by time: they came in line order.
    const order = Array.from({ length: nl }, (_, i) => i);
    order.sort((x, y) => (late.t[x] as number) - (late.t[y] as number) || x - y);
    const n = m + nl;
    const a = new Float64Array(n);
    const k = new Uint32Array(n);
    const c = new Uint16Array(n);
    const s = new Uint16Array(n);
    let i = 0;
    let j = 0;
    for (let x = 0; x < n; x += 1) {
      const q = j < nl ? (order[j] as number) : -1;
      if (i < m && (q < 0 || (o.t[i] as number) <= (late.t[q] as number))) {
        a[x] = o.t[i] as number;
        k[x] = o.k[i] as number;
        c[x] = o.c[i] as number;
        s[x] = o.s[i] as number;
        i += 1;
      } else {
        a[x] = late.t[q] as number;
        k[x] = late.key[q] as number;
        c[x] = late.cost[q] as number;
        s[x] = late.status[q] as number;
        j += 1;
      }
    }
    return { arrival: a, key: k, cost: c, status: s };
  }

  private natHints(): NatHint[] {
    const natHints: NatHint[] = [];
    if (this.agentsById !== null) {
      const t = this.agentsById;
      for (let id = 0; id < this.keys.length && id < t.distinct.length; id += 1) {
        if ((t.distinct[id] as number) >= NAT_USER_AGENTS) {
          natHints.push({
            client: this.keys[id] as string,
            userAgents: t.distinct[id] as number,
            requests: t.requests[id] as number,
          });
        }
      }
    } else {
      for (const [client, a] of this.agents) {
        if (a.uas.size >= NAT_USER_AGENTS) {
          natHints.push({ client, userAgents: a.uas.size, requests: a.requests });
        }
      }
    }
    natHints.sort((x, y) => y.userAgents - x.userAgents || y.requests - x.requests);
    natHints.length = Math.min(natHints.length, 10);
    return natHints;
  }
}
