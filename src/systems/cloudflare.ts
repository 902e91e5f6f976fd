/**
 * Cloudflare WAF rate limiting rules (the sliding-window counter Cloudflare describes in "How we
 * built rate limiting capable of scaling to millions of domains", 2017), with the Block action.
 *
 * Response: a rate limiting rule's Block action answers 429 by default ("Response for blocked
 * requests": "The default response code is … 429 for rate limiting rules") with Cloudflare's
 * error 1015 page, which carries `Retry-After: 30` (changelog 2026-03-12, "Retry-After HTTP header
 * for retryable 1xxx errors": 1015 → 30 s). No rate-limit headers.
 */
import type { AlgorithmConfig } from '../core';
import type { SourceRef, SystemInfo } from './types';

export const CLOUDFLARE_SOURCES: readonly SourceRef[] = [
  {
    file: 'https://blog.cloudflare.com/counting-things-a-lot-of-different-things/',
    version: 'Cloudflare, 2017',
    what: 'the sliding-window counter: previous window weighted by its overlap',
  },
  {
    file: 'https://developers.cloudflare.com/waf/reference/response-for-blocked-requests/',
    version: 'Cloudflare docs, 2026',
    what: '429 is the default response code of a rate limiting rule’s Block action',
  },
  {
    file: 'https://developers.cloudflare.com/changelog/post/2026-03-12-retry-after-header-for-1xxx-errors',
    version: 'Cloudflare, 2026-03-12',
    what: 'error 1015 (rate limited) carries Retry-After: 30',
  },
];

export const cloudflare: SystemInfo = {
  id: 'cloudflare',
  name: 'Cloudflare rate limiting rule',
  version: 'Cloudflare WAF, 2026',
  group: 'CDN and edge',
  kind: 'sliding-window-counter',
  algorithms: ['sliding-window-counter'],
  urlName: 'sliding-window-counter',
  summary:
    'Estimates the rate as previous·(overlap of the previous window) + current and admits while it is below limit.',
  sources: CLOUDFLARE_SOURCES,
  // waf/rate-limiting-rules/parameters ("Missing field versus empty value", Cloudflare docs,
  // 2026): requests without the header, cookie or field the rule counts by have a counter of
  // their own (unless the counting expression filters them out): one shared counter.
  emptyKey: 'shared',
  params: [
    {
      key: 'limit',
      field: 'limit',
      help: 'Requests admitted per sliding window (estimated).',
      input: 'int',
    },
    {
      key: 'window',
      field: 'windowMs',
      unit: 'ms',
      url: 'duration',
      help: 'Window length.',
      input: 'int',
    },
  ],
  defaultConfig: { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
  derive(config: AlgorithmConfig): AlgorithmConfig {
    // Aligned windows only: HAProxy's per-entry counter, expire and deny_status are not Cloudflare's.
    if (config.kind !== 'sliding-window-counter') return config;
    const { kind, limit, windowMs } = config;
    return { kind, limit, windowMs };
  },
  standardHeadersHow:
    'A Block action’s custom response can hold only a fixed body and status; the per-request headers would come from your origin or a Worker.',
};
