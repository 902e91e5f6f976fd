/**
 * What Traefik's RateLimit middleware sends for a decision (traefik.ts has the model).
 */
import { floorNs } from '../../core';
import type { AlgorithmConfig, Decision, Inspection } from '../../core';
import { TRAEFIK_SOURCES, goDurationNs } from '../traefik';
import { makeResponse, standardFields, statusFor, withAdded } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/**
 * The rejected reservation's delay in whole ns, as x/time/rate computes it (durationFromTokens of
 * the token's shortfall, truncated): from the key's state just before the request (`before`), the
 * wait (1 − tokens) / rate exactly. Without `before` (or for interval refill, whose waits are whole
 * ms): Retry-After's ms plus the maximum delay, exact when both are whole ms.
 */
export function traefikDelayNs(
  config: AlgorithmConfig,
  decision: Decision,
  before?: Inspection,
): number {
  if (config.kind !== 'token-bucket') return decision.retryAfterMs * 1_000_000;
  const maxNs = config.maxDelayNs ?? (config.maxDelayMs ?? 0) * 1_000_000;
  if (before?.kind === 'token-bucket' && before.refill === 'continuous') {
    // Continuous refill keeps tokens in units of 1/fillIntervalMs (token-bucket.ts): whole numbers.
    const unit = config.fillIntervalMs;
    const level = Math.round(before.tokens * unit);
    return floorNs(unit - level, config.tokensPerFill);
  }
  return decision.retryAfterMs * 1_000_000 + maxNs;
}

/** What traefik sends for `decision` (SystemModel.response). */
export function traefikResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const own: SystemHeader[] = [];
  if (decision.outcome === 'reject') {
    // serveDelayError: Retry-After is ⌈delay.Seconds()⌉, X-Retry-In is delay.String().
    const delayNs = traefikDelayNs(config, decision, options.before);
    own.push(
      { name: 'Retry-After', value: String(Math.ceil(delayNs / 1_000_000_000)) },
      { name: 'X-Retry-In', value: goDurationNs(delayNs) },
      { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
    );
  }
  const fields =
    options.standardHeaders === true
      ? withAdded(own, standardFields(config, decision, options))
      : own;
  return makeResponse(statusFor(decision, 429), fields, TRAEFIK_SOURCES);
}
