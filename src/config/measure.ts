/**
 * Helpers for measuring an experiment's answer from a simulation result: reading lanes (passes in
 * an interval, per-source counts, waits, backend arrivals) and formatting numbers for sentences.
 * Formatting is deterministic (no locale): the same run gives the same text everywhere.
 */
import { plural as pluralCount, quotaOf, rejectStatus } from '../core';
import type { AlgorithmConfig } from '../core';
import { OUTCOME_ADMIT, OUTCOME_DELAY, OUTCOME_REJECT, rowRange, simulate } from '../sim';
import type { LaneResult, Scenario, SimLimiter, SimResult } from '../sim';

/** One measured number, for people ("fixed window, 2 s around the boundary" → "20 passed"). */
export interface AnswerFact {
  label: string;
  value: string;
}

/** The measured answer to an experiment's question. */
export interface Answer {
  /** One or two sentences built from the numbers. */
  headline: string;
  facts: AnswerFact[];
}

// ---------------------------------------------------------------------------------------------
// Formatting (deterministic: no locale)
// ---------------------------------------------------------------------------------------------

/** "1,234". */
export function n(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Up to `digits` decimals, trailing zeros dropped: 2 → "2", 1.5 → "1.5", 9.0909 → "9.09". */
export function dec(value: number, digits = 2): string {
  if (!Number.isFinite(value)) return '–';
  return String(Number(value.toFixed(digits)));
}

/** A duration: "850 ms", "3 s", "9.09 s". */
export function secs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  return `${dec(ms / 1000)} s`;
}

/** A share of a whole: "8%", "<1%" for a small non-zero part, "0%" of nothing. */
export function pct(part: number, whole: number): string {
  if (whole <= 0 || part <= 0) return '0%';
  const p = (100 * part) / whole;
  return p < 1 ? '<1%' : `${Math.round(p)}%`;
}

/** A fraction 0 – 1 as a percentage: "55%". */
export function share(fraction: number): string {
  if (!Number.isFinite(fraction)) return '–';
  return `${Math.round(100 * fraction)}%`;
}

/** "6% to 55%", or "100%" when both ends are the same. */
export function shareRange(min: number, max: number): string {
  return share(min) === share(max) ? share(min) : `${share(min)} to ${share(max)}`;
}

/** "name: " before a lane's part of a sentence, when there is more than one lane to tell apart. */
export function who(result: SimResult, lane: LaneResult): string {
  return result.lanes.length > 1 ? `${lane.name}: ` : '';
}

/** "2×", "1.5×". */
export function times(ratio: number): string {
  return `${dec(ratio)}×`;
}

/** "a, b and c". */
export function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1) as string}`;
}

/** "1 request", "2 requests"; `many` for irregular plurals ("entries"). Core's one rule. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return pluralCount(count, one, many, n);
}

// ---------------------------------------------------------------------------------------------
// Reading a run
// ---------------------------------------------------------------------------------------------

export function passed(outcome: number): boolean {
  return outcome === OUTCOME_ADMIT || outcome === OUTCOME_DELAY;
}

/** Attempts that passed (admitted or delayed) with fromMs ≤ arrival < toMs. */
export function passedIn(lane: LaneResult, fromMs: number, toMs: number): number {
  const [start, end] = rowRange(lane.columns, fromMs, toMs);
  let count = 0;
  for (let r = start; r < end; r += 1) if (passed(lane.columns.outcome[r] as number)) count += 1;
  return count;
}

/** First attempts of the sources for which `pick(sourceIndex)` holds: offered and passed. */
export function firstAttemptsOf(
  result: SimResult,
  lane: LaneResult,
  pick: (source: number) => boolean,
): { offered: number; passed: number } {
  const c = lane.columns;
  let offered = 0;
  let ok = 0;
  for (let r = 0; r < c.rows; r += 1) {
    if (c.attempt[r] !== 1) continue;
    if (!pick(result.arrivals.source[c.origin[r] as number] as number)) continue;
    offered += 1;
    if (passed(c.outcome[r] as number)) ok += 1;
  }
  return { offered, passed: ok };
}

/** Arrival times of the rejected attempts, ascending. */
export function rejectTimes(lane: LaneResult): number[] {
  const c = lane.columns;
  const out: number[] = [];
  for (let r = 0; r < c.rows; r += 1) {
    if (c.outcome[r] === OUTCOME_REJECT) out.push(c.arrivalMs[r] as number);
  }
  return out;
}

/** When each passed request reached the backend (arrival + delay), ascending. */
export function backendTimes(lane: LaneResult): Float64Array {
  const c = lane.columns;
  const out: number[] = [];
  for (let r = 0; r < c.rows; r += 1) {
    const o = c.outcome[r] as number;
    if (o === OUTCOME_ADMIT) out.push(c.arrivalMs[r] as number);
    else if (o === OUTCOME_DELAY) out.push((c.arrivalMs[r] as number) + (c.waitMs[r] as number));
  }
  return Float64Array.from(out).sort();
}

/** The status a rejected client gets from this limiter (429, or nginx's 503). */
export function status(lane: LaneResult): number {
  return rejectStatus(lane.config);
}

/** The sustained rate a limiter allows, requests per second (its quota over its refill time). */
export function ratePerSec(config: AlgorithmConfig): number {
  const q = quotaOf(config);
  // A quota that is never restored (an anchored window of 0: points never expire) has no rate.
  return (q.limit * 1000) / (q.windowMs || Infinity);
}

/** The limiters of a run, as `simulate` takes them (names kept). */
export function limitersOf(result: SimResult): SimLimiter[] {
  return result.lanes.map((l) => ({ name: l.name, config: l.config }));
}

/** The same limiters and length, another scenario. */
export function rerun(result: SimResult, scenario: Scenario): SimResult {
  return simulate(limitersOf(result), scenario, result.untilMs);
}

/** Counts of one lane for the facts list. */
export function outcomeFacts(lane: LaneResult): AnswerFact[] {
  const t = lane.metrics.total;
  return [
    {
      label: `${lane.name}: passed`,
      value: `${n(t.admitted + t.delayed)} of ${n(t.offered)}`,
    },
    {
      label: `${lane.name}: rejected (${status(lane)})`,
      value: `${n(t.rejected)} (${pct(t.rejected, t.offered)})`,
    },
  ];
}
