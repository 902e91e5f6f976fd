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
  return {
    ok: true,
    target: 'traefik',
    language: 'yaml',
    text: `# Dynamic configuration (file provider). Attach with: middlewares: [${name}]\n${stringify(doc)}`,
    assumes:
      'Traefik v3 (rules read in v3.7.9: pkg/middlewares/ratelimiter); the in-memory limiter, no redis:',
    differences,
    notes: [
      'A request without a token waits for it when that takes at most maxDelay, else gets 429 with Retry-After and X-Retry-In.',
      `Each source IP has its own bucket; Traefik forgets a source after ${idle} s without requests (ttl), and it starts again full.`,
      'sourceCriterion ipStrategy depth 0 is the default (the connection’s remote address); behind another proxy set depth or requestHeaderName.',
      'Each Traefik instance has its own buckets: N replicas allow N times the rate (redis: shares them).',
    ],
  };
}
