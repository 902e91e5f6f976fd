/**
 * Spring Cloud Gateway's `RedisRateLimiter` (spring-cloud-gateway 5.0.3+, master 5227205),
 * modelled on the token-bucket algorithm with interval refill. Its script
 * (spring-cloud-gateway-server-webflux/src/main/resources/META-INF/scripts/request_rate_limiter.lua)
 * reads `now` from Redis TIME in whole seconds (RedisRateLimiter.java passes an empty now), refills
 * delta · rate tokens for the whole seconds elapsed, capped at capacity, and takes `requested`
 * tokens when there are enough. So tokens arrive `replenishRate` at a time at every whole second
 * since the epoch: the interval token bucket with fill_interval = 1 s.
 */
import type { SystemInfo } from './types';

export const SPRING_GATEWAY_VERSION = 'spring-cloud-gateway 5.0.3+ (master 5227205)';
const V = SPRING_GATEWAY_VERSION;

/** Spring's key TTL: ⌊2 · burstCapacity / replenishRate⌋ s; 0 means the script stores nothing. */
export function springTtlSeconds(replenishRate: number, burstCapacity: number): number {
  return Math.floor((2 * burstCapacity) / replenishRate);
}

export const springGateway: SystemInfo = {
  id: 'spring-gateway',
  name: 'Spring Cloud Gateway RedisRateLimiter',
  shortName: 'Spring Cloud Gateway',
  version: V,
  group: 'Redis and app libraries',
  kind: 'token-bucket',
  algorithms: ['token-bucket'],
  urlName: 'spring-gateway',
  summary:
    'A Redis token bucket of burstCapacity tokens, refilled replenishRate tokens at every whole second (Redis TIME); each request takes requestedTokens.',
  // RequestRateLimiterGatewayFilterFactory.java: a KeyResolver that resolves empty becomes
  // EMPTY_KEY; with denyEmptyKey (default true) the request is answered emptyKeyStatusCode
  // (default FORBIDDEN, 403) without consulting the limiter.
  emptyKey: { denied: 403 },
  params: [
    {
      key: 'replenishRate',
      field: 'tokensPerFill',
      help: 'Tokens added at every whole second.',
      input: 'int',
    },
    {
      key: 'burstCapacity',
      field: 'maxTokens',
      help: 'Bucket size: the most requests passed in one second.',
      input: 'int',
      // RedisRateLimiter.java (master 376e364), Config: `private long burstCapacity = 1;` — the
      // lab starts from 10, written by the export; Spring's own 1 is shown beside the field.
      productDefault: 1,
    },
  ],
  defaultConfig: {
    kind: 'token-bucket',
    maxTokens: 10,
    tokensPerFill: 5,
    fillIntervalMs: 1000,
    refill: 'interval',
  },
  // request_rate_limiter.lua answers allowed or not at once (it returns { allowed, tokens_left }):
  // no request waits, so a config's maxDelayMs is dropped with a message.
  lacks: [
    {
      field: 'maxDelayMs',
      key: 'max_delay',
      unit: 'ms',
      neutral: 0,
      why: 'never delays a request (request_rate_limiter.lua answers allowed or denied at once)',
      instead:
        "Traefik's RateLimit makes a request wait for its token (up to its maxDelay): choose Traefik to see requests wait",
    },
  ],
  // request_rate_limiter.lua: whole seconds of Redis TIME, so one fill of `rate` per second (a
  // link names only the two parameters).
  fixedFields: { fillIntervalMs: 1000, refill: 'interval' },
  derive(config) {
    // request_rate_limiter.lua: whole seconds of Redis TIME, so one fill of `rate` per second.
    if (config.kind !== 'token-bucket') return config;
    const { maxDelayMs: _d, ...rest } = config;
    void _d;
    return { ...rest, fillIntervalMs: 1000, refill: 'interval' };
  },
  standardHeadersHow:
    'RedisRateLimiter sends its own X-RateLimit-* headers (includeHeaders, default true); no IETF headers.',
};
