/**
 * The Spring Cloud Gateway export, field by field, against the gateway's own classes at master
 * 5227205 (5.0.3+, the version src/systems/spring-gateway.ts cites), module
 * spring-cloud-gateway-server-webflux, package org.springframework.cloud.gateway:
 * - config/GatewayProperties.java: PREFIX = "spring.cloud.gateway.server.webflux" (line 45);
 *   fields routes (@NotNull @Valid), defaultFilters, streamingMediaTypes,
 *   failOnRouteDefinitionError, routeFilterCacheEnabled, trustedProxies. The old
 *   "spring.cloud.gateway.routes" is only in the legacy spring-cloud-gateway-server module's
 *   metadata (deprecated since 4.3.0, replacement spring.cloud.gateway.server.webflux.routes),
 *   and that module is no longer in the build (pom.xml modules).
 * - route/RouteDefinition.java: id, predicates (@NotEmpty), filters, uri, metadata, order, enabled.
 * - filter/FilterDefinition.java: name, args (Map<String, String>).
 * - filter/factory/RequestRateLimiterGatewayFilterFactory.java Config: keyResolver, rateLimiter,
 *   statusCode, denyEmptyKey, emptyKeyStatus, throwOnLimit, routeId.
 * - filter/ratelimit/RedisRateLimiter.java: CONFIGURATION_PROPERTY_NAME "redis-rate-limiter";
 *   Config (lines 325-370): replenishRate int @Min(1), burstCapacity long @Min(0) (≤
 *   REDIS_LUA_MAX_SAFE_INTEGER 9007199254740991, asserted in its setter), requestedTokens int
 *   @Min(1). AbstractRateLimiter binds the args whose key starts with "redis-rate-limiter.".
 * Spring Boot binds these names relaxed: case and dashes do not matter (replenishRate =
 * replenish-rate), so names are compared in that uniform form.
 * setBurstCapacity also asserts burstCapacity ≥ replenishRate, but Spring Boot's JavaBeanBinder
 * binds a bean's properties in method-name order (getSorted(…, Method::getName)), so
 * burstCapacity is set while replenishRate is still 0 and the assertion never fires from args;
 * the lab's burstCapacity < replenishRate is therefore not a schema error.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../../src/core';
import { MAX_COUNT } from '../../../src/core';
import { toSpringGateway } from '../../../src/export';
import { springGateway } from '../../../src/systems/spring-gateway';
import {
  RUNS,
  expectValid,
  javaInt,
  mutated,
  namedLike,
  problems,
  textOf,
  itRejectsEach,
} from './check';

/** Spring Boot's uniform form of a property name: lower case, no dashes. */
const uniform = (name: string): string => name.toLowerCase().replaceAll('-', '');
const relaxed = (fields: Record<string, v.GenericSchema>) => namedLike(fields, uniform);

const javaLongRedisSafe = v.pipe(
  v.number(),
  v.safeInteger(),
  v.minValue(0),
  v.maxValue(9_007_199_254_740_991),
);
const atLeast1 = v.pipe(javaInt, v.minValue(1));
/** RequestRateLimiter's args: its own Config and RedisRateLimiter.Config under redis-rate-limiter. */
const rateLimiterArgs = relaxed({
  'key-resolver': v.pipe(
    v.string(),
    v.regex(/^#\{@[A-Za-z_$][\w$]*\}$/, 'a SpEL bean reference #{@name}'),
  ),
  'rate-limiter': v.string(),
  'status-code': v.union([v.string(), javaInt]),
  'deny-empty-key': v.boolean(),
  'empty-key-status': v.string(),
  'throw-on-limit': v.boolean(),
  'route-id': v.string(),
  'redis-rate-limiter.replenish-rate': atLeast1,
  'redis-rate-limiter.burst-capacity': javaLongRedisSafe,
  'redis-rate-limiter.requested-tokens': atLeast1,
});
const filter = v.strictObject({ name: v.literal('RequestRateLimiter'), args: rateLimiterArgs });
const route = relaxed({
  id: v.pipe(v.string(), v.minLength(1)),
  predicates: v.pipe(v.array(v.pipe(v.string(), v.regex(/^Path=\S+$/))), v.minLength(1)),
  filters: v.array(filter),
  uri: v.pipe(v.string(), v.url()),
  metadata: v.record(v.string(), v.unknown()),
  order: javaInt,
  enabled: v.boolean(),
});
const webflux = relaxed({
  routes: v.array(route),
  'default-filters': v.array(v.unknown()),
  'streaming-media-types': v.array(v.string()),
  'fail-on-route-definition-error': v.boolean(),
  'route-filter-cache-enabled': v.boolean(),
  'trusted-proxies': v.string(),
});
const applicationYml = v.strictObject({
  spring: v.strictObject({
    cloud: v.strictObject({
      gateway: v.strictObject({ server: v.strictObject({ webflux }) }),
    }),
  }),
});

type Args = Record<string, unknown>;
type Doc = {
  spring: {
    cloud: {
      gateway: { server: { webflux: { routes: { filters: { name: string; args: Args }[] }[] } } };
    };
  };
};
const argsOf = (d: Doc): Args => d.spring.cloud.gateway.server.webflux.routes[0]!.filters[0]!.args;
function docOf(c: TokenBucketConfig): Doc {
  return parse(textOf(toSpringGateway(c))) as Doc;
}
const DEFAULT = springGateway.defaultConfig as TokenBucketConfig;
const springBuckets: fc.Arbitrary<TokenBucketConfig> = fc.record({
  kind: fc.constant('token-bucket' as const),
  maxTokens: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: MAX_COUNT })),
  tokensPerFill: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: MAX_COUNT })),
  fillIntervalMs: fc.constant(1000),
  refill: fc.constant('interval' as const),
});

describe('Spring Cloud Gateway export against RedisRateLimiter / GatewayProperties (5.0.3+)', () => {
  it('the system default: every property known, typed and in range', () => {
    expectValid(applicationYml, docOf(DEFAULT));
  });

  it('routes sit under spring.cloud.gateway.server.webflux, where 5.0 reads them', () => {
    const doc = docOf(DEFAULT) as unknown as {
      spring: { cloud: { gateway: Record<string, unknown> } };
    };
    expect(Object.keys(doc.spring.cloud.gateway)).toEqual(['server']);
    // The pre-4.3 shape (spring.cloud.gateway.routes), as this export wrote it before: refused.
    const old = { spring: { cloud: { gateway: { routes: doc.spring.cloud.gateway.server } } } };
    expect(problems(applicationYml, old)).toContain(
      'spring.cloud.gateway.routes: Invalid key: Expected never but received "routes"',
    );
  });

  it('any bucket the Spring system accepts: the whole file', () => {
    fc.assert(
      fc.property(springBuckets, (c) => expectValid(applicationYml, docOf(c))),
      RUNS,
    );
  });

  it('redis-rate-limiter.*: replenishRate and requestedTokens int ≥ 1, burstCapacity long ≥ 0', () => {
    fc.assert(
      fc.property(springBuckets, (c) => {
        const args = argsOf(docOf(c));
        expect(
          Object.keys(args)
            .filter((k) => k.startsWith('redis-rate-limiter.'))
            .sort(),
        ).toEqual([
          'redis-rate-limiter.burstCapacity',
          'redis-rate-limiter.replenishRate',
          'redis-rate-limiter.requestedTokens',
        ]);
        expectValid(rateLimiterArgs, args);
      }),
      RUNS,
    );
  });

  it('key-resolver: a SpEL reference to the KeyResolver bean the notes ask for', () => {
    const out = toSpringGateway(DEFAULT);
    expect(argsOf(docOf(DEFAULT))['key-resolver']).toBe('#{@clientKeyResolver}');
    expect(out.ok && out.notes.join(' ')).toContain('clientKeyResolver is a KeyResolver bean');
  });

  it('the route: id, uri, one Path predicate, the RequestRateLimiter filter', () => {
    const r = docOf(DEFAULT).spring.cloud.gateway.server.webflux.routes[0] as unknown;
    expectValid(route, r);
    expect(r).toMatchObject({ id: 'limited', predicates: ['Path=/**'] });
  });

  describe('each check can fail: a mutated export is rejected at that field', () => {
    const good = docOf(DEFAULT);
    const at = 'spring.cloud.gateway.server.webflux.routes.0';
    const cases: [string, (d: Doc) => void, string][] = [
      [
        'replenishRate 0',
        (d) => (argsOf(d)['redis-rate-limiter.replenishRate'] = 0),
        `${at}.filters.0.args.redis-rate-limiter.replenishRate`,
      ],
      [
        'replenishRate 2^31',
        (d) => (argsOf(d)['redis-rate-limiter.replenishRate'] = 2 ** 31),
        `${at}.filters.0.args.redis-rate-limiter.replenishRate`,
      ],
      [
        'burstCapacity −1',
        (d) => (argsOf(d)['redis-rate-limiter.burstCapacity'] = -1),
        `${at}.filters.0.args.redis-rate-limiter.burstCapacity`,
      ],
      [
        'burstCapacity 2.5',
        (d) => (argsOf(d)['redis-rate-limiter.burstCapacity'] = 2.5),
        `${at}.filters.0.args.redis-rate-limiter.burstCapacity`,
      ],
      [
        'requestedTokens 0',
        (d) => (argsOf(d)['redis-rate-limiter.requestedTokens'] = 0),
        `${at}.filters.0.args.redis-rate-limiter.requestedTokens`,
      ],
      [
        'misspelt replenishRate',
        (d) => {
          argsOf(d)['redis-rate-limiter.replenishRates'] = 5;
          delete argsOf(d)['redis-rate-limiter.replenishRate'];
        },
        `${at}.filters.0.args.redis-rate-limiter.replenishRates`,
      ],
      [
        'key-resolver not SpEL',
        (d) => (argsOf(d)['key-resolver'] = 'clientKeyResolver'),
        `${at}.filters.0.args.key-resolver`,
      ],
      [
        'filter name',
        (d) =>
          ((d.spring.cloud.gateway.server.webflux.routes[0]!.filters[0] as { name: string }).name =
            'RateLimiter'),
        `${at}.filters.0.name`,
      ],
      [
        'no predicates',
        (d) => ((d.spring.cloud.gateway.server.webflux.routes[0] as Args).predicates = []),
        `${at}.predicates`,
      ],
      [
        'unknown route field',
        (d) => ((d.spring.cloud.gateway.server.webflux.routes[0] as Args).url = 'x'),
        `${at}.url`,
      ],
    ];
    itRejectsEach(applicationYml, good, cases);
    it('relaxed names are accepted as Spring binds them', () => {
      const kebab = mutated(good, (d) => {
        const args = argsOf(d);
        args['redis-rate-limiter.replenish-rate'] = args['redis-rate-limiter.replenishRate'];
        delete args['redis-rate-limiter.replenishRate'];
      });
      expectValid(applicationYml, kebab);
    });
  });
});

describe('Spring Cloud Gateway export means what the lab simulates', () => {
  it('replenishRate = tokens per 1 s fill, burstCapacity = bucket size, requestedTokens = 1', () => {
    fc.assert(
      fc.property(springBuckets, (c) => {
        const args = argsOf(docOf(c));
        expect(args['redis-rate-limiter.replenishRate']).toBe(c.tokensPerFill);
        expect(args['redis-rate-limiter.burstCapacity']).toBe(c.maxTokens);
        expect(args['redis-rate-limiter.requestedTokens']).toBe(1);
      }),
      RUNS,
    );
  });

  it('anything but a 1 s interval refill is refused: RedisRateLimiter refills once per Redis second', () => {
    for (const c of [
      { ...DEFAULT, fillIntervalMs: 500 },
      { ...DEFAULT, refill: 'continuous' as const },
    ]) {
      expect(toSpringGateway(c).ok).toBe(false);
    }
  });
});
