/**
 * What a Cloudflare rate limiting rule sends for a decision (cloudflare.ts has the model).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { CLOUDFLARE_SOURCES } from '../sources/cloudflare';
import { makeResponse, standardFields, statusFor, withAdded } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/** What cloudflare sends for `decision` (SystemModel.response). */
export function cloudflareResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const own: SystemHeader[] =
    decision.outcome === 'reject' ? [{ name: 'Retry-After', value: '30' }] : [];
  const fields =
    options.standardHeaders === true
      ? withAdded(own, standardFields(config, decision, options))
      : own;
  return makeResponse(statusFor(decision, 429), fields, CLOUDFLARE_SOURCES);
}
