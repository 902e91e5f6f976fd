import { ceilDiv } from './int';
import { UNIT_SECONDS } from './calendar';
import { calendarUnits } from './algorithms/calendar-windows';
import type { AlgorithmConfig } from './types';

/** The quota a limiter advertises: `limit` requests, fully restored after `windowMs` of no traffic. */
export interface Quota {
  /** Requests that pass at once from idle (Decision.limit). */
  limit: number;
  /** Time from empty back to the full quota. */
  windowMs: number;
}

/** nginx's ctx->rate: milli-requests per second, ⌊rate·1000 / (1 or 60)⌋. */
export function nginxRateMilli(rate: number, rateUnit: 'r/s' | 'r/m'): number {
  return Math.floor((rate * 1000) / (rateUnit === 'r/m' ? 60 : 1));
}

/**
 * The nominal quota of each algorithm, for RateLimit-Policy and X-RateLimit-Limit:
 * windows: `limit` per window; token bucket: `max_tokens` per the time to refill them all;
 * nginx: `burst + 1` per the time the excess of burst + 1 takes to drain; GCRA: `burst + 1` per τ.
 */
export function quotaOf(config: AlgorithmConfig): Quota {
  switch (config.kind) {
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
      return { limit: config.limit, windowMs: config.windowMs };
    case 'token-bucket':
      return {
        limit: config.maxTokens,
        windowMs: ceilDiv(config.maxTokens * config.fillIntervalMs, config.tokensPerFill),
      };
    case 'leaky-bucket':
      return {
        limit: config.burst + 1,
        windowMs: ceilDiv(
          (config.burst + 1) * 1_000_000,
          nginxRateMilli(config.rate, config.rateUnit),
        ),
      };
    case 'gcra':
      return {
        limit: config.burst + 1,
        windowMs: ceilDiv(config.periodMs * (config.burst + 1), config.count),
      };
    case 'anchored-window':
      return { limit: config.limit, windowMs: config.windowMs };
    case 'calendar-windows': {
      // The shortest window's limit over its nominal length (what Kong's RateLimit-Limit shows first).
      const first = calendarUnits(config)[0];
      if (first === undefined) return { limit: 1, windowMs: 1000 };
      return { limit: first.limit, windowMs: UNIT_SECONDS[first.unit] * 1000 };
    }
  }
}
