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
  ],
  // The filter has no way to make a request wait. Its options
  // (api/envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto, Envoy 1.31:
  // stat_prefix, status, token_bucket, filter_enabled, filter_enforced, headers to add,
  // descriptors, stage, per-connection and cluster scope, x-ratelimit headers, …) and its bucket's
  // (api/envoy/type/v3/token_bucket.proto: max_tokens, tokens_per_fill, fill_interval) hold no
  // delay or queue, and local_ratelimit.cc's decodeHeaders answers a request without a token with
  // sendLocalReply at once. The algorithm's maxDelayMs (x/time/rate's Reserve) is Traefik's.
  lacks: [
    {
      field: 'maxDelayMs',
      key: 'max_delay',
      unit: 'ms',
      neutral: 0,
      why: 'never delays a request (local_rate_limit.proto has no such option; local_ratelimit.cc answers 429 at once)',
      instead:
        "Traefik's RateLimit makes a request wait for its token (up to its maxDelay): choose Traefik to see requests wait",
    },
  ],
  defaultConfig: { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 },
  standardHeadersHow:
    'The Envoy export sets enable_x_ratelimit_headers: DRAFT_VERSION_03, which makes Envoy send x-ratelimit-limit, -remaining and -reset (draft 03). It cannot send Retry-After or the newer RateLimit / RateLimit-Policy fields.',
};
