/**
 * The headers an application sends from rate-limiter-flexible's answer (rate-limiter-flexible.ts has the model).
 */
import type { AlgorithmConfig, AnchoredWindowConfig, Decision } from '../../core';
import { RATE_LIMITER_FLEXIBLE_SOURCES } from '../rate-limiter-flexible';
import { makeResponse, wallClockMs } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/**
 * The headers the exported middleware sets from the RateLimiterRes it gets (the README's set):
 * on a reject Retry-After = ⌈msBeforeNext / 1000⌉ first, then X-RateLimit-Limit (points),
 * X-RateLimit-Remaining (remainingPoints = max(points − consumedPoints, 0): the count after this
 * request, known from `options.before`), X-RateLimit-Reset = ⌈(Date.now() + msBeforeNext) / 1000⌉.
 * A request delayed by execEvenly gets its headers when its Promise resolves, `delayMs` later, with
 * msBeforeNext already reduced by the delay (lib/RateLimiterMemory.js consume): the reset is the
 * window's end either way.
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
  const msBeforeNext = reject
    ? decision.retryAfterMs
    : Math.max(decision.resetMs - decision.delayMs, 0);
  // The count the request met (0 in a new window); without it, only an admit tells the count.
  const before = options.before;
  const met =
    before?.kind === 'anchored-window' ? (before.resetAtMs === null ? 0 : before.count) : undefined;
  const remainingPoints =
    met === undefined ? decision.remaining * cost : Math.max(points - (met + cost), 0);
  const resolvedAtMs = wallClockMs(options) + decision.delayMs;
  const fields: SystemHeader[] = [];
  if (reject) {
    fields.push({
      name: 'Retry-After',
      value: String(Math.ceil(msBeforeNext / 1000)),
      added: true,
    });
  }
  fields.push(
    { name: 'X-RateLimit-Limit', value: String(points), added: true },
    { name: 'X-RateLimit-Remaining', value: String(reject ? 0 : remainingPoints), added: true },
    {
      name: 'X-RateLimit-Reset',
      value: String(Math.ceil((resolvedAtMs + msBeforeNext) / 1000)),
      added: true,
    },
  );
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
