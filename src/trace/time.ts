/**
 * Timestamps as access logs write them, to ms since the epoch (UTC). Each returns NaN for text it
 * cannot read, so the caller can name the line. Date.UTC only: no wall clock is read.
 */

const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

function int(s: string, from: number, to: number): number {
  let v = 0;
  for (let i = from; i < to; i += 1) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    v = v * 10 + d;
  }
  return from < to ? v : NaN;
}

function validYmdHms(y: number, mo: number, d: number, h: number, mi: number, s: number): boolean {
  return mo >= 0 && mo <= 11 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 60 && y >= 0;
}

/**
 * nginx `$time_local`, e.g. `10/Oct/2000:13:55:36 -0700` (common log format, whole seconds;
 * ngx_http_log_module.c writes it with ngx_cached_http_log_time, "%02d/%s/%d:%02d:%02d:%02d %c%02i%02i").
 */
export function parseTimeLocal(s: string): number {
  if (s.length !== 26 || s.charCodeAt(2) !== 47 || s.charCodeAt(6) !== 47 || s[20] !== ' ') {
    return NaN;
  }
  const d = int(s, 0, 2);
  const mo = MONTHS[s.slice(3, 6)];
  const y = int(s, 7, 11);
  const h = int(s, 12, 14);
  const mi = int(s, 15, 17);
  const sec = int(s, 18, 20);
  const sign = s[21] === '-' ? -1 : s[21] === '+' ? 1 : 0;
  const oh = int(s, 22, 24);
  const om = int(s, 24, 26);
  if (mo === undefined || sign === 0 || !validYmdHms(y, mo, d, h, mi, sec)) return NaN;
  if (Number.isNaN(oh + om)) return NaN;
  return Date.UTC(y, mo, d, h, mi, sec) - sign * (oh * 60 + om) * 60_000;
}

/** ISO 8601 parse result: ms, and how many fraction digits the text had. */
export interface IsoTime {
  ms: number;
  fractionDigits: number;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * `2000-10-10T13:55:36-07:00` (nginx `$time_iso8601`), `2018-07-02T22:22:48.364000Z` (ALB),
 * `2026-11-30 14:00:00.123` (no zone: read as UTC). Fractions are kept to the millisecond
 * (sub-ms digits are floored).
 */
export function parseIso(s: string): IsoTime | null {
  const m = ISO.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]) - 1;
  const d = Number(m[3]);
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const sec = Number(m[6]);
  if (!validYmdHms(y, mo, d, h, mi, sec)) return null;
  const frac = m[7] ?? '';
  let ms = Date.UTC(y, mo, d, h, mi, sec);
  if (frac !== '') ms += Math.floor(Number((frac + '00').slice(0, 3)));
  const zone = m[8];
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
  }
  return { ms, fractionDigits: frac.length };
}

/** A numeric epoch and the unit its size implies. */
export interface EpochTime {
  ms: number;
  /** The finest step, ms: 1000 for whole seconds, 1 for ms, fractions of seconds as written. */
  resolutionMs: number;
}

const NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * A number of seconds, milliseconds, microseconds or nanoseconds since the epoch, told apart by
 * size (seconds below 1e11, i.e. before the year 5138; ms below 1e14; µs below 1e17; else ns).
 * Negative numbers are returned as negative ms, for the caller to refuse as before 1970.
 */
export function parseEpoch(s: string): EpochTime | null {
  if (!NUMBER.test(s)) return null;
  const v = Number(s);
  const abs = Math.abs(v);
  const dot = s.indexOf('.');
  const fracDigits = dot < 0 ? 0 : s.length - dot - 1;
  if (abs < 1e11) {
    return { ms: Math.round(v * 1000), resolutionMs: Math.max(1, 1000 / 10 ** fracDigits) };
  }
  if (abs < 1e14) return { ms: Math.round(v), resolutionMs: 1 };
  if (abs < 1e17) return { ms: Math.floor(v / 1000), resolutionMs: 1 };
  return { ms: Math.floor(v / 1e6), resolutionMs: 1 };
}

/** Any of the above: ISO text or an epoch number. */
export function parseAnyTime(s: string): EpochTime | null {
  const e = parseEpoch(s);
  if (e) return e;
  const iso = parseIso(s);
  if (iso) {
    return { ms: iso.ms, resolutionMs: Math.max(1, 1000 / 10 ** iso.fractionDigits) };
  }
  const local = parseTimeLocal(s);
  if (!Number.isNaN(local)) return { ms: local, resolutionMs: 1000 };
  return null;
}
