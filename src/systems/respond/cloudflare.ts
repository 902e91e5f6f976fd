/**
 * What a Cloudflare rate limiting rule sends for a decision (cloudflare.ts has the model).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { CLOUDFLARE_SOURCES } from '../sources/cloudflare';
import { makeResponse, statusFor } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

/**
 * What cloudflare sends for `decision` (SystemModel.response): 429 with error 1015's
 * `Retry-After: 30` (changelog 2026-03-12), nothing of its own on a request it lets through. The
 * limiter's "add standard rate-limit headers" adds nothing here: a rate limiting rule's Block
 * action takes only a status code, a content type and a body for its custom response
 * (waf/rate-limiting-rules/create-zone-dashboard, waf/reference/response-for-blocked-requests,
 * Cloudflare docs 2026), and no rule field holds the counter's state, so no Cloudflare setting
 * sends a per-request RateLimit or RateLimit-Policy; the Cloudflare export writes none, and the
 * page shows only what the exported rule sends.
 */
export function cloudflareResponse(
  _config: AlgorithmConfig,
  decision: Decision,
  _options: SystemResponseOptions = {},
): SystemResponse {
  const fields: SystemHeader[] =
    decision.outcome === 'reject' ? [{ name: 'Retry-After', value: '30' }] : [];
  return makeResponse(statusFor(decision, 429), fields, CLOUDFLARE_SOURCES);
}
