/**
 * Real simulation results for the timeline, chart and compare tests: small scenarios through the
 * real `simulate()`, so every number a component shows is checked against what the engine decided.
 */
import { defaultScenario, simulate } from '../../src/sim';
import type { Scenario, SimLimiter, SimResult, TrafficSource } from '../../src/sim';

/** One client, no retries, monotonic clock, the given sources. */
export function run(
  limiters: readonly SimLimiter[],
  sources: TrafficSource[],
  untilMs: number,
  overrides: Partial<Scenario> = {},
): SimResult {
  return simulate(limiters, { ...defaultScenario(), sources, ...overrides }, untilMs);
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
