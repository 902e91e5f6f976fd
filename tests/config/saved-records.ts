/**
 * Saved records (the localStorage text) for the tests and benches: the largest one the page
 * itself writes (a config at every cap), which sets the limits of src/config/saved.ts, and hostile
 * ones just inside and just outside those limits.
 */
import { defaultConfig } from '../../src/config';
import { SAVED_LIMITS } from '../../src/config/saved';
import type { PlaygroundConfig } from '../../src/config';
import { deriveConfig, systemById } from '../../src/systems';
import {
  MAX_CLIENTS,
  MAX_CLOCK_JUMPS,
  MAX_INSTANCES,
  MAX_MANUAL_TIMES,
  MAX_OUTAGES,
  MAX_SCALE_EVENTS,
  MAX_SOURCES,
  MAX_UNTIL_MS,
  MAX_WEIGHT,
} from '../../src/sim';

const traefik = systemById('traefik')!;

/** A record as `save` (src/ui/share/session.ts) writes it. */
export const record = (config: unknown, experiment: unknown = null): string =>
  JSON.stringify({ config, experiment });

/**
 * The largest config the page can hold and so save: every list at its cap with the widest values
 * (32 manual sources of 10,000 times of 24 h, each pinned to client 9,999; six limiters with
 * 40-character names; 32 clock jumps; a fleet with 64 weights, 32 scale events and 16 outages),
 * saved with the longest experiment id and variant the library could have (80 characters each).
 */
export function largestConfig(): PlaygroundConfig {
  const base = defaultConfig();
  const name = (i: number) => `limiter ${i} `.padEnd(40, 'x');
  return {
    ...base,
    limiters: Array.from({ length: 6 }, (_, i) => ({
      name: name(i),
      // Traefik: the token bucket with the most fields (its maxDelay to the ns and its ttl, which it
      // computes itself; Envoy has no max_delay).
      config: deriveConfig(traefik, {
        kind: 'token-bucket',
        maxTokens: 1_000_000,
        tokensPerFill: 1_000_000,
        fillIntervalMs: MAX_UNTIL_MS,
        refill: 'continuous',
      }),
      system: 'traefik',
      standardHeaders: true,
    })),
    scenario: {
      ...base.scenario,
      seed: 0xffff_ffff,
      sources: Array.from({ length: MAX_SOURCES }, () => ({
        kind: 'manual' as const,
        timesMs: Array.from({ length: MAX_MANUAL_TIMES }, (_, i) => MAX_UNTIL_MS - i),
        client: MAX_CLIENTS - 1,
      })),
      clients: { ...base.scenario.clients, count: MAX_CLIENTS },
      clock: {
        mode: 'wall',
        jumps: Array.from({ length: MAX_CLOCK_JUMPS }, (_, i) => ({
          atMs: MAX_UNTIL_MS - i,
          byMs: -MAX_UNTIL_MS,
        })),
      },
      deployment: {
        instances: MAX_INSTANCES,
        balancer: 'weighted',
        state: 'layered',
        roundTripMs: 3_600_000,
        fleet: {
          weights: Array.from({ length: MAX_INSTANCES }, () => MAX_WEIGHT),
          service: { kind: 'exponential', meanMs: 3_600_000 },
          scale: Array.from({ length: MAX_SCALE_EVENTS }, (_, i) => ({
            atMs: MAX_UNTIL_MS - i,
            instances: MAX_INSTANCES,
          })),
          autoscale: {
            perReplicaRps: 0.123456789012345,
            everyMs: 3_600_000,
            min: 1,
            max: MAX_INSTANCES,
            on: 'offered',
          },
          store: {
            rttMs: 3_600_000,
            jitterMs: 3_600_000,
            timeoutMs: 3_600_000,
            outages: Array.from({ length: MAX_OUTAGES }, (_, i) => ({
              fromMs: MAX_UNTIL_MS - 1000 - i,
              toMs: MAX_UNTIL_MS - i,
            })),
            onDown: 'local',
            downStatus: 500,
            syncMs: 3_600_000,
            cacheOverLimit: true,
            kong: 'cluster',
          },
        },
      },
      metrics: { windowMs: MAX_UNTIL_MS, binMs: MAX_UNTIL_MS },
    },
    view: {
      untilMs: MAX_UNTIL_MS,
      tMs: MAX_UNTIL_MS,
      paused: true,
      speed: 0.123456789012345,
      selected: { lane: 5, row: 3_999_999 },
      mode: 'compare',
    },
  };
}

/** The largest record the page writes: `largestConfig` with an 80-character experiment id. */
export function largestRecord(): string {
  return record(largestConfig(), { id: 'x'.repeat(80), variant: 'y'.repeat(80) });
}

/**
 * Hostile saved records, each at the edge of one limit (inside unless named "over"): what the
 * decode bench opens in Chromium and the tests open in jsdom.
 */
export function hostileSavedRecords(): Record<string, string> {
  const base = defaultConfig();
  const withSources = (sources: unknown[]): string =>
    record({ ...base, scenario: { ...base.scenario, sources } });
  const L = SAVED_LIMITS;
  // 32 lists of `per` items, as many as the values limit allows.
  const per = Math.floor((L.values - 100) / MAX_SOURCES);
  const lists = (f: (i: number) => unknown, n = per) =>
    Array.from({ length: MAX_SOURCES }, () => ({
      kind: 'manual',
      timesMs: Array.from({ length: n }, (_, i) => f(i)),
    }));
  return {
    'the largest the page writes': largestRecord(),
    'most values: negative whole numbers': withSources(lists((i) => -1 - i)),
    // 12 characters each: as many as the length limit allows.
    'most values: beyond 32 bits': withSources(
      lists((i) => -2_147_483_649 - i, Math.floor((L.chars - 2000) / 12 / MAX_SOURCES)),
    ),
    'most values: null': withSources(lists(() => null)),
    'most values: false': withSources(lists(() => false)),
    'most strings (each 500 characters)': withSources(
      lists((i) => `${i}`.padEnd(500, 's'), Math.floor((L.strings - 200) / MAX_SOURCES)),
    ),
    'most fractions': withSources(
      lists((i) => i + 0.5, Math.floor((L.fractions - 20) / MAX_SOURCES)),
    ),
    'most objects and lists': withSources(
      lists((i) => ({ t: i }), Math.floor((L.parts - 100) / MAX_SOURCES)),
    ),
    'one string of 2.9 MB': record({ ...base, view: 'v'.repeat(2_900_000) }),
    'one list of 330,000 values': withSources([
      { kind: 'manual', timesMs: Array.from({ length: L.values - 100 }, () => 7) },
    ]),
    'most values as keys of one object': record({
      ...base,
      view: Object.fromEntries(Array.from({ length: L.strings / 2 - 200 }, (_, i) => [`k${i}`, i])),
    }),
    'unreadable: 2.9 MB of "]"': `{"config":${']'.repeat(2_900_000)}`,
    'unreadable: an unclosed string of 2.9 MB': `{"config":"${'x'.repeat(2_900_000)}`,
    'over: 4 MB of valid times': withSources(
      Array.from({ length: 45 }, () => ({
        kind: 'manual',
        timesMs: Array.from({ length: MAX_MANUAL_TIMES }, (_, i) => MAX_UNTIL_MS - i),
      })),
    ),
    'over: 32 × 10,000 objects': withSources(lists((i) => ({ t: i }), MAX_MANUAL_TIMES)),
    'over: 32 × 10,000 fractions': withSources(lists((i) => i + 0.5, MAX_MANUAL_TIMES)),
    'over: 900,000 empty lists': record({
      ...base,
      view: Array.from({ length: 900_000 }, () => []),
    }),
    'over: exponents': withSources(lists((i) => Number(`${1 + (i % 9)}e${21 + (i % 200)}`), 2000)),
    'over: 1,400,000 values': withSources(lists(() => 1, 44_000)),
    'over: 1,400,000 escaped quotes': record({ ...base, view: '"'.repeat(1_400_000) }),
    'over: nested 13 deep': record({
      ...base,
      view: JSON.parse(`${'['.repeat(13)}${']'.repeat(13)}`) as unknown,
    }),
  };
}
