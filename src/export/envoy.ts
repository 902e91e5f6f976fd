/**
 * config -> Envoy's HTTP local rate limit filter (envoy.filters.http.local_ratelimit,
 * envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit) with its `token_bucket`.
 * Only the token-bucket model is Envoy's; the other kinds get a typed "unsupported" answer.
 */
import type { AlgorithmConfig, TokenBucketConfig } from '../core';
import { MAX_COUNT, assertAlgorithmConfig, plural, quoteText } from '../core';
import { parse } from 'yaml';
import type { ExportOutcome, ExportResult, ExportUnsupported } from './types';

export interface EnvoyOptions {
  /** The filter's stat_prefix. Default `http_local_rate_limiter`. */
  statPrefix?: string;
  /**
   * The limiter's "add standard rate-limit headers": set `enable_x_ratelimit_headers:
   * DRAFT_VERSION_03`, the only rate-limit headers this filter can send (src/systems/envoy-local.ts).
   * Default false: Envoy then sends a bare 429 (body "local_rate_limited"), no rate-limit header.
   */
  standardHeaders?: boolean;
}

export const ENVOY_DEFAULTS = { statPrefix: 'http_local_rate_limiter' } as const;

/**
 * Envoy refuses a shorter fill_interval: "local rate limit token bucket fill timer must be >= 50ms"
 * (source/extensions/filters/common/local_ratelimit/local_ratelimit_impl.cc).
 */
export const ENVOY_MIN_FILL_INTERVAL_MS = 50;

/** tokens_per_fill is a uint32. */
const UINT32_MAX = 4_294_967_295;

/** A protobuf Duration in its JSON/YAML form: "1s", "0.050s", "90s". */
export function envoyDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  const rest = ms - seconds * 1000;
  return rest === 0 ? `${seconds}s` : `${seconds}.${String(rest).padStart(3, '0')}s`;
}

/** A plain YAML scalar when it reads back as the same string (not 0., true, null…), else quoted. */
function yamlString(value: string): string {
  const plain = (parse(`v: ${value}`) as { v?: unknown } | null)?.v;
  return plain === value ? value : JSON.stringify(value);
}

function unsupported(config: AlgorithmConfig): ExportUnsupported {
  const base =
    "Envoy's local_ratelimit filter only has a token bucket (max_tokens, tokens_per_fill, fill_interval);";
  const reasons: Record<Exclude<AlgorithmConfig['kind'], 'token-bucket'>, string> = {
    'fixed-window': `${base} it has no fixed windows. The nearest is max_tokens = tokens_per_fill = limit with fill_interval = the window, which refills continuously on Envoy ≥ 1.31 (and in one step per interval before).`,
    'sliding-log': `${base} it has no request log. The nearest is max_tokens = tokens_per_fill = limit with fill_interval = the window.`,
    'sliding-window-counter': `${base} it has no window counters. The nearest is max_tokens = tokens_per_fill = limit with fill_interval = the window.`,
    'leaky-bucket': `${base} it has no leaky bucket and never delays. With nodelay, nginx's rate and burst are close to max_tokens = burst + 1, tokens_per_fill = 1, fill_interval = 1 s / rate.`,
    gcra: `${base} it has no GCRA. GCRA with count per period and max_burst b is close to max_tokens = b + 1, tokens_per_fill = count, fill_interval = period.`,
    'anchored-window': `${base} it has no windows anchored at a key's first request. The nearest is max_tokens = tokens_per_fill = limit with fill_interval = the window.`,
    'calendar-windows': `${base} it has no calendar windows. Envoy's global rate limit service (envoyproxy/ratelimit) has epoch-aligned windows per descriptor: see the "Envoy global rate limit" system's export.`,
  };
  return {
    ok: false,
    target: 'envoy',
    kind: config.kind,
    reason: reasons[config.kind as keyof typeof reasons],
  };
}

/**
 * Envoy ≥ 1.31 refills continuously at tokens_per_fill / fill_interval, so scaling both by k keeps
 * every decision (the core's arithmetic divides one by the other exactly). Returns the smallest k
 * that lifts fill_interval to Envoy's 50 ms floor, or 1.
 */
function scaleFor(c: TokenBucketConfig): number {
  if (c.refill === 'interval' || c.fillIntervalMs >= ENVOY_MIN_FILL_INTERVAL_MS) return 1;
  return Math.ceil(ENVOY_MIN_FILL_INTERVAL_MS / c.fillIntervalMs);
}

/**
 * The local_ratelimit filter for a token-bucket config; for any other kind, why Envoy cannot
 * express it. Throws a RangeError on an invalid config or option, as createLimiter does.
 */
export function toEnvoy(config: AlgorithmConfig, options: EnvoyOptions = {}): ExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'token-bucket') return unsupported(c);
  const statPrefix = options.statPrefix ?? ENVOY_DEFAULTS.statPrefix;
  if (!/^[A-Za-z0-9_.]+$/.test(statPrefix)) {
    throw new RangeError(
      `statPrefix must be letters, digits, _ and ., got ${quoteText(statPrefix)}`,
    );
  }
  const interval = c.refill === 'interval';
  let k = scaleFor(c);
  if (c.tokensPerFill * k > UINT32_MAX) k = 1;
  const fillIntervalMs = c.fillIntervalMs * k;
  const tokensPerFill = c.tokensPerFill * k;

  const text = `# Envoy HTTP local rate limit (token bucket), exported from Rate Limit Lab.
# Put it in the http_connection_manager's http_filters, before envoy.filters.http.router.
name: envoy.filters.http.local_ratelimit
typed_config:
  "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
  stat_prefix: ${yamlString(statPrefix)}
  token_bucket:
    max_tokens: ${c.maxTokens}
    tokens_per_fill: ${tokensPerFill}
    fill_interval: ${envoyDuration(fillIntervalMs)}
  # Both must be set: filter_enabled unset means the filter is off, filter_enforced unset means
  # shadow mode (counted in stats, never rejected).
  filter_enabled:
    runtime_key: local_rate_limit_enabled
    default_value:
      numerator: 100
      denominator: HUNDRED
  filter_enforced:
    runtime_key: local_rate_limit_enforced
    default_value:
      numerator: 100
      denominator: HUNDRED
${
  options.standardHeaders === true
    ? `  # Added: x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset on every response.
  enable_x_ratelimit_headers: DRAFT_VERSION_03
`
    : ''
}`;

  const differences: string[] = [
    'One bucket for every request this filter sees, per Envoy process (its workers share it); the playground gives each key its own bucket. Per-client buckets need descriptors (rate_limits actions such as remote_address) with their own token_bucket. Each Envoy instance has its own bucket.',
    options.standardHeaders === true
      ? 'Rejected requests get 429 with the x-ratelimit-* headers (draft 03), but no Retry-After: this filter cannot compute one, and response_headers_to_add holds constants only. The IETF RateLimit and RateLimit-Policy fields are a later draft Envoy does not send.'
      : 'Rejected requests get a bare 429 (body "local_rate_limited"): no Retry-After, no rate-limit headers, and no x-envoy-ratelimited either, whatever the filter docs say (add the standard headers to get enable_x_ratelimit_headers).',
  ];
  if (interval) {
    differences.push(
      "Envoy's timer starts when the config loads, not at t = 0, so its refill steps fall at other moments than the playground's k·fill_interval. Envoy ≥ 1.31 no longer uses the timer: it refills continuously.",
    );
    if (c.fillIntervalMs < ENVOY_MIN_FILL_INTERVAL_MS) {
      differences.push(
        `Envoy rejects this config: fill_interval must be at least ${ENVOY_MIN_FILL_INTERVAL_MS} ms ("local rate limit token bucket fill timer must be >= 50ms").`,
      );
    }
  } else {
    differences.push(
      'Envoy before 1.31 refills on a timer instead: tokens_per_fill whole tokens every fill_interval, so a drained bucket waits a whole interval for its next tokens.',
    );
    if (k > 1) {
      differences.push(
        `fill_interval=${c.fillIntervalMs}ms is below Envoy's ${ENVOY_MIN_FILL_INTERVAL_MS} ms floor, so both it and tokens_per_fill are multiplied by ${k} (${plural(tokensPerFill, 'token')} per ${envoyDuration(fillIntervalMs)}): the same continuous rate and the same decisions.${tokensPerFill > MAX_COUNT ? ` (The playground takes at most ${MAX_COUNT} tokens_per_fill, so this snippet does not import back.)` : ''}`,
      );
    } else if (c.fillIntervalMs < ENVOY_MIN_FILL_INTERVAL_MS) {
      differences.push(
        `Envoy rejects this config: fill_interval must be at least ${ENVOY_MIN_FILL_INTERVAL_MS} ms, and scaling it up would overflow tokens_per_fill.`,
      );
    }
  }
  // Only a token bucket that waits gets here: Traefik's (its maxDelay), exported as Envoy from the
  // export panel. An Envoy limiter has no delay (src/systems/envoy-local.ts `lacks`).
  if ((c.maxDelayMs ?? 0) > 0) {
    differences.push(
      `Envoy never delays a request: those this limiter holds for up to ${c.maxDelayMs} ms get 429 at once.`,
    );
  }
  const result: ExportResult = {
    ok: true,
    target: 'envoy',
    language: 'yaml',
    text,
    assumes: interval
      ? 'Envoy < 1.31 (timer refill, every fill_interval), API envoy.extensions.filters.http.local_ratelimit.v3; drop enable_x_ratelimit_headers if your Envoy predates it'
      : 'Envoy ≥ 1.31 (continuous refill), API envoy.extensions.filters.http.local_ratelimit.v3',
    differences,
    notes: ['The bucket starts full: max_tokens requests pass at once after Envoy starts.'],
  };
  return result;
}
