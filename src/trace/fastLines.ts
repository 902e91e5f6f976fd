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
import { MAX_KEY_CHARS } from './builder';
import type { TraceBuilder } from './builder';
import type { NginxFormat } from './nginx';
import { parseTimeLocal } from './time';
import type { KeySpec } from './types';
import { MAX_EPOCH_MS, MIN_EPOCH_MS } from './types';

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

/** Open-addressing table from key bytes to key id, so a known key costs no string. */
class KeyTable {
  private slots = new Int32Array(1 << 12).fill(-1);
  private hashes = new Int32Array(1 << 12);
  private starts: number[] = [];
  private lengths: number[] = [];
  private ids: number[] = [];
  private pool = new Uint8Array(1 << 16);
  private used = 0;

  find(b: Uint8Array, s: number, e: number, h: number): number {
    const mask = this.slots.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const slot = this.slots[at] as number;
      if (slot < 0) return -1;
      if (this.hashes[at] !== h || this.lengths[slot] !== e - s) continue;
      const p = this.starts[slot] as number;
      let same = true;
      for (let i = s; i < e && same; i += 1) same = this.pool[p + i - s] === b[i];
      if (same) return this.ids[slot] as number;
    }
  }

  add(b: Uint8Array, s: number, e: number, h: number, id: number): void {
    if ((this.ids.length + 1) * 2 > this.slots.length) this.rehash();
    const len = e - s;
    if (this.used + len > this.pool.length) {
      const bigger = new Uint8Array(Math.max(this.pool.length * 2, this.used + len));
      bigger.set(this.pool.subarray(0, this.used));
      this.pool = bigger;
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
 * Reads line b[s, e) (no newline; a trailing CR already dropped) into a builder; false when the
 * line must go the string way.
 */
export type FastLineReader = (
  b: Uint8Array,
  s: number,
  e: number,
  builder: TraceBuilder,
  line: number,
) => boolean;

/**
 * A byte reader for `format` keyed by `keySpec`, or null when only the string reader can read it
 * (a cost field, a key other than the client address, `$time_iso8601`, a variable right after
 * another).
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
  const n = variables.length;
  const from = new Int32Array(n);
  const to = new Int32Array(n);
  const keys = new KeyTable();
  // The last $time_local seen and its value: logs repeat a second on many lines.
  const lastTime = new Uint8Array(26);
  let lastTimeMs = NaN;

  return (b, s, e, builder, line) => {
    // ASCII only (checked as the steps read the bytes): then every character is its byte, as the
    // string reader sees it.
    let p = s;
    for (const step of steps) {
      switch (step.kind) {
        case 'lit': {
          const lit = step.bytes;
          if (p + lit.length > e) return false;
          // A literal's bytes are the format's, so a match is ASCII when the format is.
          for (let j = 0; j < lit.length; j += 1) if (b[p + j] !== lit[j]) return false;
          p += lit.length;
          break;
        }
        case 'var': {
          const stop = step.stop;
          let q = p;
          while (q < e) {
            const c = b[q] as number;
            if (c === stop) break;
            if (c > 127) return false;
            q += 1;
          }
          if (q === e) return false;
          from[step.index] = p;
          to[step.index] = q;
          p = q;
          break;
        }
        case 'rest':
          // `(.*)`: no CR inside (a regular expression's `.` does not match it).
          for (let q = p; q < e; q += 1) if (b[q] === 13 || (b[q] as number) > 127) return false;
          from[step.index] = p;
          to[step.index] = e;
          p = e;
          break;
        case 'time': {
          if (p + 26 > e) return false;
          // \d{2}/[A-Za-z]{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}
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
          from[step.index] = p;
          to[step.index] = p + 26;
          p += 26;
          break;
        }
      }
    }
    if (p !== e) return false;
    // The arrival, as nginx.ts computes it.
    let endMs: number;
    if (iMsec >= 0) {
      endMs = secondsMs(b, from[iMsec] as number, to[iMsec] as number);
    } else {
      const ts = from[iLocal] as number;
      let same = lastTimeMs === lastTimeMs;
      for (let j = 0; j < 26 && same; j += 1) same = lastTime[j] === b[ts + j];
      if (!same) {
        lastTime.set(b.subarray(ts, ts + 26));
        lastTimeMs = parseTimeLocal(ascii(b, ts, ts + 26));
      }
      endMs = lastTimeMs;
    }
    if (Number.isNaN(endMs)) return false;
    let t = endMs;
    if (iRt >= 0) {
      const rs = from[iRt] as number;
      const re = to[iRt] as number;
      if (!(re === rs || (re === rs + 1 && b[rs] === 45))) {
        const rt = secondsMs(b, rs, re);
        if (Number.isNaN(rt)) return false;
        t = endMs - rt;
      }
    }
    if (!(t >= MIN_EPOCH_MS) || t > MAX_EPOCH_MS) return false;
    // $status: 0 when absent ('' or '-'), else three digits 100 – 599 (record.ts parseStatus).
    let status = 0;
    if (iStatus >= 0) {
      const ss = from[iStatus] as number;
      const se = to[iStatus] as number;
      if (se - ss === 3) {
        const d0 = (b[ss] as number) - 48;
        const d1 = (b[ss + 1] as number) - 48;
        const d2 = (b[ss + 2] as number) - 48;
        if (d0 < 0 || d0 > 9 || d1 < 0 || d1 > 9 || d2 < 0 || d2 > 9) return false;
        status = d0 * 100 + d1 * 10 + d2;
        if (status < 100 || status > 599) return false;
      } else if (!(se === ss || (se === ss + 1 && b[ss] === 45))) return false;
    }
    // The key: the address (written `-` when empty).
    const as = iAddr >= 0 ? (from[iAddr] as number) : 0;
    const ae = iAddr >= 0 ? (to[iAddr] as number) : 0;
    // A key held cut (builder.ts internKey) is found by its string: the table would hold it whole.
    if (ae - as > MAX_KEY_CHARS) return false;
    let h = 0x811c9dc5;
    for (let i = as; i < ae; i += 1) h = Math.imul(h ^ (b[i] as number), 0x01000193);
    let id = keys.find(b, as, ae, h);
    if (id < 0) {
      id = builder.idOf(ae > as ? ascii(b, as, ae) : '-', line);
      keys.add(b, as, ae, h, id);
    }
    // The user agent's hash, over its characters as builder.ts fnv1a hashes them.
    let ua: number | null = null;
    if (iUa >= 0 && ae > as && to[iUa] !== from[iUa]) {
      let h = 0x811c9dc5;
      for (let i = from[iUa] as number; i < (to[iUa] as number); i += 1) {
        h ^= b[i] as number;
        h = Math.imul(h, 0x01000193);
      }
      ua = h >>> 0;
    }
    builder.addFast(t, id, status, ua, line);
    return true;
  };
}
