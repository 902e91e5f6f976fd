/**
 * Envoy's HTTP local rate limit filter (`envoy.filters.http.local_ratelimit`) with its
 * `token_bucket`, on the token-bucket algorithm (continuous refill: Envoy ≥ 1.31).
 *
 * Response (source/extensions/filters/http/local_ratelimit/local_ratelimit.cc, Envoy 1.31+):
 * a rejected request gets `sendLocalReply(status, "local_rate_limited")` — 429 unless `status` is
 * set — plus `response_headers_to_add`, and nothing else: the filter docs
 * (local_rate_limit_filter.rst) say it also sets `x-envoy-ratelimited`, but `decodeHeaders` never
 * does (read in Envoy 1.31 and on main, 00549ed; only the global `ratelimit` filter sets it, in
 * ratelimit.cc), so the page shows none. `encodeHeaders` adds `x-ratelimit-limit` (max_tokens),
 * `x-ratelimit-remaining` (tokens left) and `x-ratelimit-reset` to every response only when
 * `enable_x_ratelimit_headers: DRAFT_VERSION_03`. No `Retry-After`.
 */
import type { SystemInfo } from './types';

export const envoyLocal: SystemInfo = {
  id: 'envoy',
  name: 'Envoy local_ratelimit',
  version: 'Envoy 1.31',
  group: 'Proxies and gateways',
  kind: 'token-bucket',
  algorithms: ['token-bucket'],
  urlName: 'envoy',
  summary:
    'A bucket of max_tokens, refilled by tokens_per_fill every fill_interval; each request takes one token. Starts full.',
  // source/common/router/router_ratelimit.cc (Envoy 1.31), RequestHeadersAction::populateDescriptor:
  // a missing header produces no descriptor (unless skip_if_absent); local_ratelimit_impl.cc then
  // finds no descriptor bucket and charges the filter's one default token_bucket: shared.
  emptyKey: 'shared',
  params: [
    {
      key: 'max_tokens',
      field: 'maxTokens',
      help: 'Bucket capacity: the largest burst that passes at once.',
      input: 'int',
    },
    {
      key: 'tokens_per_fill',
      field: 'tokensPerFill',
      help: 'Tokens added per fill_interval.',
      input: 'int',
      // envoy.type.v3.TokenBucket: "If not specified, defaults to a single token."
      implied: 1,
    },
    {
      key: 'fill_interval',
      field: 'fillIntervalMs',
      unit: 'ms',
      url: 'duration',
      help: 'How often tokens_per_fill tokens arrive.',
      input: 'int',
    },
    {
      key: 'refill',
      field: 'refill',
      help: 'Continuous (Envoy ≥ 1.31) or whole fills on a timer (older Envoy).',
      input: 'choice',
      absentMeans: 'continuous',
      choices: [
        { value: 'continuous', label: 'continuous' },
        { value: 'interval', label: 'interval' },
      ],
    },
    {
      key: 'max_delay',
      field: 'maxDelayMs',
      unit: 'ms',
      url: 'duration',
      help: 'Wait for a reserved token up to this long instead of rejecting (golang x/time/rate Reserve). 0 = reject.',
      input: 'int',
      optional: { placeholder: '0' },
    },
  ],
  defaultConfig: { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 },
  standardHeadersHow:
    'The Envoy export sets enable_x_ratelimit_headers: DRAFT_VERSION_03, which makes Envoy send x-ratelimit-limit, -remaining and -reset (draft 03). It cannot send Retry-After or the newer RateLimit / RateLimit-Policy fields.',
};
