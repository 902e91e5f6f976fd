/**
 * What Envoy's local_ratelimit filter sends for a decision (envoy-local.ts has the model).
 */
import { toSeconds } from '../../core';
import type { AlgorithmConfig, Decision } from '../../core';
import { ENVOY_LOCAL_SOURCES } from '../sources/envoy-local';
import { makeResponse, statusFor } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/** The draft-03 headers Envoy sends with `enable_x_ratelimit_headers: DRAFT_VERSION_03`. */
export function envoyXRateLimitHeaders(
  config: AlgorithmConfig,
  decision: Decision,
): SystemHeader[] {
  if (config.kind !== 'token-bucket') return [];
  return [
    { name: 'x-ratelimit-limit', value: String(config.maxTokens), added: true },
    { name: 'x-ratelimit-remaining', value: String(decision.remaining), added: true },
    { name: 'x-ratelimit-reset', value: String(toSeconds(decision.resetMs)), added: true },
  ];
}

/** What envoyLocal sends for `decision` (SystemModel.response). */
export function envoyLocalResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  // No x-envoy-ratelimited: local_ratelimit.cc's sendLocalReply adds only response_headers_to_add.
  const fields: SystemHeader[] = [];
  if (options.standardHeaders === true) fields.push(...envoyXRateLimitHeaders(config, decision));
  return makeResponse(statusFor(decision, 429), fields, ENVOY_LOCAL_SOURCES);
}
