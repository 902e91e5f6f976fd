/**
 * Text forms of the values a link carries: durations with units, whole and decimal numbers, and a
 * safe rendering of untrusted text for error messages. Parsers return null for anything that is not
 * exactly the expected form, so `1e3`, `0x10`, `NaN`, `Infinity` or ` 5` never become numbers.
 */
import { quoteText } from '../core';

/** Units a duration may be written in, largest first, with their size in ms. */
const UNITS: ReadonlyArray<readonly [unit: string, ms: number]> = [
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];
const UNIT_MS: ReadonlyMap<string, number> = new Map([...UNITS, ['ms', 1]]);

/**
 * A whole number of ms as short text: the largest unit (h, m, s) that holds it with at most one
 * decimal, else ms. 0 → `0`, 100 → `100ms`, 1000 → `1s`, 2500 → `2.5s`, 1234 → `1234ms`,
 * 90000 → `1.5m`, −30000 → `-30s`. `parseDuration` reads every output back exactly.
 */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  for (const [unit, size] of UNITS) {
    // (abs·10) mod size = 0 ⇔ abs is a multiple of size/10: one decimal at most, and the division
    // below is then exact to the shortest decimal text.
    if (abs >= size && (abs * 10) % size === 0) return `${sign}${abs / size}${unit}`;
  }
  return `${sign}${abs}ms`;
}

const DURATION = /^(-?)(\d{1,15})(?:\.(\d{1,9}))?(ms|s|m|h)?$/;

/**
 * Reads a duration: a number with an optional unit (`ms`, `s`, `m`, `h`; none means ms), e.g.
 * `250ms`, `1.5s`, `2m`, `-30s`, `0`. Null unless it is a whole number of ms. Decimals are read
 * with integer arithmetic, so `1.1s` is exactly 1100.
 */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text);
  if (m === null) return null;
  const [, sign, whole, frac, unit] = m;
  const size = UNIT_MS.get(unit ?? 'ms') ?? 1;
  let ms = Number(whole) * size;
  if (frac !== undefined) {
    const scale = 10 ** frac.length;
    const fracMs = Number(frac) * size;
    if (fracMs % scale !== 0) return null;
    ms += fracMs / scale;
  }
  if (!Number.isSafeInteger(ms)) return null;
  return sign === '-' ? -ms || 0 : ms;
}

const WHOLE = /^-?\d{1,16}$/;

/** Reads a whole number written in plain decimal digits (`12`, `-4`); null otherwise. */
export function parseWhole(text: string): number | null {
  return WHOLE.test(text) ? Number(text) || 0 : null;
}

const DECIMAL = /^-?\d{1,16}(?:\.\d{1,20})?$/;

/**
 * Reads a decimal number in plain notation (`12`, `0.5`, `0.016666666666666666`); null otherwise.
 * Every number `String(n)` writes without an exponent reads back as the same number.
 */
export function parseDecimal(text: string): number | null {
  return DECIMAL.test(text) ? Number(text) || 0 : null;
}

/** Writes a number as `parseDecimal` reads it (String(n) has no exponent for 1e-6 ≤ |n| < 1e21). */
export function formatDecimal(n: number): string {
  return String(n);
}

/** Untrusted text for a message: the project's one quoting function (src/core/quote.ts). */
export { quoteText };

/** Any value for a message: text quoted, numbers and booleans as written, others by their type. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return quoteText(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) {
    return String(value);
  }
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}
