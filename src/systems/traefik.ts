/**
 * Traefik's `RateLimit` middleware, traefik v3.7 (in-memory limiter), on the token-bucket
 * algorithm with `maxDelayMs`: its buckets are golang.org/x/time/rate Limiters.
 *
 * Rules (pkg/middlewares/ratelimiter/rate_limiter.go and in_memory_limiter.go, traefik v3.7.9):
 * - rate = average / period requests per second (period 0 means 1 s; average 0 means no limit,
 *   which the playground does not offer); burst = max(burst, 1); a new source's bucket is
 *   `rate.NewLimiter(rate, burst)`, which starts full.
 * - each request calls `bucket.Reserve()`; if the reservation's delay > maxDelay the reservation is
 *   cancelled (the token goes back) and the request gets 429; else it waits the delay and passes.
 * - maxDelay = 500 ms when rate < 1/s, else `time.Second / (time.Duration(rate) * 2)`: 1/(2·⌊rate⌋) s
 *   in whole ns (83,333,333 ns at 6 r/s: the config's maxDelayNs; a request waits when its wait,
 *   truncated to ns as x/time/rate's durationFromTokens does, is at most that).
 * - the 429 (serveDelayError) carries `Retry-After: ⌈delay in s⌉` and `X-Retry-In: delay.String()`
 *   (the reservation's delay in ns, e.g. "83.333333ms"),
 *   body "Too Many Requests".
 * - a source's bucket is dropped when no request touched it for `ttl` whole Unix seconds
 *   (ttlmap.go: expiry = ⌊touch⌋ + ttl seconds, expired when expiry ≤ ⌊now⌋), ttl = 2 s when
 *   rate ≥ 1/s, else 1 + int(1/rate) s on float64; a dropped source starts again with a full bucket.
 * - with a store every instance shares, Traefik's bucket is its Redis limiter's (`redis:`,
 *   redis_limiter.go and lua.go): src/core/algorithms/traefik-redis.ts (createSharedLimiter).
 */
import type { AlgorithmConfig } from '../core';
import type { SystemInfo } from './types';

export const TRAEFIK_VERSION = 'traefik v3.7.9';
const VERSION = TRAEFIK_VERSION;

/** ⌊rate⌋ in requests per second for `average` per `periodMs`. */
function wholeRate(average: number, periodMs: number): number {
  return Math.floor((average * 1000) / periodMs);
}

/**
 * Traefik's maxDelay in ns (rate_limiter.go): 500 ms below 1 r/s, else
 * `time.Second / (time.Duration(rtl) * 2)`, an integer division of ns: ⌊10^9 / (2·⌊rate⌋)⌋.
 */
export function traefikMaxDelayNs(average: number, periodMs: number): number {
  const r = wholeRate(average, periodMs);
  return r < 1 ? 500_000_000 : Math.floor(1_000_000_000 / (2 * r));
}

/** Traefik's maxDelay in whole ms, ⌊maxDelayNs / 10^6⌋ (the config's maxDelayMs). */
export function traefikMaxDelayMs(average: number, periodMs: number): number {
  return Math.floor(traefikMaxDelayNs(average, periodMs) / 1_000_000);
}

/** Whether Traefik's maxDelay is a whole number of ms (else the config carries maxDelayNs). */
export function traefikMaxDelayExact(average: number, periodMs: number): boolean {
  return traefikMaxDelayNs(average, periodMs) % 1_000_000 === 0;
}

/** The ttl in seconds after which an untouched source starts afresh. */
export function traefikTtlSeconds(average: number, periodMs: number): number {
  // rtl = float64(average·1e9) / float64(period in ns); 1 + (rtl ≥ 1 ? 1 : int(1 / rtl)), the
  // float64 quotient 1 / rtl truncated: 98 + 1 at 1 per 99 s, where 1/rtl is 98.99999999999999.
  if (average * 1000 >= periodMs) return 2;
  const rtl = (average * 1e9) / (periodMs * 1e6);
  return 1 + Math.trunc(1 / rtl);
}

/** Go's time.Duration.String() for whole ms ("450ms", "1.5s", "2m0.5s"). */
export function goDurationString(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sMs = ms % 60_000;
  const whole = Math.floor(sMs / 1000);
  const frac = String(sMs % 1000)
    .padStart(3, '0')
    .replace(/0+$/, '');
  const s = `${whole}${frac === '' ? '' : `.${frac}`}s`;
  if (h > 0) return `${h}h${m}m${s}`;
  if (m > 0) return `${m}m${s}`;
  return s;
}

export const traefik: SystemInfo = {
  id: 'traefik',
  name: 'Traefik RateLimit',
  version: VERSION,
  group: 'Proxies and gateways',
  kind: 'token-bucket',
  algorithms: ['token-bucket'],
  urlName: 'traefik',
  summary:
    'A golang x/time/rate bucket of burst tokens refilled at average per period; a request without a token waits for it when that takes at most 1/(2·rate), else gets 429.',
  // pkg/middlewares/extractor.go (traefik) and vulcand/oxy utils/source.go makeHeaderExtractor:
  // the source is `req.Header.Get(name)` with no error, "" when the header is missing (an
  // ipStrategy depth past the hops gives "" too), and rate_limiter.go buckets by that string:
  // every such request shares the bucket of the key "".
  emptyKey: 'shared',
  params: [
    {
      key: 'average',
      field: 'tokensPerFill',
      help: 'Requests per period on average (the bucket refills at average / period).',
      input: 'int',
    },
    {
      key: 'period',
      field: 'fillIntervalMs',
      unit: 'ms',
      url: 'duration',
      help: 'The period of average.',
      input: 'int',
      implied: 1000,
    },
    {
      key: 'burst',
      field: 'maxTokens',
      help: 'Bucket size: requests that pass at once.',
      input: 'int',
      implied: 1,
    },
  ],
  defaultConfig: {
    kind: 'token-bucket',
    maxTokens: 10,
    tokensPerFill: 5,
    fillIntervalMs: 1000,
    maxDelayMs: traefikMaxDelayMs(5, 1000),
    idleResetS: traefikTtlSeconds(5, 1000),
  },
  derive(config: AlgorithmConfig): AlgorithmConfig {
    if (config.kind !== 'token-bucket') return config;
    const { kind, maxTokens, tokensPerFill, fillIntervalMs } = config;
    return {
      kind,
      maxTokens,
      tokensPerFill,
      fillIntervalMs,
      maxDelayMs: traefikMaxDelayMs(tokensPerFill, fillIntervalMs),
      ...(traefikMaxDelayExact(tokensPerFill, fillIntervalMs)
        ? {}
        : { maxDelayNs: traefikMaxDelayNs(tokensPerFill, fillIntervalMs) }),
      idleResetS: traefikTtlSeconds(tokensPerFill, fillIntervalMs),
    };
  },
  standardHeadersSent: false,
  standardHeadersHow:
    'Traefik sends Retry-After and X-Retry-In on its 429 and nothing else, and the Traefik export does not add RateLimit headers: a headers middleware can only send constants, not a bucket’s remaining or reset. The response shown is what the exported middleware sends; RateLimit headers would have to come from your service or a plugin.',
};
