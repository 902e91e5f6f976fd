/**
 * The Traefik export, field by field, against Traefik's dynamic configuration at v3.7.9 (the
 * version src/systems/traefik.ts cites):
 * - pkg/config/dynamic/config.go Configuration: HTTP, TCP, UDP, TLS.
 * - pkg/config/dynamic/http_config.go HTTPConfiguration: Routers, Services, Middlewares
 *   (map[string]*Middleware), Models, ServersTransports.
 * - pkg/config/dynamic/middlewares.go Middleware (lines 23-60): one field per middleware type,
 *   RateLimit among them; RateLimit (lines 611-640): Average int64, Period ptypes.Duration,
 *   Burst int64, SourceCriterion, Redis; SetDefaults: Burst 1, Period 1 s; SourceCriterion
 *   (lines 599-605): IPStrategy, RequestHeaderName, RequestHost; IPStrategy (lines 480-489):
 *   Depth int (kubebuilder Minimum 0), ExcludedIPs, IPv6Subnet; Redis: Endpoints, TLS, Username,
 *   Password, DB, PoolSize, MinIdleConns, MaxActiveConns, ReadTimeout, WriteTimeout, DialTimeout.
 * - pkg/middlewares/ratelimiter/rate_limiter.go New: burst = max(Burst, 1); a negative period is
 *   an error, 0 means 1 s; Average 0 means no limit; rate = Average · 1 s / period.
 * The file provider decodes through traefik/paerser: parser/nodes_metadata.go findTypedField
 * matches a key to a Go field name case-insensitively (strings.EqualFold) and fails "field not
 * found" otherwise; a struct with no children "cannot be a standalone element".
 * paerser types/duration.go Duration.Set: digits alone are seconds, else time.ParseDuration.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../../src/core';
import { toTraefik } from '../../../src/export';
import { traefik } from '../../../src/systems/traefik';
import {
  RUNS,
  expectValid,
  int64,
  namedLike,
  parseGoDuration,
  problems,
  textOf,
  tokenBuckets,
  itRejectsEach,
} from './check';

const fold = (name: string): string => name.toLowerCase();
const goStruct = (fields: Record<string, v.GenericSchema>) =>
  v.pipe(
    namedLike(fields, fold),
    v.check((o) => Object.keys(o as object).length > 0, 'cannot be a standalone element'),
  );

/** paerser Duration: whole seconds as digits, or a Go duration string. */
const paerserDuration = v.pipe(
  v.union([v.pipe(v.number(), v.integer()), v.string()]),
  v.check(
    (d) => typeof d === 'number' || /^-?\d+$/.test(d) || parseGoDuration(d) !== undefined,
    'a Go duration ("1s", "1m30s", "250ms") or whole seconds',
  ),
  v.check(
    (d) => (typeof d === 'number' ? d : (parseGoDuration(String(d)) ?? 0)) >= 0,
    'negative value not valid for period',
  ),
);
const any = v.unknown();
const ipStrategy = goStruct({
  Depth: v.pipe(v.number(), v.integer(), v.minValue(0)),
  ExcludedIPs: v.array(v.string()),
  IPv6Subnet: v.pipe(v.number(), v.integer()),
});
const sourceCriterion = goStruct({
  IPStrategy: ipStrategy,
  RequestHeaderName: v.string(),
  RequestHost: v.boolean(),
});
const rateLimit = goStruct({
  Average: int64,
  Period: paerserDuration,
  Burst: int64,
  SourceCriterion: sourceCriterion,
  Redis: goStruct(
    Object.fromEntries(
      [
        'Endpoints',
        'TLS',
        'Username',
        'Password',
        'DB',
        'PoolSize',
        'MinIdleConns',
        'MaxActiveConns',
        'ReadTimeout',
        'WriteTimeout',
        'DialTimeout',
      ].map((k) => [k, any]),
    ),
  ),
});
const MIDDLEWARES = [
  'AddPrefix',
  'StripPrefix',
  'StripPrefixRegex',
  'ReplacePath',
  'ReplacePathRegex',
  'Chain',
  'IPWhiteList',
  'IPAllowList',
  'Headers',
  'EncodedCharacters',
  'Errors',
  'RedirectRegex',
  'RedirectScheme',
  'BasicAuth',
  'DigestAuth',
  'ForwardAuth',
  'InFlightReq',
  'Buffering',
  'CircuitBreaker',
  'Compress',
  'PassTLSClientCert',
  'Retry',
  'ContentType',
  'GrpcWeb',
  'Plugin',
  'RequestHeaderModifier',
  'ResponseHeaderModifier',
  'RequestRedirect',
  'URLRewrite',
];
const middleware = goStruct({
  ...Object.fromEntries(MIDDLEWARES.map((m) => [m, any])),
  RateLimit: rateLimit,
});
const dynamicConfig = goStruct({
  HTTP: goStruct({
    Routers: any,
    Services: any,
    Middlewares: v.record(v.string(), middleware),
    Models: any,
    ServersTransports: any,
  }),
  TCP: any,
  UDP: any,
  TLS: any,
});

type RL = {
  average: unknown;
  period: unknown;
  burst: unknown;
  sourceCriterion: Record<string, unknown>;
};
type Doc = { http: { middlewares: Record<string, { rateLimit: RL }> } };
function docOf(c: TokenBucketConfig, name = 'rate-limit'): Doc {
  return parse(textOf(toTraefik(c, { name }))) as Doc;
}
const rl = (d: Doc): RL => Object.values(d.http.middlewares)[0]!.rateLimit;
const DEFAULT = traefik.defaultConfig as TokenBucketConfig;

describe('Traefik export against pkg/config/dynamic (v3.7.9)', () => {
  it('the system default: every field known (as paerser matches names), typed and in range', () => {
    expectValid(dynamicConfig, docOf(DEFAULT));
  });

  it('any token bucket: the whole file', () => {
    fc.assert(
      fc.property(tokenBuckets, (c) => expectValid(dynamicConfig, docOf(c))),
      RUNS,
    );
  });

  it('average and burst: YAML integers (int64), ≥ 1 so that they limit', () => {
    fc.assert(
      fc.property(tokenBuckets, (c) => {
        const r = rl(docOf(c));
        for (const n of [r.average, r.burst]) {
          expectValid(int64, n);
          expect(n).toBeGreaterThanOrEqual(1);
        }
      }),
      RUNS,
    );
  });

  it('period: a Go duration string that time.ParseDuration reads', () => {
    fc.assert(
      fc.property(tokenBuckets, (c) => {
        const p = rl(docOf(c)).period;
        expect(typeof p).toBe('string');
        expect(parseGoDuration(p as string)).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });

  it('sourceCriterion: ipStrategy with depth 0 (the remote address), not a standalone element', () => {
    const sc = rl(docOf(DEFAULT)).sourceCriterion;
    expectValid(sourceCriterion, sc);
    expect(sc).toEqual({ ipStrategy: { depth: 0 } });
    expect(problems(sourceCriterion, { ipStrategy: {} })).toEqual([
      'ipStrategy: cannot be a standalone element',
    ]);
  });

  it('the middleware name is the map key, as given', () => {
    expect(Object.keys(docOf(DEFAULT, 'api_limit').http.middlewares)).toEqual(['api_limit']);
  });

  describe('each check can fail: a mutated export is rejected at that field', () => {
    const good = docOf(DEFAULT);
    const at = 'http.middlewares.rate-limit.rateLimit';
    const cases: [string, (d: Doc) => void, string][] = [
      ['average 2.5', (d) => (rl(d).average = 2.5), `${at}.average`],
      ['average as text', (d) => (rl(d).average = 'ten'), `${at}.average`],
      ['period "1 second"', (d) => (rl(d).period = '1 second'), `${at}.period`],
      ['period "1sec"', (d) => (rl(d).period = '1sec'), `${at}.period`],
      ['period negative', (d) => (rl(d).period = '-1s'), `${at}.period`],
      ['burst 1e30', (d) => (rl(d).burst = 1e30), `${at}.burst`],
      [
        'unknown field maxDelay',
        (d) => ((rl(d) as Record<string, unknown>).maxDelay = '1s'),
        `${at}.maxDelay`,
      ],
      [
        'depth −1',
        (d) => (rl(d).sourceCriterion = { ipStrategy: { depth: -1 } }),
        `${at}.sourceCriterion.ipStrategy.depth`,
      ],
      [
        'unknown middleware type',
        (d) => ((d.http.middlewares['rate-limit'] as Record<string, unknown>).rateLimiter = {}),
        'http.middlewares.rate-limit.rateLimiter',
      ],
    ];
    itRejectsEach(dynamicConfig, good, cases);
  });
});

describe('Traefik export means what the lab simulates', () => {
  it('average / period = the lab rate exactly; burst = the bucket', () => {
    fc.assert(
      fc.property(tokenBuckets, (c) => {
        const r = rl(docOf(c));
        const periodMs = parseGoDuration(r.period as string)! / 1e6;
        expect(periodMs).toBe(c.fillIntervalMs);
        expect(r.average).toBe(c.tokensPerFill);
        expect(r.burst).toBe(c.maxTokens);
      }),
      RUNS,
    );
  });
});
