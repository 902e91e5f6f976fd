/**
 * fast-check generators shared by the differential and property tests: small configs (so that
 * boundaries, ties and exhausted quotas are hit often) with the occasional value at the edge of the
 * accepted range, and traces of (time, key) with ties, backward jumps and huge forward jumps.
 */
import fc from 'fast-check';
import type { AlgorithmConfig, AlgorithmKind } from '../../src/core';

/** Seed and run count for every property: reproducible, and overridable for a longer soak. */
export const FC_SEED = Number(process.env.FC_SEED ?? 20250611);
export const runs = (n: number): number => Math.round(n * Number(process.env.FC_RUNS_SCALE ?? 1));

const MAX_COUNT = 1_000_000;
const MAX_DURATION_MS = 86_400_000;

/** Mostly 1–20, sometimes the edges of 1 – 1,000,000. */
const count = (min: 0 | 1): fc.Arbitrary<number> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min, max: 4 }) },
    { weight: 6, arbitrary: fc.integer({ min, max: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom(min, MAX_COUNT, MAX_COUNT - 1, 999, 1000) },
  );

/** Mostly short windows (1–5000 ms, often round numbers), sometimes a day. */
const durationMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 5000 }) },
  { weight: 4, arbitrary: fc.constantFrom(1, 2, 3, 7, 10, 100, 250, 1000, 60_000) },
  { weight: 1, arbitrary: fc.constantFrom(MAX_DURATION_MS, MAX_DURATION_MS - 1) },
);

export const configArb: Record<AlgorithmKind, fc.Arbitrary<AlgorithmConfig>> = {
  'fixed-window': fc.record({
    kind: fc.constant('fixed-window' as const),
    limit: count(1),
    windowMs: durationMs,
  }),
  'sliding-log': fc.oneof(
    fc.record({
      kind: fc.constant('sliding-log' as const),
      limit: count(1),
      windowMs: durationMs,
      logRejected: fc.boolean(),
    }),
    // Caddy's ring: a request when the oldest entry is in its last millisecond passes unlogged.
    fc.record({
      kind: fc.constant('sliding-log' as const),
      limit: count(1),
      windowMs: durationMs,
      lastMsPasses: fc.constant(true),
    }),
  ),
  'sliding-window-counter': fc.oneof(
    fc.record({
      kind: fc.constant('sliding-window-counter' as const),
      limit: count(1),
      windowMs: durationMs,
    }),
    // HAProxy's stick-table counter (anchor 'entry'), odd periods and expire included.
    fc.record(
      {
        kind: fc.constant('sliding-window-counter' as const),
        limit: count(1),
        windowMs: durationMs.filter((w) => w >= 2),
        anchor: fc.constant('entry' as const),
        expireMs: fc.oneof(durationMs, fc.integer({ min: 1, max: 50 })),
      },
      { requiredKeys: ['kind', 'limit', 'windowMs', 'anchor'] },
    ),
  ),
  'token-bucket': fc.record({
    kind: fc.constant('token-bucket' as const),
    maxTokens: count(1),
    tokensPerFill: count(1),
    fillIntervalMs: durationMs,
    refill: fc.constantFrom('continuous' as const, 'interval' as const),
    maxDelayMs: fc.oneof(
      { weight: 2, arbitrary: fc.constant(0) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 5000 }) },
      { weight: 1, arbitrary: fc.constantFrom(1, MAX_DURATION_MS) },
    ),
  }),
  'leaky-bucket': fc.record({
    kind: fc.constant('leaky-bucket' as const),
    rate: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 1, max: 20 }) },
      // r/m rates that do not divide 60 (nginx floors rate·1000/60), and the edges.
      { weight: 3, arbitrary: fc.constantFrom(1, 7, 59, 61, 1000, 1001, MAX_COUNT) },
    ),
    rateUnit: fc.constantFrom('r/s' as const, 'r/m' as const),
    burst: count(0),
    delay: fc.oneof(fc.constant('nodelay' as const), count(0)),
  }),
  gcra: fc.record({
    kind: fc.constant('gcra' as const),
    count: count(1),
    periodMs: durationMs,
    burst: count(0),
  }),
  'anchored-window': fc
    .record(
      {
        kind: fc.constant('anchored-window' as const),
        limit: count(1),
        windowMs: durationMs,
        countRejected: fc.boolean(),
        blockMs: fc.oneof(fc.constant(0), durationMs),
        execEvenly: fc.boolean(),
        execEvenlyMinDelayMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2000 })),
        cost: fc.integer({ min: 1, max: 4 }),
      },
      { requiredKeys: ['kind', 'limit', 'windowMs'] },
    )
    .map((c) => (c.cost !== undefined && c.cost > c.limit ? { ...c, cost: c.limit } : c)),
  'calendar-windows': fc
    .record(
      {
        second: count(1),
        minute: count(1),
        hour: count(1),
        day: count(1),
        month: count(1),
        year: count(1),
        align: fc.constantFrom('calendar' as const, 'epoch' as const),
        countRejected: fc.boolean(),
        counterTtl: fc.boolean(),
      },
      { requiredKeys: [] },
    )
    .map((r) => ({
      kind: 'calendar-windows' as const,
      ...r,
      ...(['second', 'minute', 'hour', 'day', 'month', 'year'].some(
        (u) => (r as Record<string, unknown>)[u] !== undefined,
      )
        ? {}
        : { minute: 3 }),
    })),
};

export const KINDS = Object.keys(configArb) as AlgorithmKind[];

/** The largest |time| the traces use: 2^50, so now + any retry wait stays within ±2^51. */
export const TRACE_LIMIT_MS = 2 ** 50;

/** One time step: ties, small steps, steps about a window long, and clock jumps. */
const stepMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 5, arbitrary: fc.constant(0) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }) },
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 6000 }) },
  { weight: 1, arbitrary: fc.constantFrom(59_999, 60_000, 60_001, 62_499, 62_500) },
  { weight: 1, arbitrary: fc.integer({ min: -5000, max: -1 }) },
  { weight: 1, arbitrary: fc.constantFrom(-59_999, -60_000, -60_001) },
  // Below nginx's −60000 ms threshold, where it counts the jump as 1 ms.
  { weight: 1, arbitrary: fc.integer({ min: -10_000_000, max: -60_001 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100_000_000, max: 2 ** 48 }) },
);

/**
 * A coarse clock in steps of 10 s, so that nginx nodes idle for exactly 60 s (the threshold of
 * ngx_http_limit_req_expire) turn up often.
 */
export const coarseStepMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(0, 10_000, 20_000, 30_000) },
  { weight: 1, arbitrary: fc.constantFrom(-1, 1, 59_999, 60_000, -60_000, -60_001) },
);

const startMs: fc.Arbitrary<number> = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 10_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -100_000, max: -1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      TRACE_LIMIT_MS - 100_000,
      -TRACE_LIMIT_MS,
      2 ** 49 + 12_345,
      1_700_000_000_000,
    ),
  },
);

/** Requests sent at once: mostly one, sometimes a burst that runs a small quota dry. */
const repeat: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(1) },
  { weight: 2, arbitrary: fc.integer({ min: 2, max: 6 }) },
  { weight: 1, arbitrary: fc.integer({ min: 7, max: 25 }) },
);

export interface TraceEvent {
  nowMs: number;
  key: string;
}

/**
 * A trace of requests: mostly one key (so quotas run out), with a few others; times mostly
 * non-decreasing with many ties, plus backward and huge forward jumps, clamped to ±2^50.
 */
export const traceArb = (
  opts: { maxLength?: number; keys?: number; steps?: fc.Arbitrary<number> } = {},
): fc.Arbitrary<TraceEvent[]> => {
  const keyNames = Array.from({ length: opts.keys ?? 3 }, (_, i) => `k${i}`);
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constant('k0') },
    { weight: 2, arbitrary: fc.constantFrom(...keyNames) },
  );
  return fc
    .tuple(
      startMs,
      fc.array(fc.tuple(opts.steps ?? stepMs, key, repeat), {
        minLength: 1,
        maxLength: opts.maxLength ?? 30,
      }),
    )
    .map(([start, steps]) => {
      let t = start;
      return steps.flatMap(([dt, k, n]) => {
        t = Math.max(-TRACE_LIMIT_MS, Math.min(TRACE_LIMIT_MS, t + dt));
        return Array.from({ length: n }, () => ({ nowMs: t, key: k }));
      });
    });
};
