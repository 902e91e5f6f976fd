/**
 * Traefik's `rateLimit` middleware as dynamic configuration (file provider, YAML):
 * `http.middlewares.<name>.rateLimit` with `average`, `period`, `burst` and `sourceCriterion`.
 *
 * Field names and meanings: docs/content/reference/routing-configuration/http/middlewares/ratelimit.md
 * (traefik v3.7.9): "the rate is defined by dividing average by period", burst is the bucket size.
 * The default source criterion when none is given is `ipStrategy: {}` — the request's remote
 * address (pkg/middlewares/ratelimiter/rate_limiter.go, v3.7.9); it is written out so the key is
 * visible. maxDelay is not a field: Traefik computes it from the rate (src/systems/traefik.ts).
 */
import { stringify } from 'yaml';
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig } from '../core';
import {
  goDurationString,
  traefikMaxDelayExact,
  traefikMaxDelayMs,
  traefikMaxDelayNs,
  traefikTtlSeconds,
} from '../systems';
import { goDurationNs } from '../systems/respond/traefik';
import type { SystemExportOutcome } from './systems-types';

export interface TraefikOptions {
  /** The middleware's name. Default 'rate-limit'. */
  name?: string;
  /**
   * The scenario's instances share one store: the export gives the middleware a `redis` section,
   * so every Traefik instance decides on one bucket per source in Redis, as the lab does.
   * `timeoutMs`: the store model's call timeout (a slower call fails), written as `readTimeout`.
   * `layered`: a local limit runs in front of the store, which one middleware cannot express.
   * `racy`: the lab's store is read and written back apart, where Traefik's script is atomic.
   */
  redis?: { timeoutMs?: number; layered?: boolean; racy?: boolean };
}

/**
 * Traefik's default Redis address (Redis.SetDefaults, pkg/config/dynamic/middlewares.go v3.7.9;
 * the ratelimit reference page's `redis.endpoints` default): written out so it can be edited.
 */
export const TRAEFIK_REDIS_ENDPOINT = 'localhost:6379';

/**
 * The `redis` section of the ratelimit middleware (docs/content/reference/routing-configuration/
 * http/middlewares/ratelimit.md and pkg/config/dynamic/middlewares.go Redis, traefik v3.7.9):
 * `endpoints`, a list of host:port (default ["localhost:6379"]); `readTimeout`, a duration
 * (default 3s): redis_limiter.go gives go-redis ReadTimeout, and a reply slower than it fails the
 * script's call, which rate_limiter.go answers 500. Only what the lab models is written; the other
 * options (username, password, db, pool sizes, writeTimeout, dialTimeout, tls) keep their defaults.
 */
function redisSection(redis: NonNullable<TraefikOptions['redis']>): Record<string, unknown> {
  return {
    endpoints: [TRAEFIK_REDIS_ENDPOINT],
    ...(redis.timeoutMs === undefined ? {} : { readTimeout: traefikPeriod(redis.timeoutMs) }),
  };
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;

/** A Go duration as people write it: "1s", "1m", "90s" → "1m30s", "250ms". */
export function traefikPeriod(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return goDurationString(ms);
}

export function toTraefik(
  config: AlgorithmConfig,
  options: TraefikOptions = {},
): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  const name = options.name ?? 'rate-limit';
  if (!NAME.test(name)) {
    throw new Error(
      `Traefik middleware name: expected letters, digits, "-" or "_" (at most 63), got ${JSON.stringify(name)}`,
    );
  }
  if (c.kind !== 'token-bucket') {
    return {
      ok: false,
      target: 'traefik',
      kind: c.kind,
      reason:
        "Traefik's rateLimit is a token bucket (golang x/time/rate): choose the Traefik system, or a token bucket, to export it.",
    };
  }
  const doc = {
    http: {
      middlewares: {
        [name]: {
          rateLimit: {
            average: c.tokensPerFill,
            period: traefikPeriod(c.fillIntervalMs),
            burst: c.maxTokens,
            sourceCriterion: { ipStrategy: { depth: 0 } },
            ...(options.redis === undefined ? {} : { redis: redisSection(options.redis) }),
          },
        },
      },
    },
  };
  const maxDelayMs = traefikMaxDelayMs(c.tokensPerFill, c.fillIntervalMs);
  const maxDelayNs = traefikMaxDelayNs(c.tokensPerFill, c.fillIntervalMs);
  const exact = traefikMaxDelayExact(c.tokensPerFill, c.fillIntervalMs);
  const differences: string[] = [];
  if ((c.maxDelayMs ?? 0) !== maxDelayMs || c.maxDelayNs !== (exact ? undefined : maxDelayNs)) {
    differences.push(
      `Traefik lets a request wait up to ${exact ? `${maxDelayMs} ms` : goDurationNs(maxDelayNs)} for its token (1/(2·rate), 500 ms below 1 r/s) and you cannot change that; this limiter ${c.maxDelayMs === undefined || c.maxDelayMs === 0 ? 'never delays' : `waits up to ${c.maxDelayMs} ms`}. Choose the Traefik system to see Traefik's delays.`,
    );
  }
  if (c.refill === 'interval') {
    differences.push(
      'Traefik refills continuously (x/time/rate); this limiter adds whole tokens on a timer.',
    );
  }
  const idle = traefikTtlSeconds(c.tokensPerFill, c.fillIntervalMs);
  const redis = options.redis;
  if (redis?.layered === true) {
    differences.push(
      'The lab runs a local limit on each replica in front of the shared store (layered); this export is the shared limit alone. Chain an in-memory rateLimit middleware (without redis) before it for the local one.',
    );
  }
  if (redis?.racy === true) {
    differences.push(
      'The lab’s shared state is racy (each instance reads, decides and writes back later); Traefik’s Redis script reads and writes in one atomic step, so it does not let through the extra requests the race does.',
    );
  }
  const shared =
    redis === undefined
      ? [
          `Each source IP has its own bucket; Traefik forgets a source after ${idle} s without requests (ttl), and it starts again full.`,
          'sourceCriterion ipStrategy depth 0 is the default (the connection’s remote address); behind another proxy set depth or requestHeaderName.',
          'Each Traefik instance has its own buckets: N replicas allow N times the rate (redis: shares them).',
        ]
      : [
          `Every Traefik instance shares one bucket per source IP in Redis (key rate:<middleware>:<source>), updated by one Lua script per request; Redis expires a source's key ${idle} s after its last request.`,
          'sourceCriterion ipStrategy depth 0 is the default (the connection’s remote address); behind another proxy set depth or requestHeaderName.',
          `Point endpoints at the Redis every Traefik instance shares (${TRAEFIK_REDIS_ENDPOINT} is Traefik’s default); add username, password, db or tls as your Redis needs.`,
          `When Redis cannot be reached${redis.timeoutMs === undefined ? ' (or answers slower than readTimeout, 3s by default)' : ` or answers slower than readTimeout (${traefikPeriod(redis.timeoutMs)})`}, Traefik answers 500 "Could not insert/update bucket": it has no fail-open setting.`,
        ];
  return {
    ok: true,
    target: 'traefik',
    language: 'yaml',
    text: `# Dynamic configuration (file provider). Attach with: middlewares: [${name}]\n${stringify(doc)}`,
    assumes:
      redis === undefined
        ? 'Traefik v3 (rules read in v3.7.9: pkg/middlewares/ratelimiter); the in-memory limiter, no redis:'
        : 'Traefik v3 (rules read in v3.7.9: pkg/middlewares/ratelimiter); the Redis limiter (redis:, redis_limiter.go and lua.go), one Redis every instance reaches',
    differences,
    notes: [
      'A request without a token waits for it when that takes at most maxDelay, else gets 429 with Retry-After and X-Retry-In.',
      ...shared,
    ],
  };
}
