/**
 * The files and documents the Envoy local rate limit filter model was built from, each with the
 * rules it fixes, cited beside the responses. Only the code that writes responses (../respond, a
 * chunk of its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';

export const ENVOY_LOCAL_SOURCES: readonly SourceRef[] = [
  {
    file: 'source/extensions/filters/http/local_ratelimit/local_ratelimit.cc',
    version: 'Envoy 1.31',
    what: 'sendLocalReply(429, "local_rate_limited"); x-ratelimit-* in encodeHeaders only with enable_x_ratelimit_headers',
  },
  {
    file: 'docs/root/configuration/http/http_filters/local_rate_limit_filter.rst',
    version: 'Envoy 1.31',
    what: "429 by default; says the filter sets x-envoy-ratelimited, which local_ratelimit.cc's decodeHeaders never does (the code is followed)",
  },
  {
    file: 'api/envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto',
    version: 'Envoy 1.31',
    what: 'the filter’s options: status (429 by default), token_bucket, headers to add, descriptors, x-ratelimit headers; none makes a request wait',
  },
  {
    file: 'api/envoy/type/v3/token_bucket.proto',
    version: 'Envoy 1.31',
    what: 'max_tokens, tokens_per_fill (1 if not set), fill_interval: no delay',
  },
  {
    file: 'source/common/common/token_bucket_impl.cc',
    version: 'Envoy 1.31',
    what: 'AtomicTokenBucketImpl: continuous refill, starts full',
  },
];
