/**
 * The headers an application sends from rate-limiter-flexible's answer (rate-limiter-flexible.ts has the model).
 */
import { NEVER_MS } from '../../core';
import type { AlgorithmConfig, AnchoredWindowConfig, Decision } from '../../core';
import { RATE_LIMITER_FLEXIBLE_SOURCES } from '../sources/rate-limiter-flexible';
import { makeResponse, wallClockMs } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/**
 * The headers the exported middleware sets from the RateLimiterRes it gets (the README's set):
 * on a reject Retry-After = ⌈msBeforeNext / 1000⌉ first, then X-RateLimit-Limit (points),
 * X-RateLimit-Remaining (remainingPoints = max(points − consumedPoints, 0): the count after this
 * request, known from `options.before`), X-RateLimit-Reset = ⌈(Date.now() + msBeforeNext) / 1000⌉.
 * A request delayed by execEvenly gets its headers when its Promise resolves, `delayMs` later, with
 * msBeforeNext already reduced by the delay (lib/RateLimiterMemory.js consume): the reset is the
 * window's end either way. With duration 0 msBeforeNext is −1 and neither Retry-After nor
 * X-RateLimit-Reset is sent (the exported middleware checks msBeforeNext ≥ 0).
 */
export function rateLimiterFlexibleHeaders(
  config: AnchoredWindowConfig | { kind: string },
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemHeader[] {
  const c = config.kind === 'anchored-window' ? (config as AnchoredWindowConfig) : undefined;
  const points = c?.limit ?? decision.limit;
  const cost = c?.cost ?? 1;
  const reject = decision.outcome === 'reject';
  // lib/RateLimiterMemory.js: msBeforeNext is the record's time to expiry; after a delay, less it.
  // A record that never expires (duration 0) reports −1 (MemoryStorage.js incrby / set).
  const never = (reject ? decision.retryAfterMs : decision.resetMs) === NEVER_MS;
  const msBeforeNext = never
    ? -1
    : reject
      ? decision.retryAfterMs
      : Math.max(decision.resetMs - decision.delayMs, 0);
  // The count the request met (0 in a new window); without it, only an admit tells the count.
  const before = options.before;
  const met =
    before?.kind === 'anchored-window'
      ? before.windowStartMs === null
        ? 0
        : before.count
      : undefined;
  const remainingPoints =
    met === undefined ? decision.remaining * cost : Math.max(points - (met + cost), 0);
  const resolvedAtMs = wallClockMs(options) + decision.delayMs;
  const fields: SystemHeader[] = [];
  // With duration 0 (msBeforeNext −1) the exported middleware leaves out the two headers that
  // carry a time: there is none, and a Retry-After of 0 would tell the client to retry at once.
  if (reject && !never) {
    fields.push({
      name: 'Retry-After',
      value: String(Math.ceil(msBeforeNext / 1000)),
      added: true,
    });
  }
  fields.push(
    { name: 'X-RateLimit-Limit', value: String(points), added: true },
    { name: 'X-RateLimit-Remaining', value: String(reject ? 0 : remainingPoints), added: true },
  );
  if (!never) {
    fields.push({
      name: 'X-RateLimit-Reset',
      value: String(Math.ceil((resolvedAtMs + msBeforeNext) / 1000)),
      added: true,
    });
  }
  return fields;
}

/** What rateLimiterFlexible sends for `decision` (SystemModel.response). */
export function rateLimiterFlexibleResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  return makeResponse(
    decision.outcome === 'reject' ? 429 : 200,
    rateLimiterFlexibleHeaders(config, decision, options),
    RATE_LIMITER_FLEXIBLE_SOURCES,
  );
}
