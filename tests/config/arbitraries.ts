/**
 * fast-check arbitraries of valid PlaygroundConfigs: every kind of limiter and source, optional
 * fields present and absent, names in several scripts, durations that hit every unit, rates that
 * are written per minute, long manual lists (packed), cross-field rules respected.
 */
import fc from 'fast-check';
import type { AlgorithmConfig } from '../../src/core';
import { MAX_COUNT, RANGES } from '../../src/core';
import type { LimiterEntry, PlaygroundConfig, ScenarioConfig, ViewConfig } from '../../src/config';
import { MAX_LIMITERS, MAX_SEED } from '../../src/config';
import type { ClockJump, TrafficSource } from '../../src/sim';
import {
  MAX_ATTEMPTS,
  MAX_BINS,
  MAX_BURST,
  MAX_CLIENTS,
  MAX_DECISIONS,
  MAX_INSTANCES,
  MAX_RATE_PER_SEC,
  MAX_UNTIL_MS,
  MAX_WAIT_MS,
  MIN_RATE_PER_SEC,
} from '../../src/sim';

/** A whole number in [min, max], biased to the ends now and then. */
export const whole = (min: number, max: number): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max) },
  );

/** A duration in [min, max] ms: any whole ms, or round values in s, m, h, tenths of s. */
export const duration = (min: number, max: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc.integer({ min, max }),
    ...[100, 1000, 60_000, 3_600_000]
      .filter((unit) => Math.ceil(min / unit) <= Math.floor(max / unit))
      .map((unit) =>
        fc
          .integer({ min: Math.ceil(min / unit), max: Math.floor(max / unit) })
          .map((n) => n * unit || 0),
      ),
    fc.constantFrom(min, max),
  );

/** A decimal in [min, max]: any double, whole numbers, per-minute values (n/60). */
const decimal = (min: number, max: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc.double({ min, max, noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: Math.ceil(min), max: Math.floor(max) }),
    fc
      .integer({ min: Math.ceil(min * 60), max: Math.floor(max * 60) })
      .map((n) => n / 60)
      .filter((r) => r >= min && r <= max),
    fc.constantFrom(min, max),
  );

const NAME_CHARS = [
  ...'abcXYZ0189 -_.()/',
  'é',
  'ß',
  'Ж',
  '日',
  '本',
  'ع',
  'क',
  'ि', // a combining mark
  '٣', // an Arabic-Indic digit
];

export const name: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 40 })
  .map((chars) => chars.join(''));

const count = (range: { min: number; max: number }) => whole(range.min, range.max);
const ms = (range: { min: number; max: number }) => duration(range.min, range.max);

export const algorithmConfig: fc.Arbitrary<AlgorithmConfig> = fc.oneof(
  fc.record({
    kind: fc.constant('fixed-window' as const),
    limit: count(RANGES['fixed-window'].limit),
    windowMs: ms(RANGES['fixed-window'].windowMs),
  }),
  fc.record(
    {
      kind: fc.constant('sliding-log' as const),
      limit: count(RANGES['sliding-log'].limit),
      windowMs: ms(RANGES['sliding-log'].windowMs),
      logRejected: fc.boolean(),
    },
    { requiredKeys: ['kind', 'limit', 'windowMs'] },
  ),
  fc.record({
    kind: fc.constant('sliding-window-counter' as const),
    limit: count(RANGES['sliding-window-counter'].limit),
    windowMs: ms(RANGES['sliding-window-counter'].windowMs),
  }),
  fc.record(
    {
      kind: fc.constant('token-bucket' as const),
      maxTokens: count(RANGES['token-bucket'].maxTokens),
      tokensPerFill: count(RANGES['token-bucket'].tokensPerFill),
      fillIntervalMs: ms(RANGES['token-bucket'].fillIntervalMs),
      refill: fc.constantFrom('continuous' as const, 'interval' as const),
      maxDelayMs: ms(RANGES['token-bucket'].maxDelayMs),
    },
    { requiredKeys: ['kind', 'maxTokens', 'tokensPerFill', 'fillIntervalMs'] },
  ),
  fc.record(
    {
      kind: fc.constant('leaky-bucket' as const),
      rate: count(RANGES['leaky-bucket'].rate),
      rateUnit: fc.constantFrom('r/s' as const, 'r/m' as const),
      burst: count(RANGES['leaky-bucket'].burst),
      delay: fc.oneof(fc.constant('nodelay' as const), whole(0, MAX_COUNT)),
      limitReqStatus: count(RANGES['leaky-bucket'].limitReqStatus),
    },
    { requiredKeys: ['kind', 'rate', 'rateUnit', 'burst', 'delay'] },
  ),
  fc.record({
    kind: fc.constant('gcra' as const),
    count: count(RANGES.gcra.count),
    periodMs: ms(RANGES.gcra.periodMs),
    burst: count(RANGES.gcra.burst),
  }),
);

export const limiterEntry: fc.Arbitrary<LimiterEntry> = fc
  .record({ name, config: algorithmConfig }, { requiredKeys: ['config'] })
  .map((entry) => {
    // A token bucket without a system is Envoy's, which never delays (src/systems/envoy-local.ts
    // `lacks`): the page holds no such entry with a delay (0, Envoy's own, may stay).
    const c = entry.config;
    if (c.kind !== 'token-bucket' || (c.maxDelayMs ?? 0) === 0) return entry;
    const { maxDelayMs: _d, ...rest } = c;
    void _d;
    return { ...entry, config: rest };
  });

/** [start, end) with end > start. */
const span = fc
  .integer({ min: 0, max: MAX_UNTIL_MS - 1 })
  .chain((startMs) =>
    fc.record({ startMs: fc.constant(startMs), endMs: duration(startMs + 1, MAX_UNTIL_MS) }),
  );

/** Manual times: short lists (written readably) and long ones (packed), regular or not. */
const timesMs: fc.Arbitrary<number[]> = fc.oneof(
  fc.array(duration(0, MAX_UNTIL_MS), { maxLength: 8 }),
  fc.array(fc.integer({ min: 0, max: 600_000 }), { minLength: 20, maxLength: 200 }),
  fc
    .record({
      start: fc.integer({ min: 0, max: 10_000 }),
      step: fc.integer({ min: 1, max: 500 }),
      n: fc.integer({ min: 20, max: 2000 }),
    })
    .map(({ start, step, n }) => Array.from({ length: n }, (_, i) => start + i * step)),
);

function source(clients: number): fc.Arbitrary<TrafficSource> {
  const client = fc.integer({ min: 0, max: clients - 1 });
  const rate = decimal(MIN_RATE_PER_SEC, MAX_RATE_PER_SEC);
  const optional = { requiredKeys: [] as never[] };
  return fc.oneof(
    fc
      .tuple(fc.record({ timesMs }), fc.record({ client }, optional))
      .map(([s, o]) => ({ kind: 'manual' as const, ...s, ...o })),
    fc
      .tuple(
        fc.record({ atMs: duration(0, MAX_UNTIL_MS), count: whole(1, MAX_BURST) }),
        fc.record({ spreadMs: duration(0, MAX_WAIT_MS), client }, optional),
      )
      .map(([s, o]) => ({ kind: 'burst' as const, ...s, ...o })),
    fc
      .tuple(
        fc.constantFrom('constant' as const, 'poisson' as const),
        rate,
        span,
        fc.record({ client }, optional),
      )
      .map(([kind, ratePerSec, s, o]) => ({ kind, ratePerSec, ...s, ...o })),
    fc
      .tuple(
        rate,
        duration(1, MAX_WAIT_MS),
        duration(0, MAX_WAIT_MS),
        span,
        fc.record({ client }, optional),
      )
      .map(([ratePerSec, onMs, offMs, s, o]) => ({
        kind: 'on-off' as const,
        ratePerSec,
        onMs,
        offMs,
        ...s,
        ...o,
      })),
    fc
      .tuple(
        fc.record({ spreadMs: duration(0, MAX_WAIT_MS) }, optional),
        whole(1, MAX_BURST),
        fc.record({ client }, optional),
      )
      .chain(([spread, n, o]) =>
        duration((spread.spreadMs ?? 0) + 1, MAX_UNTIL_MS).map((boundaryMs) => ({
          kind: 'boundary-burst' as const,
          boundaryMs,
          count: n,
          ...spread,
          ...o,
        })),
      ),
  );
}

const jump: fc.Arbitrary<ClockJump> = fc.record({
  atMs: duration(0, MAX_UNTIL_MS),
  byMs: duration(-MAX_UNTIL_MS, MAX_UNTIL_MS).filter((by) => by !== 0),
});

function scenario(untilMs: number): fc.Arbitrary<ScenarioConfig> {
  return whole(1, MAX_CLIENTS).chain((clientCount) =>
    fc.record({
      seed: whole(0, MAX_SEED),
      sources: fc.array(source(clientCount), { maxLength: 6 }),
      clients: fc.record({
        count: fc.constant(clientCount),
        keying: fc.constantFrom('per-client' as const, 'shared' as const),
        assign: fc.constantFrom('round-robin' as const, 'random' as const),
      }),
      retry: fc.tuple(duration(1, MAX_WAIT_MS), duration(1, MAX_WAIT_MS)).chain(([a, b]) =>
        fc.record({
          onReject: fc.constantFrom(
            'give-up' as const,
            'immediate' as const,
            'retry-after' as const,
            'backoff' as const,
          ),
          maxAttempts: whole(1, MAX_ATTEMPTS),
          backoffBaseMs: fc.constant(Math.min(a, b)),
          backoffCapMs: fc.constant(Math.max(a, b)),
          turnaroundMs: duration(0, MAX_WAIT_MS),
        }),
      ),
      deployment: fc.record({
        instances: whole(1, MAX_INSTANCES),
        balancer: fc.constantFrom('round-robin' as const, 'random' as const),
        state: fc.constantFrom('local' as const, 'shared-atomic' as const, 'shared-racy' as const),
        roundTripMs: duration(0, MAX_WAIT_MS),
      }),
      clock: fc.record({
        mode: fc.constantFrom('monotonic' as const, 'wall' as const),
        jumps: fc.array(jump, { maxLength: 5 }),
      }),
      metrics: fc.record(
        {
          windowMs: duration(1, MAX_UNTIL_MS),
          binMs: duration(Math.ceil(untilMs / MAX_BINS), MAX_UNTIL_MS),
        },
        { requiredKeys: ['windowMs'] },
      ),
    }),
  );
}

function view(untilMs: number, lanes: number): fc.Arbitrary<ViewConfig> {
  return fc.record({
    untilMs: fc.constant(untilMs),
    tMs: duration(0, untilMs),
    paused: fc.boolean(),
    speed: decimal(0.1, 100),
    selected: fc.option(
      fc.record({ lane: fc.integer({ min: 0, max: lanes - 1 }), row: whole(0, MAX_DECISIONS - 1) }),
    ),
    mode: fc.constantFrom('single' as const, 'compare' as const),
  });
}

/** Any valid config whose link fits MAX_LINK_LENGTH (list sizes are kept moderate). */
export const validConfig: fc.Arbitrary<PlaygroundConfig> = fc
  .tuple(
    fc.array(limiterEntry, { minLength: 1, maxLength: MAX_LIMITERS }),
    duration(1, MAX_UNTIL_MS),
  )
  .chain(([limiters, untilMs]) =>
    fc.record({
      version: fc.constant(1 as const),
      limiters: fc.constant(limiters),
      scenario: scenario(untilMs),
      view: view(untilMs, limiters.length),
    }),
  )
  // fc.record may make objects without a prototype; configs in the app are plain objects.
  .map((config) => structuredClone(config));
