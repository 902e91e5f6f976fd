import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig, TokenBucketConfig } from '../../src/core';
import { createLimiter } from '../../src/core';
import { envoyDuration, importEnvoy, toEnvoy } from '../../src/export';
import { randomTrace, seeded } from './gen';
import { systemById } from '../../src/systems';

function yamlOf(config: AlgorithmConfig): Record<string, unknown> {
  const out = toEnvoy(config);
  if (!out.ok) throw new Error(out.reason);
  return parse(out.text) as Record<string, unknown>;
}

describe('toEnvoy', () => {
  it('writes the local_ratelimit filter with its token bucket, enabled and enforced at 100 %', () => {
    const doc = yamlOf({
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 2,
      fillIntervalMs: 1500,
    });
    const hundred = { numerator: 100, denominator: 'HUNDRED' };
    expect(doc).toEqual({
      name: 'envoy.filters.http.local_ratelimit',
      typed_config: {
        '@type':
          'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit',
        stat_prefix: 'http_local_rate_limiter',
        token_bucket: { max_tokens: 10, tokens_per_fill: 2, fill_interval: '1.500s' },
        filter_enabled: { runtime_key: 'local_rate_limit_enabled', default_value: hundred },
        filter_enforced: { runtime_key: 'local_rate_limit_enforced', default_value: hundred },
      },
    });
  });

  it('adds enable_x_ratelimit_headers only when the limiter adds the standard headers', () => {
    const config = {
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 2,
      fillIntervalMs: 1500,
    } as const;
    const plain = toEnvoy(config);
    const added = toEnvoy(config, { standardHeaders: true });
    if (!plain.ok || !added.ok) throw new Error('exports');
    expect(plain.text).not.toContain('enable_x_ratelimit_headers');
    expect(added.text).toContain('  enable_x_ratelimit_headers: DRAFT_VERSION_03\n');
    expect(plain.differences.join(' ')).toMatch(/bare 429 .*no x-envoy-ratelimited/);
    expect(added.differences.join(' ')).toMatch(/no Retry-After/);
  });

  it('formats protobuf durations', () => {
    expect([1, 50, 999, 1000, 1500, 60_000, 86_400_000].map(envoyDuration)).toEqual([
      '0.001s',
      '0.050s',
      '0.999s',
      '1s',
      '1.500s',
      '60s',
      '86400s',
    ]);
  });

  it("says Envoy never delays only for a limiter that waits (Traefik's), never for Envoy's own", () => {
    const envoy = systemById('envoy')!;
    const traefik = systemById('traefik')!;
    const own = toEnvoy(envoy.defaultConfig);
    expect(own.ok && own.differences.join(' ')).not.toMatch(/never delays/);
    const waits = toEnvoy(traefik.defaultConfig);
    expect(waits.ok && waits.differences.join(' ')).toMatch(
      /Envoy never delays a request: those this limiter holds for up to 100 ms get 429 at once/,
    );
  });

  it('assumes Envoy ≥ 1.31 for continuous refill and < 1.31 for the timer, and says what differs', () => {
    const continuous = toEnvoy({
      kind: 'token-bucket',
      maxTokens: 5,
      tokensPerFill: 1,
      fillIntervalMs: 200,
      maxDelayMs: 300,
    });
    expect(continuous.ok && continuous.assumes).toMatch(/≥ 1\.31/);
    expect(continuous.ok && continuous.differences.join(' ')).toMatch(/never delays/);
    expect(continuous.ok && continuous.differences.join(' ')).toMatch(
      /One bucket for every request/,
    );
    const interval = toEnvoy({
      kind: 'token-bucket',
      maxTokens: 5,
      tokensPerFill: 1,
      fillIntervalMs: 20,
      refill: 'interval',
    });
    expect(interval.ok && interval.assumes).toMatch(/< 1\.31/);
    expect(interval.ok && interval.differences.join(' ')).toMatch(
      /rejects this config: fill_interval must be at least 50 ms/,
    );
  });

  it("lifts a fill_interval below 50 ms to Envoy's floor without changing any decision", () => {
    const doc = yamlOf({ kind: 'token-bucket', maxTokens: 4, tokensPerFill: 3, fillIntervalMs: 7 });
    // k = ⌈50 / 7⌉ = 8: 24 tokens every 56 ms, the same rate as 3 every 7 ms
    expect((doc.typed_config as Record<string, unknown>).token_bucket).toEqual({
      max_tokens: 4,
      tokens_per_fill: 24,
      fill_interval: '0.056s',
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 49 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer(),
        (fillIntervalMs, tokensPerFill, maxTokens, seed) => {
          const original: TokenBucketConfig = {
            kind: 'token-bucket',
            maxTokens,
            tokensPerFill,
            fillIntervalMs,
          };
          const out = toEnvoy(original);
          const back = out.ok ? importEnvoy(out.text) : undefined;
          if (back?.ok !== true) return false;
          const a = createLimiter(original);
          const b = createLimiter(back.config);
          for (const { nowMs, key } of randomTrace(
            seeded(seed),
            original,
            60,
            Number.POSITIVE_INFINITY,
          )) {
            expect(b.decide(nowMs, key)).toEqual(a.decide(nowMs, key));
          }
          return true;
        },
      ),
      { numRuns: 150 },
    );
  });

  it('says why Envoy cannot express the other kinds, without throwing', () => {
    for (const c of [
      { kind: 'fixed-window', limit: 5, windowMs: 1000 },
      { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 1, delay: 'nodelay' },
      { kind: 'gcra', count: 5, periodMs: 1000, burst: 2 },
    ] as AlgorithmConfig[]) {
      const out = toEnvoy(c);
      expect(out).toMatchObject({ ok: false, target: 'envoy', kind: c.kind });
      expect(!out.ok && out.reason).toMatch(/only has a token bucket/);
    }
  });
});
