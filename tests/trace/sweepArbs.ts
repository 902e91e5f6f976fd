/**
 * Random traces and configs for the sweep's kernels: configs of every kind and option a kernel
 * covers, traces with bursts, steady runs and long gaps. Shared by the kernel and streamed-sweep
 * tests.
 */
import fc from 'fast-check';
import type { AlgorithmConfig } from '../../src/core';
import type { SimTrace } from '../../src/sim';

export function traceOf(
  rows: ReadonlyArray<readonly [number, number]>,
  keyCount: number,
): SimTrace {
  const sorted = [...rows].sort((a, b) => a[0] - b[0]);
  return {
    hash: '',
    timeMs: Int32Array.from(sorted.map((r) => r[0])),
    keyId: Uint32Array.from(sorted.map((r) => r[1])),
    keys: Array.from({ length: keyCount }, (_, i) => `client-${i}`),
  };
}

const small = (max: number) => fc.integer({ min: 1, max });
const duration = fc.oneof(small(50), fc.integer({ min: 51, max: 5000 }), fc.constant(1000));

/** Configs of every kind and option a kernel covers, with small numbers so limits bite. */
export const configArb: fc.Arbitrary<AlgorithmConfig> = fc.oneof(
  fc.record({ kind: fc.constant('fixed-window' as const), limit: small(6), windowMs: duration }),
  fc.record(
    {
      kind: fc.constant('sliding-log' as const),
      limit: small(6),
      windowMs: duration,
      logRejected: fc.boolean(),
    },
    { requiredKeys: ['kind', 'limit', 'windowMs'] },
  ),
  // Caddy's ring: the last-millisecond pass (never with logRejected).
  fc.record({
    kind: fc.constant('sliding-log' as const),
    limit: small(6),
    windowMs: duration,
    lastMsPasses: fc.constant(true),
  }),
  fc.record({
    kind: fc.constant('sliding-window-counter' as const),
    limit: small(6),
    windowMs: duration,
  }),
  fc
    .record({
      limit: small(6),
      windowMs: fc.integer({ min: 2, max: 5000 }),
      expireMs: fc.option(fc.integer({ min: 1, max: 8000 }), { nil: undefined }),
    })
    .map(({ limit, windowMs, expireMs }) => ({
      kind: 'sliding-window-counter' as const,
      limit,
      windowMs,
      anchor: 'entry' as const,
      ...(expireMs === undefined ? {} : { expireMs }),
    })),
  fc
    .record({
      maxTokens: small(6),
      tokensPerFill: small(4),
      fillIntervalMs: duration,
      refill: fc.constantFrom('continuous' as const, 'interval' as const),
      maxDelayMs: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
      idleResetS: fc.option(small(5), { nil: undefined }),
    })
    .map(({ maxDelayMs, idleResetS, ...rest }) => ({
      kind: 'token-bucket' as const,
      ...rest,
      ...(maxDelayMs === undefined ? {} : { maxDelayMs }),
      ...(idleResetS === undefined ? {} : { idleResetS }),
    })),
  fc.record({
    kind: fc.constant('leaky-bucket' as const),
    rate: fc.oneof(fc.constant(1), small(30)),
    rateUnit: fc.constantFrom('r/s' as const, 'r/m' as const),
    burst: fc.integer({ min: 0, max: 6 }),
    delay: fc.oneof(fc.constant('nodelay' as const), fc.integer({ min: 0, max: 6 })),
  }),
  fc.record({
    kind: fc.constant('gcra' as const),
    count: small(7),
    periodMs: duration,
    burst: fc.integer({ min: 0, max: 5 }),
  }),
  fc
    .record({
      limit: small(8),
      windowMs: fc.oneof(fc.constant(0), duration),
      countRejected: fc.boolean(),
      blockMs: fc.option(fc.integer({ min: 0, max: 4000 }), { nil: undefined }),
      execEvenly: fc.boolean(),
      execEvenlyMinDelayMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
      cost: fc.option(small(3), { nil: undefined }),
    })
    .map(({ blockMs, execEvenlyMinDelayMs, cost, ...rest }) => ({
      kind: 'anchored-window' as const,
      ...rest,
      ...(blockMs === undefined ? {} : { blockMs }),
      ...(execEvenlyMinDelayMs === undefined ? {} : { execEvenlyMinDelayMs }),
      ...(cost === undefined ? {} : { cost: Math.min(cost, rest.limit) }),
    })),
  fc
    .record({
      second: fc.option(small(4), { nil: undefined }),
      minute: fc.option(small(12), { nil: undefined }),
      hour: fc.option(small(40), { nil: undefined }),
      day: fc.option(small(60), { nil: undefined }),
      month: fc.option(small(80), { nil: undefined }),
      year: fc.option(small(90), { nil: undefined }),
      align: fc.constantFrom('calendar' as const, 'epoch' as const),
      countRejected: fc.boolean(),
      counterTtl: fc.boolean(),
      shadowMode: fc.boolean(),
    })
    .map((r) => {
      const out: Record<string, unknown> = { kind: 'calendar-windows' };
      for (const [f, v] of Object.entries(r)) if (v !== undefined) out[f] = v;
      // At least one unit: a minute's when the draw set none.
      if (!['second', 'minute', 'hour', 'day', 'month', 'year'].some((u) => u in out))
        out.minute = 3;
      return out as unknown as AlgorithmConfig;
    }),
);

/**
 * Traces: bursts in one ms, steady runs and long gaps (nginx only forgets a node idle for a
 * minute, Traefik a key idle for whole seconds), over a few keys or many.
 */
export const traceArb = fc
  .record({
    keyCount: fc.constantFrom(1, 3, 6, 40),
    steps: fc.array(
      fc.tuple(
        fc.oneof(
          fc.constant(0),
          fc.integer({ min: 0, max: 40 }),
          fc.integer({ min: 0, max: 1500 }),
          fc.integer({ min: 59_000, max: 63_000 }),
          fc.integer({ min: 59_000, max: 130_000 }),
        ),
        fc.nat(),
      ),
      { minLength: 1, maxLength: 160 },
    ),
    startMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 5000 })),
  })
  .map(({ keyCount, steps, startMs }) => {
    let t = startMs;
    const rows = steps.map(([dt, k]) => {
      t += dt;
      return [t, k % keyCount] as const;
    });
    return traceOf(rows, keyCount);
  });
