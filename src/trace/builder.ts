/** Collects parsed records into a Trace: interns keys, counts malformed lines, sorts by arrival. */
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
import type { KeySpec, Malformed, ParseReport, Trace, TraceFormat } from './types';
import { plural } from '../core';

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

/** FNV-1a, 32 bits: a user agent's fingerprint (collisions only lower the NAT count). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i += 1) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** What a builder read from one byte range of a file (see TraceBuilder.part). */
export interface TracePart {
  count: number;
  arrivalMs: Float64Array;
  /** Into this part's own `keys`. */
  keyId: Uint32Array;
  cost: Uint16Array;
  status: Uint16Array;
  keys: string[];
  /** Non-blank lines read. */
  lines: number;
  /** Every line of the range, blank ones included (the next part's line numbers start after). */
  lineCount: number;
  malformed: number;
  /** Line numbers within the part (from 1). */
  malformedFirst: Malformed[];
  mixed: [string, number][];
  agents: { client: string; uas: number[]; requests: number }[];
  firstLine: string | null;
  allSameLine: boolean;
}

export class TraceBuilder {
  count = 0;
  lines = 0;
  malformed = 0;
  readonly malformedFirst: Malformed[] = [];
  private capacity = 4096;
  private arrival = new Float64Array(this.capacity);
  private key = new Uint32Array(this.capacity);
  private cost = new Uint16Array(this.capacity);
  private status = new Uint16Array(this.capacity);
  private readonly keyIds = new Map<string, number>();
  private readonly keys: string[] = [];
  /**
   * Per client address (its key id when the key is the address): hashes of its user agents
   * (numbers, so no line text is kept).
   */
  private readonly agents = new Map<string | number, { uas: Set<number>; requests: number }>();
  private maxSeen = -Infinity;
  private outOfOrder = 0;
  private maxBackstepMs = 0;
  private firstLine: string | null = null;
  private allSameLine = true;
  private readonly mixed = new Map<string, number>();

  constructor(
    private readonly name: string,
    private readonly spec: KeySpec,
    /** Requests held before the log is refused. */
    private readonly maxRequests = MAX_TRACE_REQUESTS,
  ) {}

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

  private firstBytes: Uint8Array | null = null;

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
    const id = this.idOf(keyOf(rec, this.spec), line);
    this.put(t, id, rec.cost, rec.status);
    if (rec.client !== '' && rec.userAgent !== '') {
      this.agent(this.natById ? id : internKey(rec.client), fnv1a(rec.userAgent));
    }
  }

  /**
   * A request read straight from bytes (src/trace/fastLines.ts): its arrival (within the accepted
   * range), key id (from `idOf`), status, and its user agent's hash (null when the line has no
   * client address or user agent). The same effect as `add` of the record it stands for, cost 1.
   */
  addFast(t: number, id: number, status: number, uaHash: number | null, line: number): void {
    this.checkRoom(line);
    this.put(t, id, 1, status);
    if (uaHash !== null) {
      // Most lines repeat their client's last user agent: counted without a set lookup.
      if (id < this.lastUa.length && this.lastUa[id] === (uaHash | 0) && this.lastUaSet[id] === 1) {
        (this.agents.get(id) as { requests: number }).requests += 1;
        return;
      }
      this.agent(id, uaHash);
      if (id >= this.lastUa.length) {
        const n = Math.max(id + 1, this.lastUa.length * 2);
        const u = new Int32Array(n);
        u.set(this.lastUa);
        this.lastUa = u;
        const f = new Uint8Array(n);
        f.set(this.lastUaSet);
        this.lastUaSet = f;
      }
      this.lastUa[id] = uaHash | 0;
      this.lastUaSet[id] = 1;
    }
  }

  /** Per key id: the last user agent's hash (int32) and whether there is one. */
  private lastUa = new Int32Array(1024);
  private lastUaSet = new Uint8Array(1024);

  /** Whether `addFast` may be given user-agent hashes (NAT hints are kept per key id). */
  get natById(): boolean {
    return this.spec.length === 1 && this.spec[0]?.kind === 'client';
  }

  /** The id of key `k` (held cut when long), made on first sight; throws past MAX_TRACE_KEYS. */
  idOf(k0: string, line: number): number {
    const k = internKey(k0);
    let id = this.keyIds.get(k);
    if (id === undefined) {
      if (this.keys.length === MAX_TRACE_KEYS) {
        throw new TraceError(
          `Too many keys: line ${line} adds key ${MAX_TRACE_KEYS + 1}; the page holds at most ` +
            `${MAX_TRACE_KEYS.toLocaleString('en-US')}. Choose a coarser key.`,
        );
      }
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
    if (this.count === this.maxRequests) {
      throw new TraceError(
        `Too many requests: the page holds at most ${plural(this.maxRequests, 'request')} ` +
          `(16 bytes each) and line ${line.toLocaleString('en-US')} would be one more. Split the log or filter it first.`,
      );
    }
  }

  private put(t: number, id: number, cost: number, status: number): void {
    if (this.count === this.capacity) this.grow();
    const i = this.count;
    this.arrival[i] = t;
    this.key[i] = id;
    this.cost[i] = cost;
    this.status[i] = status;
    this.count += 1;
    if (t < this.maxSeen) {
      this.outOfOrder += 1;
      if (this.maxSeen - t > this.maxBackstepMs) this.maxBackstepMs = this.maxSeen - t;
    } else {
      this.maxSeen = t;
    }
  }

  /** One more request of a client (its id, or its address) with a user agent of hash `ua`. */
  private agent(client: number | string, ua: number): void {
    let a = this.agents.get(client);
    if (a === undefined) {
      a = { uas: new Set(), requests: 0 };
      this.agents.set(typeof client === 'string' ? detach(client) : client, a);
    }
    a.requests += 1;
    if (a.uas.size < UA_CAP) a.uas.add(ua);
  }

  /**
   * What this builder read, to be merged with the parts read before and after it (a byte range of
   * a file read in a worker of its own). Its arrays are trimmed copies (transfer them).
   */
  part(lineCount: number): TracePart {
    const n = this.count;
    return {
      count: n,
      arrivalMs: this.arrival.slice(0, n),
      keyId: this.key.slice(0, n),
      cost: this.cost.slice(0, n),
      status: this.status.slice(0, n),
      keys: this.keys.slice(),
      lines: this.lines,
      lineCount,
      malformed: this.malformed,
      malformedFirst: this.malformedFirst.slice(),
      mixed: [...this.mixed],
      agents: [...this.agents].map(([client, a]) => ({
        client: typeof client === 'number' ? (this.keys[client] as string) : client,
        uas: [...a.uas],
        requests: a.requests,
      })),
      firstLine: this.firstLine,
      allSameLine: this.allSameLine,
    };
  }

  /**
   * Adds a part read after everything added so far; its line numbers are shifted by
   * `lineOffset` (the lines, blank ones included, of the parts before it). The result is the
   * builder that would have read both in one go.
   */
  addPart(part: TracePart, lineOffset: number): void {
    if (this.count + part.count > this.maxRequests) {
      throw new TraceError(
        `Too many requests: the page holds at most ${plural(this.maxRequests, 'request')} ` +
          `(16 bytes each) and the log has more: ${(this.count + part.count).toLocaleString('en-US')} by line ` +
          `${(lineOffset + part.lineCount).toLocaleString('en-US')}. Split the log or filter it first.`,
      );
    }
    const ids = new Uint32Array(part.keys.length);
    part.keys.forEach((k, i) => (ids[i] = this.idOf(k, lineOffset + 1)));
    for (let i = 0; i < part.count; i += 1) {
      this.put(
        part.arrivalMs[i] as number,
        ids[part.keyId[i] as number] as number,
        part.cost[i] as number,
        part.status[i] as number,
      );
    }
    if (part.firstLine !== null) {
      if (this.firstLine === null) this.firstLine = part.firstLine;
      else if (part.firstLine !== this.firstLine) this.allSameLine = false;
    }
    if (!part.allSameLine) this.allSameLine = false;
    this.lines += part.lines;
    for (const m of part.malformedFirst) {
      if (this.malformedFirst.length < MALFORMED_LISTED) {
        this.malformedFirst.push({ line: m.line + lineOffset, reason: m.reason });
      }
    }
    this.malformed += part.malformed;
    for (const [look, c] of part.mixed) this.mixed.set(look, (this.mixed.get(look) ?? 0) + c);
    for (const a of part.agents) {
      const client = this.natById ? (this.keyIds.get(a.client) as number) : a.client;
      let mine = this.agents.get(client);
      if (mine === undefined) {
        mine = { uas: new Set(), requests: 0 };
        this.agents.set(client, mine);
      }
      mine.requests += a.requests;
      for (const u of a.uas) if (mine.uas.size < UA_CAP) mine.uas.add(u);
    }
  }

  private grow(): void {
    const cap = Math.min(this.maxRequests, this.capacity * 2);
    const a = new Float64Array(cap);
    a.set(this.arrival);
    this.arrival = a;
    const k = new Uint32Array(cap);
    k.set(this.key);
    this.key = k;
    const c = new Uint16Array(cap);
    c.set(this.cost);
    this.cost = c;
    const s = new Uint16Array(cap);
    s.set(this.status);
    this.status = s;
    this.capacity = cap;
  }

  finish(
    info: Pick<ParseReport, 'formatName' | 'resolutionMs' | 'timeSource'> & { format: TraceFormat },
  ): BuiltTrace {
    const n = this.count;
    if (n === 0) {
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
    let arrival = this.arrival.slice(0, n);
    let key = this.key.slice(0, n);
    let cost = this.cost.slice(0, n);
    let status = this.status.slice(0, n);
    if (this.outOfOrder > 0) {
      // Stable: equal arrivals keep their line order.
      const order = Array.from({ length: n }, (_, i) => i);
      const a0 = arrival;
      order.sort((x, y) => (a0[x] as number) - (a0[y] as number) || x - y);
      const a = new Float64Array(n);
      const k = new Uint32Array(n);
      const c = new Uint16Array(n);
      const s = new Uint16Array(n);
      for (let i = 0; i < n; i += 1) {
        const j = order[i] as number;
        a[i] = a0[j] as number;
        k[i] = key[j] as number;
        c[i] = cost[j] as number;
        s[i] = status[j] as number;
      }
      arrival = a;
      key = k;
      cost = c;
      status = s;
    }
    const notes: string[] = [];
    if (info.resolutionMs >= 1000) {
      notes.push(
        'Times have 1-second resolution only: requests within a second share its start. Log $msec (nginx) or use a format with milliseconds for exact replays.',
      );
    }
    if (this.outOfOrder > 0) {
      notes.push(
        `${plural(this.outOfOrder, 'request')} ${this.outOfOrder === 1 ? 'was' : 'were'} earlier than a line before them (by up to ${this.maxBackstepMs} ms) and were sorted into place.`,
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
      notes.push(`${this.malformed.toLocaleString('en-US')} malformed lines were skipped.`);
    }
    const natHints: NatHint[] = [];
    for (const [client, a] of this.agents) {
      if (a.uas.size >= NAT_USER_AGENTS) {
        natHints.push({
          client: typeof client === 'number' ? (this.keys[client] as string) : client,
          userAgents: a.uas.size,
          requests: a.requests,
        });
      }
    }
    natHints.sort((x, y) => y.userAgents - x.userAgents || y.requests - x.requests);
    natHints.length = Math.min(natHints.length, 10);
    return {
      name: this.name,
      count: n,
      arrivalMs: arrival,
      keyId: key,
      keys: this.keys.slice(),
      cost,
      status,
      keySpec: this.spec,
      natHints,
      report: {
        format: info.format,
        formatName: info.formatName,
        lines: this.lines,
        malformed: this.malformed,
        malformedFirst: this.malformedFirst.slice(),
        outOfOrder: this.outOfOrder,
        maxBackstepMs: this.maxBackstepMs,
        resolutionMs: info.resolutionMs,
        timeSource: info.timeSource,
        notes,
      },
    };
  }
}
