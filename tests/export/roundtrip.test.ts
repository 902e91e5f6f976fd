/**
 * import(export(c)) = c for every config a target can express (compared in canonical form, where
 * default-valued optional fields are left out), and the snippet's own settings come back too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LeakyBucketConfig, TokenBucketConfig } from '../../src/core';
import { MAX_COUNT, MAX_DURATION_MS } from '../../src/core';
import {
  ENVOY_MIN_FILL_INTERVAL_MS,
  canonicalConfig,
  importEnvoy,
  importNginx,
  toEnvoy,
  toNginx,
} from '../../src/export';

const count = (min: number) =>
  fc.oneof(fc.integer({ min, max: 10 }), fc.integer({ min, max: MAX_COUNT }));

const leakyBucket: fc.Arbitrary<LeakyBucketConfig> = fc
  .record({
    rate: count(1),
    rateUnit: fc.constantFrom('r/s' as const, 'r/m' as const),
    burst: count(0),
    delay: fc.oneof(fc.constant('nodelay' as const), count(0)),
    limitReqStatus: fc.option(fc.integer({ min: 400, max: 599 }), { nil: undefined }),
  })
  .map(({ limitReqStatus, ...rest }) => ({
    kind: 'leaky-bucket' as const,
    ...rest,
    ...(limitReqStatus === undefined ? {} : { limitReqStatus }),
  }));

const nginxOptions = fc.record({
  key: fc.oneof(
    fc.constantFrom(
      '$binary_remote_addr',
      '$http_x_api_key',
      '$binary_remote_addr$uri',
      '${host}_x',
    ),
    fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !s.includes('\n')),
  ),
  zone: fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/),
  zoneSize: fc.oneof(
    fc.integer({ min: 32, max: 100_000 }).map((n) => `${n}k`),
    fc.integer({ min: 1, max: 1000 }).map((n) => `${n}m`),
    fc.integer({ min: 32768, max: 10_000_000 }).map(String),
  ),
});

const tokenBucket: fc.Arbitrary<TokenBucketConfig> = fc
  .record({
    maxTokens: count(1),
    tokensPerFill: count(1),
    fillIntervalMs: fc.oneof(
      fc.integer({ min: ENVOY_MIN_FILL_INTERVAL_MS, max: 2000 }),
      fc.integer({ min: ENVOY_MIN_FILL_INTERVAL_MS, max: MAX_DURATION_MS }),
    ),
    refill: fc.constantFrom(undefined, 'continuous' as const, 'interval' as const),
    maxDelayMs: fc.constantFrom(undefined, 0),
  })
  .map(({ refill, maxDelayMs, ...rest }) => ({
    kind: 'token-bucket' as const,
    ...rest,
    ...(refill === undefined ? {} : { refill }),
    ...(maxDelayMs === undefined ? {} : { maxDelayMs }),
  }));

describe('round trip: import(export(c)) = c', () => {
  it('nginx: every leaky-bucket config, with its key, zone name and size', () => {
    fc.assert(
      fc.property(leakyBucket, nginxOptions, (config, options) => {
        const out = toNginx(config, options);
        if (!out.ok) throw new Error(out.reason);
        const back = importNginx(out.text);
        expect(back).toEqual({
          ok: true,
          config: canonicalConfig(config),
          extras: options,
          warnings: [],
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('Envoy: every token-bucket config Envoy accepts (fill_interval ≥ 50 ms, no waiting), with its stat_prefix', () => {
    fc.assert(
      fc.property(tokenBucket, fc.stringMatching(/^[A-Za-z0-9_.]{1,16}$/), (config, statPrefix) => {
        const out = toEnvoy(config, { statPrefix });
        if (!out.ok) throw new Error(out.reason);
        const back = importEnvoy(out.text, { refill: config.refill ?? 'continuous' });
        expect(back).toEqual({
          ok: true,
          config: canonicalConfig(config),
          extras: { statPrefix },
          warnings: [],
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('canonical form leaves out exactly the defaults', () => {
    expect(
      canonicalConfig({
        kind: 'token-bucket',
        maxTokens: 1,
        tokensPerFill: 1,
        fillIntervalMs: 1,
        refill: 'continuous',
        maxDelayMs: 0,
      }),
    ).toEqual({ kind: 'token-bucket', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1 });
    expect(
      canonicalConfig({
        kind: 'leaky-bucket',
        rate: 1,
        rateUnit: 'r/s',
        burst: 0,
        delay: 0,
        limitReqStatus: 503,
      }),
    ).toEqual({
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/s',
      burst: 0,
      delay: 0,
    });
    expect(
      canonicalConfig({ kind: 'sliding-log', limit: 1, windowMs: 1, logRejected: true }),
    ).toEqual({
      kind: 'sliding-log',
      limit: 1,
      windowMs: 1,
      logRejected: true,
    });
  });
});
