/**
 * What Traefik's RateLimit middleware sends for a decision (traefik.ts has the model).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { TRAEFIK_SOURCES, goDurationString } from '../traefik';
import { makeResponse, standardFields, statusFor, withAdded } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/** What traefik sends for `decision` (SystemModel.response). */
export function traefikResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const own: SystemHeader[] = [];
  if (decision.outcome === 'reject') {
    // The reservation's delay: the wait to the token, i.e. Retry-After plus maxDelay.
    const delayMs =
      decision.retryAfterMs + (config.kind === 'token-bucket' ? (config.maxDelayMs ?? 0) : 0);
    own.push(
      { name: 'Retry-After', value: String(Math.ceil(delayMs / 1000)) },
      { name: 'X-Retry-In', value: goDurationString(delayMs) },
      { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
    );
  }
  const fields =
    options.standardHeaders === true
      ? withAdded(own, standardFields(config, decision, options))
      : own;
  return makeResponse(statusFor(decision, 429), fields, TRAEFIK_SOURCES);
}
