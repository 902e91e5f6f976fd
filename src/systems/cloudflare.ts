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
import type { SystemInfo } from './types';

/** Cloudflare's rate limiting rule parameters, the page each value set below comes from. */
export const PARAMETERS_PAGE =
  'https://developers.cloudflare.com/waf/rate-limiting-rules/parameters/';

/**
 * Cloudflare's docs source, read at cloudflare/cloudflare-docs
 * src/content/docs/waf/rate-limiting-rules/parameters.mdx @ 5d2cc64b (PARAMETERS_PAGE) and
 * src/content/partials/waf/rate-limiting-availability-by-plan.mdx @ 8bce8c0d (the plan table).
 */

/**
 * The periods a rate limiting rule takes, in seconds (parameters.mdx, "When rate exceeds >
 * Period": the API takes 10, 60, 120, 300, 600 or 3600). Which of them a zone may use depends on
 * its plan (CLOUDFLARE_PERIOD_PLANS); the API refuses any other value.
 */
export const CLOUDFLARE_PERIODS_S: readonly number[] = [10, 60, 120, 300, 600, 3600];

/**
 * The longest period each plan offers, in seconds (the plan table's "Counting periods": Free
 * 10 s; Pro 10 s and 1 min; Business up to 10 min without 2 and 5 min; Enterprise with app
 * security up to 10 min; Enterprise with Advanced Rate Limiting all of them, 1 h included).
 */
export const CLOUDFLARE_PERIOD_PLANS =
  'Free: 10 s; Pro: 10 s, 1 min; Business: 10 s, 1 min, 10 min; Enterprise: up to 10 min; 1 h only with Advanced Rate Limiting';

/**
 * The mitigation timeouts (`mitigation_timeout`, the dashboard's "For duration") the API takes
 * when the rule blocks for a while, in seconds (parameters.mdx, "For duration": 0, 10, 60, 120,
 * 300, 600, 3600 or 86400; 0 is listed apart as THROTTLE_TIMEOUT_S). The plan table limits them
 * too: Free 10 s; Pro 10 s, 1 min, 1 h; Business adds 1 day; Enterprise all, and a custom value
 * through the API.
 */
export const CLOUDFLARE_TIMEOUTS_S: readonly number[] = [10, 60, 120, 300, 600, 3600, 86400];

/**
 * `mitigation_timeout: 0`: "Throttle requests over the maximum configured rate" (parameters.mdx,
 * "With the following behavior"), the behaviour the lab simulates: a request passes again as soon
 * as the estimate is below the limit. With the Block action only Enterprise plans may throttle
 * ("Only Enterprise customers can throttle requests using the Block action"; the plan table's
 * "Throttle requests above rate with block action" is in both Enterprise columns only).
 */
export const THROTTLE_TIMEOUT_S = 0;

/**
 * The least `requests_per_period` (cloudflare/terraform-provider-cloudflare
 * internal/services/ruleset/schema.go @ 252f3bd3: `int64validator.AtLeast(1)`; parameters.mdx
 * gives the field as an Integer with no upper bound).
 */
export const CLOUDFLARE_MIN_REQUESTS = 1;

/** How the aligned sliding-window counter decides, in one sentence. */
export const SWC_SUMMARY =
  'Estimates the rate as previous·(overlap of the previous window) + current and admits while it is below limit.';

/**
 * Aligned windows only: HAProxy's per-entry counter, expire and deny_status are neither
 * Cloudflare's nor the Redis pattern's.
 */
export function alignedOnly(config: AlgorithmConfig): AlgorithmConfig {
  if (config.kind !== 'sliding-window-counter') return config;
  const { kind, limit, windowMs } = config;
  return { kind, limit, windowMs };
}

/** A Cloudflare period as its dashboard writes it: 10 s, 1 min, 1 h. */
function periodLabel(seconds: number): string {
  if (seconds % 86400 === 0) return `${seconds / 86400} day`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The periods in words: "10 s, 1 min, 2 min, 5 min, 10 min or 1 h". */
export const CLOUDFLARE_PERIODS_TEXT = `${CLOUDFLARE_PERIODS_S.slice(0, -1).map(periodLabel).join(', ')} or ${periodLabel(CLOUDFLARE_PERIODS_S.at(-1) ?? 0)}`;

/** The mitigation timeouts in words: "10 s, 1 min, 2 min, 5 min, 10 min, 1 h or 1 day". */
export const CLOUDFLARE_TIMEOUTS_TEXT = `${CLOUDFLARE_TIMEOUTS_S.slice(0, -1).map(periodLabel).join(', ')} or ${periodLabel(CLOUDFLARE_TIMEOUTS_S.at(-1) ?? 0)}`;

/** Whether a Cloudflare rule takes a window of `windowMs` as its period. */
export function cloudflarePeriodOk(windowMs: number): boolean {
  return windowMs % 1000 === 0 && CLOUDFLARE_PERIODS_S.includes(windowMs / 1000);
}

export const cloudflare: SystemInfo = {
  id: 'cloudflare',
  name: 'Cloudflare rate limiting rule',
  version: 'Cloudflare WAF, 2026',
  group: 'CDN and edge',
  kind: 'sliding-window-counter',
  algorithms: ['sliding-window-counter'],
  // Its own link head: a link's sliding-window-counter head without a system opens as Cloudflare
  // only when its period is one Cloudflare takes (src/config/url.ts).
  urlName: 'cloudflare',
  summary: SWC_SUMMARY,
  // waf/rate-limiting-rules/parameters ("Missing field versus empty value", Cloudflare docs,
  // 2026): requests without the header, cookie or field the rule counts by have a counter of
  // their own (unless the counting expression filters them out): one shared counter.
  emptyKey: 'shared',
  // The API's field names (PARAMETERS_PAGE): requests_per_period and period.
  params: [
    {
      key: 'requests_per_period',
      field: 'limit',
      help: 'Requests per period (estimated over a sliding period).',
      input: 'int',
    },
    {
      key: 'period',
      field: 'windowMs',
      url: 'duration',
      // Every period is offered; the plan table says which a zone may use, so the help names it.
      help: `Cloudflare takes only these periods, by plan (${CLOUDFLARE_PERIOD_PLANS}).`,
      input: 'choice',
      choices: CLOUDFLARE_PERIODS_S.map((s) => ({
        value: String(s * 1000),
        label: periodLabel(s),
      })),
    },
  ],
  defaultConfig: { kind: 'sliding-window-counter', limit: 50, windowMs: 10_000 },
  refuses(config: AlgorithmConfig) {
    if (config.kind !== 'sliding-window-counter' || cloudflarePeriodOk(config.windowMs))
      return null;
    const got =
      config.windowMs % 1000 === 0 ? `${config.windowMs / 1000} s` : `${config.windowMs} ms`;
    return {
      field: 'windowMs',
      message: `Cloudflare's rules take a period of ${CLOUDFLARE_PERIODS_TEXT} only, got ${got}`,
    };
  },
  derive: alignedOnly,
  standardHeadersSent: false,
  standardHeadersHow:
    'A Block action’s custom response can hold only a status, a content type and a fixed body, and the Cloudflare export does not add RateLimit headers. The response shown is what the exported rule sends (Retry-After: 30 on a 429); per-request headers would have to come from your origin or a Worker.',
};
