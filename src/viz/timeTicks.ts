/**
 * Time axes over a whole run (milliseconds to a day): ticks on round durations and labels in the
 * unit of the tick step, plus the exact instants the timeline and the compare table print.
 */
import { format } from 'd3-format';
import { finite } from './format';

/** Tick steps, ms: round numbers of ms, s, min and h, so labels read "10 s", "5 min", "2 h". */
const STEPS_MS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000,
  300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000,
];

/** Ticks of a time axis and their labels. */
export interface TimeTicks {
  /** Tick times within the domain, ascending (ms). */
  ticks: number[];
  /** The step between ticks (ms). */
  stepMs: number;
  /** Label of a tick time in the step's unit: "250 ms", "1.5 s", "10 s", "5 min", "2 h". */
  format: (ms: number) => string;
}

const upTo3Decimals = format(',.3~f');
const upTo1Decimal = format(',.1~f');

/**
 * Round-duration ticks over [d0, d1], at most `count` of them (at least 2 are aimed for). A
 * degenerate or non-finite domain gives the single tick d0.
 */
export function timeTicks(d0: number, d1: number, count = 6): TimeTicks {
  const a = finite(d0);
  const b = finite(d1, a);
  const span = b - a;
  const n = Math.max(1, Math.floor(finite(count, 6)));
  let stepMs = STEPS_MS[STEPS_MS.length - 1] as number;
  for (const s of STEPS_MS) {
    if (span / s <= n) {
      stepMs = s;
      break;
    }
  }
  // A span beyond the largest step: whole multiples of 12 h.
  while (span / stepMs > n) stepMs *= 2;
  const ticks: number[] = [];
  if (!(span > 0)) ticks.push(a);
  else {
    for (let k = Math.ceil(a / stepMs); k * stepMs <= b; k += 1) ticks.push(k * stepMs);
  }
  return { ticks, stepMs, format: tickFormat(stepMs, b) };
}

/** Labels in the unit of the step; below 1 s, milliseconds only while the axis stays under 1 s. */
function tickFormat(stepMs: number, maxMs: number): (ms: number) => string {
  if (stepMs >= 3_600_000) return (ms) => `${upTo1Decimal(ms / 3_600_000)} h`;
  if (stepMs >= 60_000) return (ms) => `${upTo1Decimal(ms / 60_000)} min`;
  if (stepMs >= 1000 || maxMs >= 1000) return (ms) => `${upTo3Decimals(ms / 1000)} s`;
  return (ms) => `${upTo3Decimals(ms)} ms`;
}

/** A virtual time in seconds with at most three decimals: "2.35 s", "10 s", "0.001 s". */
export function formatSeconds(ms: number): string {
  const v = Math.round(finite(ms));
  return `${upTo3Decimals(v / 1000)} s`.replace(/^[-−]0 s$/, '0 s');
}

const exactMs = format(',.3f');

/** A virtual instant to the millisecond, for sentences that name one request: "10.000 s". */
export function formatInstant(ms: number): string {
  return `${exactMs(Math.round(finite(ms)) / 1000)} s`;
}
