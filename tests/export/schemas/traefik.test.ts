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
import type { TraefikOptions } from '../../../src/export';
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
/**
 * Redis (pkg/config/dynamic/middlewares.go, v3.7.9) with its Go types: Endpoints []string,
 * Username/Password string, DB/PoolSize/MinIdleConns/MaxActiveConns int, Read/Write/DialTimeout
 * *ptypes.Duration, TLS *types.ClientTLS (not written by the export). The reference page
 * (docs/content/reference/routing-configuration/http/middlewares/ratelimit.md) lists the same
 * options, endpoints as "host:port" entries.
 */
const goInt = v.pipe(v.number(), v.integer());
const endpoints = v.pipe(
  v.array(v.pipe(v.string(), v.regex(/^[^\s:]+:\d{1,5}$/, 'a host:port address'))),
  v.minLength(1, 'at least one endpoint'),
);
const redis = goStruct({
  Endpoints: endpoints,
  TLS: any,
  Username: v.string(),
  Password: v.string(),
  DB: goInt,
  PoolSize: goInt,
  MinIdleConns: goInt,
  MaxActiveConns: goInt,
  ReadTimeout: paerserDuration,
  WriteTimeout: paerserDuration,
  DialTimeout: paerserDuration,
});
const rateLimit = goStruct({
  Average: int64,
  Period: paerserDuration,
  Burst: int64,
  SourceCriterion: sourceCriterion,
  Redis: redis,
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
  redis?: Record<string, unknown>;
};
type Doc = { http: { middlewares: Record<string, { rateLimit: RL }> } };
function docOf(c: TokenBucketConfig, name = 'rate-limit', shared?: TraefikOptions['redis']): Doc {
  const options = { name, ...(shared === undefined ? {} : { redis: shared }) };
  return parse(textOf(toTraefik(c, options))) as Doc;
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

describe('Traefik export with a shared store: the redis section (v3.7.9)', () => {
  const timeouts = fc.option(fc.integer({ min: 1, max: 3_600_000 }), { nil: undefined });

  it('no shared store: no redis section (the in-memory limiter)', () => {
    expect(rl(docOf(DEFAULT)).redis).toBeUndefined();
  });

  it('any token bucket and store timeout: the whole file', () => {
    fc.assert(
      fc.property(tokenBuckets, timeouts, (c, t) =>
        expectValid(dynamicConfig, docOf(c, 'rate-limit', t === undefined ? {} : { timeoutMs: t })),
      ),
      RUNS,
    );
  });

  it('redis: only endpoints and readTimeout, the options the lab models', () => {
    expect(Object.keys(rl(docOf(DEFAULT, 'rate-limit', {})).redis ?? {})).toEqual(['endpoints']);
    expect(Object.keys(rl(docOf(DEFAULT, 'rate-limit', { timeoutMs: 20 })).redis ?? {})).toEqual([
      'endpoints',
      'readTimeout',
    ]);
  });

  it("endpoints: a list of one host:port, Traefik's default address", () => {
    const e = rl(docOf(DEFAULT, 'rate-limit', {})).redis?.endpoints;
    expectValid(endpoints, e);
    expect(e).toEqual(['localhost:6379']);
  });

  it("readTimeout: the store's timeout as a Go duration of the same length; absent without one", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_600_000 }), (t) => {
        const r = rl(docOf(DEFAULT, 'rate-limit', { timeoutMs: t })).redis?.readTimeout;
        expectValid(paerserDuration, r);
        expect(typeof r).toBe('string');
        expect(parseGoDuration(r as string)).toBe(t * 1e6);
      }),
      RUNS,
    );
    expect(rl(docOf(DEFAULT, 'rate-limit', {})).redis).not.toHaveProperty('readTimeout');
  });

  it('the notes say what Traefik does when Redis is down, and no longer "N times the rate"', () => {
    const out = toTraefik(DEFAULT, { redis: {} });
    if (!out.ok) throw new Error(out.reason);
    expect(out.notes.join('\n')).toMatch(/answers 500 "Could not insert\/update bucket"/);
    expect(out.notes.join('\n')).not.toMatch(/N times the rate/);
    expect(out.assumes).toMatch(/Redis limiter/);
  });

  describe('each check can fail: a mutated redis section is rejected at that field', () => {
    const good = docOf(DEFAULT, 'rate-limit', { timeoutMs: 20 });
    const at = 'http.middlewares.rate-limit.rateLimit.redis';
    const red = (d: Doc): Record<string, unknown> => rl(d).redis as Record<string, unknown>;
    const cases: [string, (d: Doc) => void, string][] = [
      ['endpoints without a port', (d) => (red(d).endpoints = ['localhost']), `${at}.endpoints.0`],
      ['endpoints empty', (d) => (red(d).endpoints = []), `${at}.endpoints`],
      ['endpoints a number', (d) => (red(d).endpoints = 6379), `${at}.endpoints`],
      ['readTimeout "3 seconds"', (d) => (red(d).readTimeout = '3 seconds'), `${at}.readTimeout`],
      ['readTimeout negative', (d) => (red(d).readTimeout = '-1s'), `${at}.readTimeout`],
      ['unknown field host', (d) => (red(d).host = 'localhost'), `${at}.host`],
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
