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
 * The periods a rate limiting rule takes, in seconds (PARAMETERS_PAGE, "Period": one of 10, 60,
 * 120, 300, 600 or 3600). Which of them the dashboard offers depends on the plan; the API refuses
 * any other value.
 */
export const CLOUDFLARE_PERIODS_S: readonly number[] = [10, 60, 120, 300, 600, 3600];

/**
 * The mitigation timeouts (`mitigation_timeout`, the rule's "Duration") the API takes, in seconds
 * (PARAMETERS_PAGE, "Duration": 30, 60, 600, 3600 or 86400; the dashboard offers a plan-dependent
 * subset; 0 with a challenge action). Not modelled: the lab's counter admits again as soon as the
 * estimate is below the limit, as Cloudflare's "throttle" behaviour does.
 */
export const CLOUDFLARE_TIMEOUTS_S: readonly number[] = [30, 60, 600, 3600, 86400];

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
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** The periods in words: "10 s, 1 min, 2 min, 5 min, 10 min or 1 h". */
export const CLOUDFLARE_PERIODS_TEXT = `${CLOUDFLARE_PERIODS_S.slice(0, -1).map(periodLabel).join(', ')} or ${periodLabel(CLOUDFLARE_PERIODS_S.at(-1) ?? 0)}`;

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
      help: 'Cloudflare takes only these periods.',
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
  standardHeadersHow:
    'A Block action’s custom response can hold only a fixed body and status; the per-request headers would come from your origin or a Worker.',
};
