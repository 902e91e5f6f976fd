/**
 * Number formatting and coordinate hygiene shared by the views. Everything that reaches the DOM goes
 * through here, so no NaN, Infinity or 17-digit float is ever drawn.
 */
import { format } from 'd3-format';
import { plural as pluralCount } from '../core';
import type { AlgorithmKind } from '../core';

/** `x` when it is a finite number, else `fallback`. */
export function finite(x: number, fallback = 0): number {
  return Number.isFinite(x) ? x : fallback;
}

/** Magnitudes beyond this are drawn as this: no arithmetic on them can overflow to Infinity. */
const HUGE = 1e15;

/** `x` finite and within ±1e15, for formatting. */
function bounded(x: number): number {
  return clamp(finite(x), -HUGE, HUGE);
}

/** d3-format writes a true minus sign (U+2212); a value that rounds to zero must not keep it. */
function noNegativeZero(s: string): string {
  return /^[-−]0$/.test(s) ? '0' : s;
}

/** `x` limited to [lo, hi] (NaN becomes lo). */
export function clamp(x: number, lo: number, hi: number): number {
  if (!(x >= lo)) return lo;
  return x > hi ? hi : x;
}

/**
 * A coordinate rounded to 0.1 px and kept within ±100,000 px: stable snapshots, short attributes,
 * and no absurd values when a time is far off-screen.
 */
export function px(x: number): number {
  const r = Math.round(clamp(finite(x), -1e5, 1e5) * 10) / 10;
  return r === 0 ? 0 : r; // no "-0" in the DOM
}

const intFormat = format(',d');
const oneDecimal = format(',.1~f');
const twoDecimals = format(',.2~f');
const threeSignificant = format(',.3~r');

/** A whole count: "1,234". */
export function formatCount(n: number): string {
  return noNegativeZero(intFormat(Math.round(bounded(n))));
}

/** A fractional count with at most one decimal: "7.4", "10". */
export function formatTokens(n: number): string {
  const v = bounded(n);
  // Values just below a whole number must not print as that whole number ("10" tokens while 9.96).
  return noNegativeZero(oneDecimal(Math.floor(v * 10) / 10));
}

/** A number with at most two decimals: "49.5", "49.75". */
export function formatDecimal(n: number): string {
  return noNegativeZero(twoDecimals(bounded(n)));
}

/**
 * A duration with a unit that fits: "0 ms", "120 ms", "1.25 s", "45 s", "1.5 min", "2 h".
 * Three significant digits at most; negative durations keep their sign.
 */
export function formatDuration(ms: number): string {
  const v = bounded(ms);
  const a = Math.abs(v);
  const sign = v < 0 ? '−' : '';
  if (a < 1000) return `${sign}${threeSignificant(Math.round(a))} ms`;
  if (a < 60_000) return `${sign}${threeSignificant(a / 1000)} s`;
  if (a < 3_600_000) return `${sign}${threeSignificant(a / 60_000)} min`;
  return `${sign}${threeSignificant(a / 3_600_000)} h`;
}

/** A time relative to now: "now", "+120 ms", "−1.5 s". */
export function formatOffset(ms: number): string {
  const v = Math.round(bounded(ms));
  if (v === 0) return 'now';
  return v > 0 ? `+${formatDuration(v)}` : formatDuration(v);
}

/** Bytes: "96 B", "1.5 kB", "2.3 MB". */
export function formatBytes(bytes: number): string {
  const b = Math.max(0, bounded(bytes));
  if (b < 1000) return `${intFormat(Math.round(b))} B`;
  if (b < 1e6) return `${threeSignificant(b / 1000)} kB`;
  return `${threeSignificant(b / 1e6)} MB`;
}

/**
 * Approximate width of a text in the views' small type (11 px Inter), px: enough to lay labels out
 * side by side without measuring the DOM (the e2e test tests/e2e/overlaps.spec.ts checks the real
 * boxes). Slightly generous, so an estimate errs towards room.
 */
export function textWidth(s: string, fontPx = 11): number {
  return [...s].length * 6.1 * (fontPx / 11);
}

/** "1 request", "3 requests": core's one pluralisation rule, with the views' number format. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return pluralCount(n, one, many, formatCount);
}

/** The algorithms as people call them (the UI's algorithm list takes its names from here). */
export const ALGORITHM_NAMES: Readonly<Record<AlgorithmKind, string>> = {
  'token-bucket': 'Token bucket',
  'leaky-bucket': 'Leaky bucket',
  'fixed-window': 'Fixed window',
  'sliding-log': 'Sliding log',
  'sliding-window-counter': 'Sliding-window counter',
  gcra: 'GCRA',
  'anchored-window': 'Anchored window',
  'calendar-windows': 'Calendar windows',
};
