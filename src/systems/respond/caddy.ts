/**
 * What caddy-ratelimit sends for a decision (caddy.ts has the model): 429 and Retry-After.
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { CADDY_SOURCES } from '../sources/caddy';
import { makeResponse } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/**
 * Caddy's Retry-After for a wait of `waitMs`: strconv.FormatFloat(s + 0.5, 'f', 0, 64), i.e.
 * (waitMs + 500) / 1000 rounded to the nearest whole number, ties to even.
 */
export function caddyRetryAfter(waitMs: number): number {
  const n = waitMs + 500;
  const q = Math.floor(n / 1000);
  const r = n - q * 1000;
  if (r > 500) return q + 1;
  if (r < 500) return q;
  return q % 2 === 0 ? q : q + 1;
}

/** What caddy sends for `decision` (SystemModel.response). */
export function caddyResponse(
  _config: AlgorithmConfig,
  decision: Decision,
  _options: SystemResponseOptions = {},
): SystemResponse {
  // The wait When() returns is the time until the oldest event is exactly `window` old: the
  // smallest wait after which the request passes, retryAfterMs.
  const own: SystemHeader[] =
    decision.outcome === 'reject'
      ? [{ name: 'Retry-After', value: String(caddyRetryAfter(decision.retryAfterMs)) }]
      : [];
  // The limiter's "add standard rate-limit headers" adds nothing here: handler.go (caddy-ratelimit
  // 5625512) sets only Retry-After before its 429 and nothing on a request it lets through, and the
  // one placeholder it sets (http.rate_limit.exceeded.name: the zone's name) carries no remaining or
  // reset that a header directive could send; the Caddy export writes none, so the page shows only what the
  // exported Caddyfile sends.
  return makeResponse(decision.outcome === 'reject' ? 429 : 200, own, CADDY_SOURCES);
}
