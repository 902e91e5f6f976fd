/**
 * Real simulation results for the timeline, chart and compare tests: small scenarios through the
 * real `simulate()`, so every number a component shows is checked against what the engine decided.
 */
import { laneNames } from '../../src/config/laneNames';
import { defaultScenario, simulate } from '../../src/sim';
import type { Scenario, SimLimiter, SimResult, TrafficSource } from '../../src/sim';

/** One client, no retries, monotonic clock, the given sources. */
export function run(
  limiters: readonly SimLimiter[],
  sources: TrafficSource[],
  untilMs: number,
  overrides: Partial<Scenario> = {},
): SimResult {
  // Lanes named as the page names them (config's laneNames): by their system unless named.
  const entries = limiters.map((l) => ('kind' in l ? { config: l } : l));
  const names = laneNames(entries);
  const named = entries.map((e, i) => ({ name: names[i] as string, config: e.config }));
  return simulate(named, { ...defaultScenario(), sources, ...overrides }, untilMs);
}

/** Rows of a lane by outcome code, counted straight from the columns. */
export function countOutcomes(result: SimResult, lane: number): [number, number, number] {
  const c = (result.lanes[lane] as NonNullable<SimResult['lanes'][number]>).columns;
  const out: [number, number, number] = [0, 0, 0];
  for (let r = 0; r < c.rows; r += 1) out[c.outcome[r] as 0 | 1 | 2] += 1;
  return out;
}

/** The drawing must never carry NaN or Infinity into an attribute or a text. */
export function expectFinite(html: string): void {
  if (/NaN|Infinity/.test(html))
    throw new Error(
      `non-finite value in the DOM: ${html.match(/.{0,60}(NaN|Infinity).{0,60}/)?.[0] ?? ''}`,
    );
}

/**
 * The request-flow strip's counts at `nowMs`, read the long way: every row of the lane, each in
 * the phase its times put it in (travel, then linger, per leg), with no index and no cut.
 */
export function stripCountsFromColumns(
  result: SimResult,
  lane: number,
  nowMs: number,
  travelMs = 400,
  lingerMs = 300,
): { passed: number; waiting: number; rejected: number; incoming: number } {
  const c = (result.lanes[lane] as NonNullable<SimResult['lanes'][number]>).columns;
  const counts = { passed: 0, waiting: 0, rejected: 0, incoming: 0 };
  for (let r = 0; r < c.rows; r += 1) {
    const arrival = c.arrivalMs[r] as number;
    const outcome = c.outcome[r] as number;
    const release = outcome === 1 ? arrival + (c.waitMs[r] as number) : arrival;
    if (arrival > nowMs) {
      if (arrival <= nowMs + travelMs) counts.incoming += 1;
    } else if (outcome === 2) {
      if (nowMs - arrival < travelMs + lingerMs) counts.rejected += 1;
    } else if (release > nowMs) counts.waiting += 1;
    else if (nowMs - release < travelMs + lingerMs) counts.passed += 1;
  }
  return counts;
}
