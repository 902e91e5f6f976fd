/**
 * nginx lines read straight from bytes: no string per line, no regular expression. A compiled
 * `log_format` (src/trace/nginx.ts) is turned into a list of steps — literal bytes, a variable
 * that runs to the byte its following literal starts with, `$time_local`'s fixed 26 bytes, the
 * rest of the line — which is exactly what its regular expression matches: each `([^X]*)` stops at
 * the first X, so the match is found in one pass without backtracking.
 *
 * A line is read here only when it is plain: ASCII only, matching every step, a time and status
 * the string reader would accept. Anything else returns false and the caller reads that line with
 * the format's own parser, which says what is wrong. So the result is the same, request for
 * request, key for key, as reading every line through `NginxFormat.parse` — checked by the tests
 * on every format and on lines built to hit each fallback.
 */
import { AGENT_SEED_A, AGENT_SEED_B, MAX_KEY_CHARS, agentHashEnd, agentMix } from './builder';
import type { TraceBuilder } from './builder';
import type { NginxFormat } from './nginx';
import { parseTimeLocal } from './time';
import type { KeySpec } from './types';
import { MAX_EPOCH_MS, MAX_LINE_BYTES, MIN_EPOCH_MS } from './types';

type Step =
  | { kind: 'lit'; bytes: Uint8Array }
  /** A variable ending at the first `stop` byte (not consumed). */
  | { kind: 'var'; index: number; stop: number }
  /** The last variable: the rest of the line. */
  | { kind: 'rest'; index: number }
  /** `$time_local`: `dd/Mon/yyyy:hh:mm:ss +zzzz`, 26 bytes. */
  | { kind: 'time'; index: number };

const VAR = /\$(?:\{([a-z0-9_]+)\}|([a-z0-9_]+))/gi;

/** The steps of `format`, or null when it has a variable directly after another (lazy match). */
function stepsOf(format: string): { steps: Step[]; variables: string[] } | null {
  const steps: Step[] = [];
  const variables: string[] = [];
  const matches = [...format.matchAll(VAR)];
  let last = 0;
  const lit = (s: string): void => {
    if (s !== '') steps.push({ kind: 'lit', bytes: new TextEncoder().encode(s) });
  };
  for (let i = 0; i < matches.length; i += 1) {
    const m = matches[i] as RegExpExecArray;
    const v = (m[1] ?? m[2] ?? '').toLowerCase();
    lit(format.slice(last, m.index));
    last = m.index + m[0].length;
    const next =
      i + 1 < matches.length
        ? format.slice(last, (matches[i + 1] as RegExpExecArray).index)
        : format.slice(last);
    if (v === 'time_local') steps.push({ kind: 'time', index: i });
    else if (next === '') {
      if (i + 1 < matches.length) return null;
      steps.push({ kind: 'rest', index: i });
    } else {
      const stop = next.charCodeAt(0);
      if (stop > 127) return null;
      steps.push({ kind: 'var', index: i, stop });
    }
    variables.push(v);
  }
  lit(format.slice(last));
  return { steps, variables };
}

const latin1 = new TextDecoder('latin1');
/** ASCII bytes b[s, e) as a string. */
function ascii(b: Uint8Array, s: number, e: number): string {
  return e - s <= 64 ? String.fromCharCode(...b.subarray(s, e)) : latin1.decode(b.subarray(s, e));
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAlpha = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Whole milliseconds of `d+(.d{1,3})?` seconds in b[s, e), or NaN (nginx.ts: `$msec`,
 * `$request_time`, read there as Math.round(Number(text) × 1000), which is this exact integer for
 * every time up to 2100).
 */
function secondsMs(b: Uint8Array, s: number, e: number): number {
  let i = s;
  let whole = 0;
  while (i < e && isDigit(b[i] as number)) {
    whole = whole * 10 + ((b[i] as number) - 48);
    i += 1;
  }
  if (i === s || i - s > 12) return NaN;
  if (i === e) return whole * 1000;
  if (b[i] !== 46) return NaN;
  i += 1;
  const digits = e - i;
  if (digits < 1 || digits > 3) return NaN;
  let frac = 0;
  for (; i < e; i += 1) {
    const c = b[i] as number;
    if (!isDigit(c)) return NaN;
    frac = frac * 10 + (c - 48);
  }
  return whole * 1000 + frac * (digits === 1 ? 100 : digits === 2 ? 10 : 1);
}

/**
 * Open-addressing table from key bytes to key id, so a known key costs no string. Hashes are any
 * 32-bit value, signed or not (held as int32).
 */
export class KeyTable {
  private slots = new Int32Array(1 << 12).fill(-1);
  private hashes = new Int32Array(1 << 12);
  private starts: number[] = [];
  private lengths: number[] = [];
  private ids: number[] = [];
  private pool = new Uint8Array(1 << 16);
  private poolView = new DataView(this.pool.buffer);
  private used = 0;
  /** A DataView over the bytes last looked up in. */
  private viewOf: Uint8Array | null = null;
  private view: DataView = new DataView(new ArrayBuffer(0));

  /** The id of key b[s, e) of hash `h`, or −1. */
  find(b: Uint8Array, s: number, e: number, hash: number): number {
    const h = hash | 0;
    const mask = this.slots.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const slot = this.slots[at] as number;
      if (slot < 0) return -1;
      if (this.hashes[at] !== h || this.lengths[slot] !== e - s) continue;
      if (this.same(b, s, e, this.starts[slot] as number)) return this.ids[slot] as number;
    }
  }

  /** Whether b[s, e) is the pool's bytes from `p`: four at a time, then one at a time. */
  private same(b: Uint8Array, s: number, e: number, p: number): boolean {
    if (b !== this.viewOf) {
      this.viewOf = b;
      this.view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    const v = this.view;
    const pv = this.poolView;
    let i = s;
    for (; i + 4 <= e; i += 4)
      if (v.getInt32(i, true) !== pv.getInt32(p + i - s, true)) return false;
    for (; i < e; i += 1) if (b[i] !== this.pool[p + i - s]) return false;
    return true;
  }

  /** Adds key b[s, e) of hash `h` (not in the table) as `id`. */
  add(b: Uint8Array, s: number, e: number, hash: number, id: number): void {
    const h = hash | 0;
    if ((this.ids.length + 1) * 2 > this.slots.length) this.rehash();
    const len = e - s;
    if (this.used + len > this.pool.length) {
      const bigger = new Uint8Array(Math.max(this.pool.length * 2, this.used + len));
      bigger.set(this.pool.subarray(0, this.used));
      this.pool = bigger;
      this.poolView = new DataView(bigger.buffer);
    }
    this.pool.set(b.subarray(s, e), this.used);
    const slot = this.ids.length;
    this.starts.push(this.used);
    this.lengths.push(len);
    this.ids.push(id);
    this.used += len;
    this.place(slot, h);
  }

  private place(slot: number, h: number): void {
    const mask = this.slots.length - 1;
    let at = h & mask;
    while ((this.slots[at] as number) >= 0) at = (at + 1) & mask;
    this.slots[at] = slot;
    this.hashes[at] = h;
  }

  private rehash(): void {
    const oldSlots = this.slots;
    const oldHashes = this.hashes;
    this.slots = new Int32Array(oldSlots.length * 2).fill(-1);
    this.hashes = new Int32Array(oldSlots.length * 2);
    for (let i = 0; i < oldSlots.length; i += 1) {
      const slot = oldSlots[i] as number;
      if (slot >= 0) this.place(slot, oldHashes[i] as number);
    }
  }
}

/**
 * Reads the line starting at b[s] into a builder, up to and including its newline (the caller
 * guarantees one follows in `b`); returns the newline's index, or −1 when the line must go the
 * string way (nothing is added then).
 */
export type FastLineReader = (
  b: Uint8Array,
  s: number,
  builder: TraceBuilder,
  line: number,
) => number;

/** A literal of one byte. */
const OP_LIT1 = 0;
/** A literal of 2 – 4 bytes, compared as one word. */
const OP_LITW = 7;
/** A literal of five bytes or more. */
const OP_LIT = 1;
/** A variable whose bounds are read later (`from`, `to`). */
const OP_VAR = 2;
const OP_REST = 3;
const OP_TIME = 4;
/** A variable only stepped over: its end found, nothing kept. */
const OP_SKIP = 5;
/** The user agent or the address: its bounds kept and its bytes hashed as they are scanned. */
const OP_HASH = 6;

/** Whether b[p, p + 26) has the shape of `$time_local`: \d{2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}. */
function timeShape(b: Uint8Array, p: number): boolean {
  for (let j = 0; j < 26; j += 1) {
    const c = b[p + j] as number;
    const ok =
      j === 2 || j === 6
        ? c === 47
        : j >= 3 && j <= 5
          ? isAlpha(c)
          : j === 11 || j === 14 || j === 17
            ? c === 58
            : j === 20
              ? c === 32
              : j === 21
                ? c === 43 || c === 45
                : isDigit(c);
    if (!ok) return false;
  }
  return true;
}

/**
 * A byte reader for `format` keyed by `keySpec`, or null when only the string reader can read it
 * (a cost field, a key other than the client address, `$time_iso8601`, a variable right after
 * another).
 *
 * The steps are held in typed arrays and run by one loop (no object per step); a variable's end is
 * found four bytes at a time (`findStop`); the address and the user agent are hashed word by word
 * in that same pass (`scanHash`), and variables the request does not use are only stepped over.
 * `$time_local` is read against the day and zone it last saw (logs repeat a day on millions of
 * lines), compared a word at a time; only hh:mm:ss is read on each line. The line's end is found by
 * the same pass.
 */
export function fastLineReader(
  format: Pick<NginxFormat, 'source'>,
  keySpec: KeySpec,
  costField: string | undefined,
): FastLineReader | null {
  if (costField !== undefined || format.source === undefined) return null;
  if (!(keySpec.length === 1 && keySpec[0]?.kind === 'client')) return null;
  const compiled = stepsOf(format.source);
  if (compiled === null) return null;
  const { steps, variables } = compiled;
  const idx = (v: string): number => variables.indexOf(v);
  const iMsec = idx('msec');
  const iRt = idx('request_time');
  const iLocal = idx('time_local');
  const iAddr = idx('remote_addr');
  const iStatus = idx('status');
  const iUa = idx('http_user_agent');
  if (iMsec < 0 && iLocal < 0) return null;
  // Variables whose text the request is made from; any other is only stepped over.
  const used = (v: number): boolean =>
    v === iMsec || v === iRt || v === iLocal || v === iAddr || v === iStatus || v === iUa;
  const nSteps = steps.length;
  const ops = new Uint8Array(nSteps);
  const arg = new Int32Array(nSteps);
  const varOf = new Int32Array(nSteps);
  const litLen = new Int32Array(nSteps);
  /** A short literal's bytes as a little-endian word, and the mask of its length. */
  const litWord = new Int32Array(nSteps);
  const litMask = new Int32Array(nSteps);
  /** A variable's stop byte in each of a word's four bytes (findStop). */
  const pattern = new Int32Array(nSteps);
  const pool: number[] = [];
  steps.forEach((st, k) => {
    if (st.kind === 'lit') {
      const len = st.bytes.length;
      ops[k] = len === 1 ? OP_LIT1 : len <= 4 ? OP_LITW : OP_LIT;
      arg[k] = len === 1 ? (st.bytes[0] as number) : pool.length;
      litLen[k] = len;
      for (let j = 0; j < len && j < 4; j += 1)
        litWord[k] = (litWord[k] as number) | ((st.bytes[j] as number) << (8 * j));
      litMask[k] = len >= 4 ? -1 : (1 << (8 * len)) - 1;
      pool.push(...st.bytes);
    } else if (st.kind === 'var') {
      ops[k] = st.index === iAddr || st.index === iUa ? OP_HASH : used(st.index) ? OP_VAR : OP_SKIP;
      arg[k] = st.stop;
      pattern[k] = Math.imul(st.stop, 0x01010101);
      varOf[k] = st.index;
    } else {
      ops[k] = st.kind === 'rest' ? OP_REST : OP_TIME;
      varOf[k] = st.index;
    }
  });
  const lits = Uint8Array.from(pool);
  // The address and user agent are hashed as they are scanned when they are ordinary variables.
  const scanned = (v: number): boolean => steps.some((st) => st.kind === 'var' && st.index === v);
  const addressHashed = iAddr >= 0 && scanned(iAddr);
  const uaHashed = iUa >= 0 && scanned(iUa);
  const n = variables.length;
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  const keys = new KeyTable();
  // The day and zone `$time_local` last named, as the little-endian words of its bytes 0 – 11
  // (dd/Mon/yyyy:) and 22 – 25 (the zone's digits; 20 – 21 are ' ' and its sign), and that day's
  // start in that zone, epoch ms (NaN before the first).
  let day0 = 0;
  let day4 = 0;
  let day8 = 0;
  let zoneSign = 0;
  let zone = 0;
  let dayMs = NaN;
  // A DataView over the bytes last read (one per piece of the file, not per line).
  let viewOf: Uint8Array | null = null;
  let dv: DataView = new DataView(new ArrayBuffer(0));

  return (b, s, builder, line) => {
    if (b !== viewOf) {
      viewOf = b;
      dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    }
    const d = dv;
    let p = s;
    let addrHash = 0;
    let uaHash = 0;
    for (let k = 0; k < nSteps; k += 1) {
      const op = ops[k] as number;
      if (op === OP_SKIP) {
        // To the stop byte; ASCII only (then every character is its byte, as the string reader
        // sees it), never past the line's end.
        const q = findStop(b, d, p, arg[k] as number, pattern[k] as number);
        if (q < 0) return -1;
        p = q;
      } else if (op === OP_LIT1) {
        if (b[p] !== arg[k]) return -1;
        p += 1;
      } else if (op === OP_HASH) {
        const q = scanHash(b, d, p, arg[k] as number, pattern[k] as number);
        if (q < 0) return -1;
        const v = varOf[k] as number;
        if (v === iUa) uaHash = scannedHash[0] as number;
        else addrHash = scannedHash[0] as number;
        from[v] = p;
        to[v] = q;
        p = q;
      } else if (op === OP_VAR) {
        const q = findStop(b, d, p, arg[k] as number, pattern[k] as number);
        if (q < 0) return -1;
        const v = varOf[k] as number;
        from[v] = p;
        to[v] = q;
        p = q;
      } else if (op === OP_LITW) {
        // One word compare where four bytes remain; else byte by byte (the file's last bytes).
        if (p + 4 <= b.length) {
          if ((d.getInt32(p, true) & (litMask[k] as number)) !== litWord[k]) return -1;
        } else {
          const at = arg[k] as number;
          const len = litLen[k] as number;
          for (let j = 0; j < len; j += 1) if (b[p + j] !== lits[at + j]) return -1;
        }
        p += litLen[k] as number;
      } else if (op === OP_LIT) {
        // A literal's bytes are the format's, so a match is ASCII when the format is.
        const at = arg[k] as number;
        const len = litLen[k] as number;
        for (let j = 0; j < len; j += 1) if (b[p + j] !== lits[at + j]) return -1;
        p += len;
      } else if (op === OP_TIME) {
        // The day (dd/Mon/yyyy:) and zone ( +zzzz) as last seen; the clock is read below.
        if (p + 26 > b.length) return -1;
        const same =
          dayMs === dayMs &&
          d.getInt32(p, true) === day0 &&
          d.getInt32(p + 4, true) === day4 &&
          d.getInt32(p + 8, true) === day8 &&
          d.getInt32(p + 22, true) === zone &&
          b[p + 21] === zoneSign &&
          b[p + 20] === 32;
        if (!same) {
          if (!timeShape(b, p)) return -1;
          const whole = parseTimeLocal(ascii(b, p, p + 26));
          if (Number.isNaN(whole)) return -1;
          day0 = d.getInt32(p, true);
          day4 = d.getInt32(p + 4, true);
          day8 = d.getInt32(p + 8, true);
          zone = d.getInt32(p + 22, true);
          zoneSign = b[p + 21] as number;
          const hms =
            ((b[p + 12] as number) - 48) * 36_000_000 +
            ((b[p + 13] as number) - 48) * 3_600_000 +
            ((b[p + 15] as number) - 48) * 600_000 +
            ((b[p + 16] as number) - 48) * 60_000 +
            ((b[p + 18] as number) - 48) * 10_000 +
            ((b[p + 19] as number) - 48) * 1000;
          dayMs = whole - hms;
        }
        const v = varOf[k] as number;
        from[v] = p;
        to[v] = p + 26;
        p += 26;
      } else {
        // `(.*)`: to the end of the line; no CR inside (a regular expression's `.` does not match
        // it), one may end the line.
        const v = varOf[k] as number;
        let q = p;
        for (;;) {
          const c = b[q] as number;
          if (c === 10) break;
          if (c === 13) {
            if (b[q + 1] === 10) break;
            return -1;
          }
          if (c > 127) return -1;
          q += 1;
        }
        from[v] = p;
        to[v] = q;
        p = q;
      }
    }
    // The line ends here: LF, or CR LF.
    let nl = p;
    if (b[p] !== 10) {
      if (b[p] !== 13 || b[p + 1] !== 10) return -1;
      nl = p + 1;
    }
    if (nl - s > MAX_LINE_BYTES) return -1;
    // The arrival, as nginx.ts computes it.
    let endMs: number;
    if (iMsec >= 0) {
      endMs = secondsMs(b, from[iMsec] as number, to[iMsec] as number);
    } else {
      // hh:mm:ss against the cached day (the rest of the 26 bytes matched it).
      const ts = from[iLocal] as number;
      const c11 = b[ts + 11] as number;
      const c14 = b[ts + 14] as number;
      const c17 = b[ts + 17] as number;
      const h = digit2(b, ts + 12);
      const mi = digit2(b, ts + 15);
      const sec = digit2(b, ts + 18);
      if (c11 !== 58 || c14 !== 58 || c17 !== 58 || !(h <= 23 && mi <= 59 && sec <= 60)) return -1;
      endMs = dayMs + h * 3_600_000 + mi * 60_000 + sec * 1000;
    }
    if (Number.isNaN(endMs)) return -1;
    let t = endMs;
    if (iRt >= 0) {
      const rs = from[iRt] as number;
      const re = to[iRt] as number;
      if (!(re === rs || (re === rs + 1 && b[rs] === 45))) {
        const rt = secondsMs(b, rs, re);
        if (Number.isNaN(rt)) return -1;
        t = endMs - rt;
      }
    }
    if (!(t >= MIN_EPOCH_MS) || t > MAX_EPOCH_MS) return -1;
    // $status: 0 when absent ('' or '-'), else three digits 100 – 599 (record.ts parseStatus).
    let status = 0;
    if (iStatus >= 0) {
      const ss = from[iStatus] as number;
      const se = to[iStatus] as number;
      if (se - ss === 3) {
        const d0 = (b[ss] as number) - 48;
        const d1 = (b[ss + 1] as number) - 48;
        const d2 = (b[ss + 2] as number) - 48;
        if (d0 < 0 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return -1;
        status = d0 * 100 + d1 * 10 + d2;
        if (status < 100 || status > 599) return -1;
      } else if (!(se === ss || (se === ss + 1 && b[ss] === 45))) return -1;
    }
    // The key: the address (written `-` when empty). An address written `-` is none, as
    // nginx.ts addressOf reads it: the empty key, and no user agent counted for it.
    const as = iAddr >= 0 ? (from[iAddr] as number) : 0;
    let ae = iAddr >= 0 ? (to[iAddr] as number) : 0;
    if (ae === as + 1 && b[as] === 45) ae = as;
    // A key held cut (builder.ts internKey) is found by its string: the table would hold it whole.
    if (ae - as > MAX_KEY_CHARS) return -1;
    if (iAddr >= 0 && (!addressHashed || ae === as)) addrHash = agentHashBytes(b, as, ae);
    let id = keys.find(b, as, ae, addrHash);
    if (id < 0) {
      id = builder.idOf(ae > as ? ascii(b, as, ae) : '-', line);
      keys.add(b, as, ae, addrHash, id);
    }
    // The user agent's hash, over its characters as builder.ts agentHash hashes them.
    let ua: number | null = null;
    if (iUa >= 0 && ae > as && to[iUa] !== from[iUa]) {
      if (!uaHashed) uaHash = agentHashBytes(b, from[iUa] as number, to[iUa] as number);
      ua = uaHash;
    }
    builder.fastArrival[0] = t;
    builder.addFast(id, status, ua, line);
    return nl;
  };
}

/** 0x80 in each byte of a word (as an int32). */
const HIGH_BITS = 0x80808080 | 0;
const LOW_BITS = 0x01010101;
const NEWLINES = 0x0a0a0a0a;

/**
 * The index of the first `stop` byte at or after b[p], or −1 when a newline or a byte over 127
 * comes first (or the bytes end). `pattern` is `stop` in each byte of a word; `dv` views `b`.
 *
 * Four bytes at a time while four remain: a word holds a byte equal to `stop` (or a newline) when
 * `(x − 0x01010101) & ~x & 0x80808080` is not 0 for x = word XOR pattern — a test that is never
 * false when such a byte is there, and whose first (lowest) flagged byte is always a true one; a
 * non-ASCII byte has its high bit set. A word so flagged is then read byte by byte, so the answer is
 * the byte loop's, only without a comparison per byte on the ordinary bytes in between.
 */
function findStop(b: Uint8Array, dv: DataView, p: number, stop: number, pattern: number): number {
  let q = p;
  const lastWord = b.length - 4;
  while (q <= lastWord) {
    const w = dv.getInt32(q, true);
    const x = w ^ pattern;
    const y = w ^ NEWLINES;
    if (((((x - LOW_BITS) | 0) & ~x) | (((y - LOW_BITS) | 0) & ~y) | w) & HIGH_BITS) break;
    q += 4;
  }
  for (; q < b.length; q += 1) {
    const c = b[q] as number;
    if (c === stop) return q;
    if (c === 10 || c > 127) return -1;
  }
  return -1;
}

/** Two ASCII digits at b[p, p + 2) as a number, or a value over 99 when they are not digits. */
function digit2(b: Uint8Array, p: number): number {
  const d0 = (b[p] as number) - 48;
  const d1 = (b[p + 1] as number) - 48;
  return d0 >= 0 && d0 <= 9 && d1 >= 0 && d1 <= 9 ? d0 * 10 + d1 : 1000;
}

/**
 * The hash of the bytes `scanHash` last scanned, as int32 (set by it: a call returns the stop's
 * index). A typed array's slot, not a variable: a number over 2^30 put in a variable of the module
 * would be a heap object made on every call.
 */
const scannedHash = new Int32Array(1);

/**
 * `findStop` that also hashes the bytes before the stop as builder.ts `agentHash` hashes their
 * characters (whole words from b[p], then the 1 – 3 bytes left as one word), in the same pass:
 * the hash goes to `scannedHash`. A flagged word always holds a true stop, newline or non-ASCII
 * byte (see findStop), so at most three bytes come before it in the tail.
 */
function scanHash(b: Uint8Array, dv: DataView, p: number, stop: number, pattern: number): number {
  let ha = AGENT_SEED_A;
  let hb = AGENT_SEED_B;
  let q = p;
  const lastWord = b.length - 4;
  while (q <= lastWord) {
    const w = dv.getInt32(q, true);
    const x = w ^ pattern;
    const y = w ^ NEWLINES;
    if (((((x - LOW_BITS) | 0) & ~x) | (((y - LOW_BITS) | 0) & ~y) | w) & HIGH_BITS) break;
    const t = ha;
    ha = hb;
    hb = agentMix(t, w);
    q += 4;
  }
  let tail = 0;
  for (let shift = 0; q < b.length; q += 1, shift += 8) {
    const c = b[q] as number;
    if (c === stop) {
      if (shift > 0) {
        const t = ha;
        ha = hb;
        hb = agentMix(t, tail);
      }
      scannedHash[0] = agentHashEnd(ha, hb, q - p);
      return q;
    }
    if (c === 10 || c > 127) return -1;
    tail |= c << shift;
  }
  return -1;
}

/** builder.ts agentHash over the ASCII characters b[s, e) (words from b[s], then the tail). */
function agentHashBytes(b: Uint8Array, s: number, e: number): number {
  let ha = AGENT_SEED_A;
  let hb = AGENT_SEED_B;
  let i = s;
  for (; i + 4 <= e; i += 4) {
    const w =
      (b[i] as number) |
      ((b[i + 1] as number) << 8) |
      ((b[i + 2] as number) << 16) |
      ((b[i + 3] as number) << 24);
    const t = ha;
    ha = hb;
    hb = agentMix(t, w);
  }
  if (i < e) {
    let w = 0;
    for (let j = 0; i + j < e; j += 1) w |= (b[i + j] as number) << (8 * j);
    const t = ha;
    ha = hb;
    hb = agentMix(t, w);
  }
  return agentHashEnd(ha, hb, e - s);
}
