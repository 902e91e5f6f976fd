/**
 * The Envoy local rate limit export, field by field, against Envoy's own API schema at 1.31.
 *
 * Source: envoyproxy/data-plane-api (the read-only mirror of envoy/api) at cb79c8e, the last API
 * commit before the v1.31.0 release (2024-07-16):
 * - envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto,
 *   message HttpFilter: name (min_len 1), oneof typed_config | config_discovery, is_optional, disabled.
 * - envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto, message LocalRateLimit
 *   (fields 1 – 16): stat_prefix (min_len 1), status, token_bucket, filter_enabled, filter_enforced,
 *   request_headers_to_add_when_not_enforced / response_headers_to_add (max 10), descriptors,
 *   stage (≤ 10), local_rate_limit_per_downstream_connection, local_cluster_rate_limit,
 *   enable_x_ratelimit_headers (defined_only), vh_rate_limits (defined_only),
 *   always_consume_default_token_bucket, rate_limited_as_resource_exhausted. Its note on
 *   token_bucket: "fill_interval must be >= 50ms".
 * - envoy/type/v3/token_bucket.proto, message TokenBucket: max_tokens uint32 gt 0 (required by
 *   its rule), tokens_per_fill UInt32Value gt 0 (default 1), fill_interval Duration required gt 0,
 *   name.
 * - envoy/config/core/v3/base.proto, message RuntimeFractionalPercent: default_value required,
 *   runtime_key; envoy/type/v3/percent.proto FractionalPercent: numerator uint32, denominator
 *   HUNDRED | TEN_THOUSAND | MILLION.
 * - envoy/extensions/common/ratelimit/v3/ratelimit.proto: XRateLimitHeadersRFCVersion OFF |
 *   DRAFT_VERSION_03; VhRateLimitsOptions OVERRIDE | INCLUDE | IGNORE.
 * Protobuf's JSON mapping (which Envoy's YAML loading uses) writes a Duration as a string of
 * seconds with up to 9 fractional digits and a trailing "s", and an enum by its name.
 * Fields the export never writes and whose messages are large (descriptors, header lists,
 * local_cluster_rate_limit, status) are checked by name and container type only.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../../src/core';
import { toEnvoy } from '../../../src/export';
import type { EnvoyOptions } from '../../../src/export';
import { envoyLocal } from '../../../src/systems/envoy-local';
import {
  RUNS,
  expectRejectedAt,
  expectValid,
  problems,
  textOf,
  tokenBuckets,
  uint32,
  itRejectsEach,
} from './check';

/** google.protobuf.Duration in its JSON form; its value in ms. */
const DURATION = /^(\d+)(?:\.(\d{1,9}))?s$/;
function durationMs(text: string): number {
  const m = DURATION.exec(text);
  if (m === null) return Number.NaN;
  return Number(m[1]) * 1000 + Number(`0.${m[2] ?? '0'}`) * 1000;
}
const duration = v.pipe(v.string(), v.regex(DURATION, 'a protobuf Duration such as "1.500s"'));
const positive = (schema: typeof uint32) => v.pipe(schema, v.minValue(1, 'must be > 0'));

const fractionalPercent = v.strictObject({
  numerator: v.optional(uint32),
  denominator: v.optional(v.picklist(['HUNDRED', 'TEN_THOUSAND', 'MILLION'])),
});
const runtimeFractionalPercent = v.strictObject({
  default_value: fractionalPercent,
  runtime_key: v.optional(v.string()),
});
const tokenBucket = v.strictObject({
  max_tokens: positive(uint32),
  tokens_per_fill: v.optional(positive(uint32)),
  fill_interval: v.pipe(
    duration,
    v.check((d) => durationMs(d) > 0, 'must be > 0'),
    // local_rate_limit.proto, note on token_bucket (and Envoy's loader refuses it at start).
    v.check((d) => durationMs(d) >= 50, 'Envoy requires fill_interval >= 50ms'),
  ),
  name: v.optional(v.string()),
});
const localRateLimit = v.strictObject({
  '@type': v.literal(
    'type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit',
  ),
  stat_prefix: v.pipe(v.string(), v.minLength(1)),
  status: v.optional(v.strictObject({ code: v.string() })),
  token_bucket: tokenBucket,
  filter_enabled: v.optional(runtimeFractionalPercent),
  filter_enforced: v.optional(runtimeFractionalPercent),
  request_headers_to_add_when_not_enforced: v.optional(
    v.pipe(v.array(v.unknown()), v.maxLength(10)),
  ),
  response_headers_to_add: v.optional(v.pipe(v.array(v.unknown()), v.maxLength(10))),
  descriptors: v.optional(v.array(v.unknown())),
  stage: v.optional(v.pipe(uint32, v.maxValue(10))),
  local_rate_limit_per_downstream_connection: v.optional(v.boolean()),
  local_cluster_rate_limit: v.optional(v.record(v.string(), v.unknown())),
  enable_x_ratelimit_headers: v.optional(v.picklist(['OFF', 'DRAFT_VERSION_03'])),
  vh_rate_limits: v.optional(v.picklist(['OVERRIDE', 'INCLUDE', 'IGNORE'])),
  always_consume_default_token_bucket: v.optional(v.boolean()),
  rate_limited_as_resource_exhausted: v.optional(v.boolean()),
});
const httpFilter = v.strictObject({
  name: v.literal('envoy.filters.http.local_ratelimit'),
  typed_config: localRateLimit,
  is_optional: v.optional(v.boolean()),
  disabled: v.optional(v.boolean()),
});

type Doc = {
  name: string;
  typed_config: Record<string, unknown> & {
    token_bucket: { max_tokens: number; tokens_per_fill: number; fill_interval: string };
  };
};

function docOf(config: TokenBucketConfig, options: EnvoyOptions = {}): Doc {
  return parse(textOf(toEnvoy(config, options))) as Doc;
}

/** Configs whose export Envoy can load (a continuous refill is always lifted to 50 ms). */
const loadable = tokenBuckets.filter((c) => c.refill !== 'interval' || c.fillIntervalMs >= 50);
const DEFAULT = envoyLocal.defaultConfig as TokenBucketConfig;

describe('Envoy local_ratelimit export against local_rate_limit.proto (Envoy 1.31)', () => {
  it('the system default, with and without the standard headers: every field known and typed', () => {
    for (const standardHeaders of [false, true]) {
      expectValid(httpFilter, docOf(DEFAULT, { standardHeaders }));
    }
  });

  it('HttpFilter: name and typed_config with its @type, nothing else', () => {
    fc.assert(
      fc.property(loadable, fc.boolean(), (c, standardHeaders) => {
        const doc = docOf(c, { standardHeaders });
        expect(Object.keys(doc).sort()).toEqual(['name', 'typed_config']);
        expectValid(httpFilter, doc);
      }),
      RUNS,
    );
  });

  it('token_bucket: max_tokens and tokens_per_fill uint32 > 0, fill_interval a Duration ≥ 50 ms', () => {
    fc.assert(
      fc.property(loadable, (c) => {
        expectValid(tokenBucket, docOf(c).typed_config.token_bucket);
      }),
      RUNS,
    );
  });

  it('stat_prefix: a non-empty string, the option as written', () => {
    for (const statPrefix of ['http_local_rate_limiter', 'edge.v1', '1', 'true', 'null', '0.5']) {
      const doc = docOf(DEFAULT, { statPrefix });
      expect(doc.typed_config.stat_prefix).toBe(statPrefix);
      expectValid(localRateLimit, doc.typed_config);
    }
  });

  it('filter_enabled and filter_enforced: RuntimeFractionalPercent at 100 %', () => {
    const tc = docOf(DEFAULT).typed_config;
    for (const field of ['filter_enabled', 'filter_enforced'] as const) {
      expectValid(runtimeFractionalPercent, tc[field]);
      expect(tc[field]).toMatchObject({
        default_value: { numerator: 100, denominator: 'HUNDRED' },
      });
    }
  });

  it('enable_x_ratelimit_headers: a defined enum name, only with the standard headers', () => {
    expect(docOf(DEFAULT).typed_config).not.toHaveProperty('enable_x_ratelimit_headers');
    const tc = docOf(DEFAULT, { standardHeaders: true }).typed_config;
    expect(tc.enable_x_ratelimit_headers).toBe('DRAFT_VERSION_03');
    expectValid(localRateLimit, tc);
  });

  it('an interval refill below 50 ms: the schema refuses it and the export says Envoy rejects it', () => {
    const c: TokenBucketConfig = { ...DEFAULT, refill: 'interval', fillIntervalMs: 20 };
    const out = toEnvoy(c);
    expectRejectedAt(httpFilter, docOf(c), 'typed_config.token_bucket.fill_interval');
    expect(out.ok && out.differences.join(' ')).toContain('Envoy rejects this config');
  });

  describe('each check can fail: a mutated export is rejected at that field', () => {
    const good = docOf(DEFAULT, { standardHeaders: true });
    const cases: [string, (d: Doc) => void, string][] = [
      ['unknown top-level field', (d) => ((d as Record<string, unknown>).config = {}), 'config'],
      ['filter name', (d) => (d.name = 'envoy.filters.http.ratelimit'), 'name'],
      ['@type', (d) => (d.typed_config['@type'] = 'LocalRateLimit'), 'typed_config.@type'],
      [
        'renamed field',
        (d) => {
          d.typed_config.statPrefix2 = d.typed_config.stat_prefix;
          delete d.typed_config.stat_prefix;
        },
        'typed_config.statPrefix2',
      ],
      ['empty stat_prefix', (d) => (d.typed_config.stat_prefix = ''), 'typed_config.stat_prefix'],
      [
        'max_tokens 0',
        (d) => (d.typed_config.token_bucket.max_tokens = 0),
        'typed_config.token_bucket.max_tokens',
      ],
      [
        'max_tokens 2^32',
        (d) => (d.typed_config.token_bucket.max_tokens = 2 ** 32),
        'typed_config.token_bucket.max_tokens',
      ],
      [
        'tokens_per_fill 1.5',
        (d) => (d.typed_config.token_bucket.tokens_per_fill = 1.5),
        'typed_config.token_bucket.tokens_per_fill',
      ],
      [
        'fill_interval in ms',
        (d) => (d.typed_config.token_bucket.fill_interval = '500ms'),
        'typed_config.token_bucket.fill_interval',
      ],
      [
        'fill_interval a number',
        (d) => ((d.typed_config.token_bucket as Record<string, unknown>).fill_interval = 1),
        'typed_config.token_bucket.fill_interval',
      ],
      [
        'fill_interval 0.049s',
        (d) => (d.typed_config.token_bucket.fill_interval = '0.049s'),
        'typed_config.token_bucket.fill_interval',
      ],
      [
        'fill_interval missing',
        (d) => delete (d.typed_config.token_bucket as Record<string, unknown>).fill_interval,
        'typed_config.token_bucket.fill_interval',
      ],
      [
        'denominator PERCENT',
        (d) =>
          ((
            d.typed_config.filter_enabled as { default_value: { denominator: string } }
          ).default_value.denominator = 'PERCENT'),
        'typed_config.filter_enabled.default_value.denominator',
      ],
      [
        'default_value missing',
        (d) => delete (d.typed_config.filter_enforced as Record<string, unknown>).default_value,
        'typed_config.filter_enforced.default_value',
      ],
      [
        'enable_x_ratelimit_headers true',
        (d) => (d.typed_config.enable_x_ratelimit_headers = true),
        'typed_config.enable_x_ratelimit_headers',
      ],
      ['stage 11', (d) => (d.typed_config.stage = 11), 'typed_config.stage'],
    ];
    itRejectsEach(httpFilter, good, cases);

    it('a mutation in the text (a renamed key) is caught after parsing as the user pastes it', () => {
      const text = textOf(toEnvoy(DEFAULT));
      const renamed = text.replace('tokens_per_fill:', 'tokens_per_fil:');
      expect(renamed).not.toBe(text);
      expect(problems(httpFilter, parse(renamed))).toContain(
        'typed_config.token_bucket.tokens_per_fil: Invalid key: Expected never but received "tokens_per_fil"',
      );
    });
  });
});

describe('Envoy local_ratelimit export means what the lab simulates', () => {
  it('tokens_per_fill / fill_interval is the lab rate exactly; max_tokens the bucket', () => {
    fc.assert(
      fc.property(loadable, (c) => {
        const tb = docOf(c).typed_config.token_bucket;
        expect(tb.max_tokens).toBe(c.maxTokens);
        // Cross-multiplied, whole numbers: tokens_per_fill / fill_ms = tokensPerFill / fillIntervalMs.
        expect(tb.tokens_per_fill * c.fillIntervalMs).toBe(
          c.tokensPerFill * durationMs(tb.fill_interval),
        );
      }),
      RUNS,
    );
  });

  it('an interval refill is written as it is: Envoy < 1.31 adds tokens_per_fill every fill_interval', () => {
    fc.assert(
      fc.property(
        loadable.filter((c) => c.refill === 'interval'),
        (c) => {
          const tb = docOf(c).typed_config.token_bucket;
          expect(tb.tokens_per_fill).toBe(c.tokensPerFill);
          expect(durationMs(tb.fill_interval)).toBe(c.fillIntervalMs);
        },
      ),
      { ...RUNS, numRuns: 100 },
    );
  });
});
