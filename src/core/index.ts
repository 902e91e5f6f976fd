/**
 * Rate Limit Lab core: the eight algorithms (./algorithms, one file each) that decide exactly as
 * the systems built on them, their decisions, inspections and explanations, the HTTP response a
 * decision makes, and the one quoting and pluralising rule. Pure TypeScript: no DOM, no React, no
 * clocks, no randomness (../../README.md, "The core").
 */
import { FixedWindowLimiter } from './algorithms/fixed-window';
import { GcraLimiter } from './algorithms/gcra';
import { LeakyBucketLimiter } from './algorithms/leaky-bucket';
import { SlidingLogLimiter } from './algorithms/sliding-log';
import { SlidingWindowCounterLimiter } from './algorithms/sliding-window-counter';
import { EntryCounterLimiter } from './algorithms/entry-counter';
import { TokenBucketLimiter } from './algorithms/token-bucket';
import { AnchoredWindowLimiter } from './algorithms/anchored-window';
import { CalendarWindowsLimiter } from './algorithms/calendar-windows';
import { TraefikRedisLimiter } from './algorithms/traefik-redis';
import { MAX_TIME_MS } from './int';
import type { AlgorithmConfig, Limiter, LimiterOptions } from './types';
import { assertAlgorithmConfig, describeValue } from './validate';

export type * from './types';
export type * from './inspect';
export { DEFAULT_KEY } from './types';
export {
  describeValue,
  checkAlgorithmConfig,
  assertAlgorithmConfig,
  RANGES,
  EXPIRE_RANGE,
  HAPROXY_DENY_STATUSES,
  ALGORITHM_KINDS,
  MAX_COUNT,
  MAX_DURATION_MS,
  MAX_CALENDAR_LIMIT,
} from './validate';
export type { ConfigIssue } from './validate';
export { QUOTE_MAX, quoteText, safeText } from './quote';
export { plural, pluralNoun } from './plural';
export { quotaOf, nginxRateMilli } from './quota';
export type { Quota } from './quota';
export { toHttpResponse, rejectStatus, toSeconds, statusText, emptyKeyOutcome } from './response';
export type { EmptyKeyRule, HttpResponse, ResponseOptions } from './response';
export { MAX_TIME_MS, NEVER_MS, floorDiv, ceilDiv, floorNs, waitFits } from './int';
// `explainDecision` is imported from './explain' itself (the inspector's chunk alone): re-exported
// here it made the first load fetch the explainer too (initial JavaScript).
export { CALENDAR_UNITS, UNIT_SECONDS, periodOf, daysFromCivil, civilFromDays } from './calendar';
export { calendarUnits } from './algorithms/calendar-windows';
export type { Explanation } from './explain';

/**
 * A limiter for `config`, its virtual time 0 standing for epoch ms `options.originMs` (default 0).
 * Throws a RangeError naming each bad field and its accepted range when the config is invalid
 * (anything but whole numbers in range: NaN, negatives, fractions, absurd sizes), or when originMs
 * is not a whole number of ms within ±MAX_TIME_MS.
 */
export function createLimiter(config: AlgorithmConfig, options?: LimiterOptions): Limiter {
  // A frozen copy: changing the caller's object later cannot change a running limiter.
  const valid = Object.freeze({ ...assertAlgorithmConfig(config) });
  const o = options?.originMs ?? 0;
  if (!Number.isSafeInteger(o) || Math.abs(o) > MAX_TIME_MS) {
    throw new RangeError(
      `originMs must be a whole number of milliseconds from -${MAX_TIME_MS} to ${MAX_TIME_MS}, got ${describeValue(o)}`,
    );
  }
  switch (valid.kind) {
    case 'fixed-window':
      return new FixedWindowLimiter(valid, o);
    case 'sliding-log':
      return new SlidingLogLimiter(valid, o);
    case 'sliding-window-counter':
      return valid.anchor === 'entry'
        ? new EntryCounterLimiter(valid, o)
        : new SlidingWindowCounterLimiter(valid, o);
    case 'token-bucket':
      return new TokenBucketLimiter(valid, o);
    case 'leaky-bucket':
      return new LeakyBucketLimiter(valid, o);
    case 'gcra':
      return new GcraLimiter(valid, o);
    case 'anchored-window':
      return new AnchoredWindowLimiter(valid, o);
    case 'calendar-windows':
      return new CalendarWindowsLimiter(valid, o);
  }
}

/**
 * The limiter of a store that every instance shares (shared state, a fleet's store) for `config`.
 * A token bucket with Traefik's bucket ttl (`idleResetS`, which only Traefik's model sets) is
 * Traefik's, and Traefik shares a bucket only through its Redis limiter: that script's limiter
 * (algorithms/traefik-redis.ts). Any other config: createLimiter's.
 */
export function createSharedLimiter(config: AlgorithmConfig, options?: LimiterOptions): Limiter {
  const limiter = createLimiter(config, options);
  return limiter instanceof TokenBucketLimiter && isTraefikBucket(limiter.config)
    ? new TraefikRedisLimiter(limiter.config, limiter.originMs)
    : limiter;
}

/**
 * Whether `config` is Traefik's bucket: a token bucket with Traefik's ttl (`idleResetS`), which
 * only Traefik's model sets. Its shared store is Traefik's Redis limiter, which has no failure
 * policy: a failed Redis call answers 500 (rate_limiter.go, traefik v3.7.9).
 */
export function isTraefikBucket(config: AlgorithmConfig): boolean {
  return config.kind === 'token-bucket' && config.idleResetS !== undefined;
}
