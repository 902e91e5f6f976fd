/**
 * The files and documents the Envoy global rate limit service model was built from, each with the
 * rules it fixes, cited beside the responses. Only the code that writes responses (../respond, a
 * chunk of its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { ENVOY_RATELIMIT_VERSION } from '../envoy-global';

const V = ENVOY_RATELIMIT_VERSION;

export const ENVOY_GLOBAL_SOURCES: readonly SourceRef[] = [
  {
    file: 'src/redis/fixed_cache_impl.go',
    version: V,
    what: 'DoLimit: INCRBY key hits then EXPIRE key unit-seconds, for every descriptor, before any comparison',
  },
  {
    file: 'src/limiter/cache_key.go',
    version: V,
    what: 'the key ends in (now / divider) · divider: epoch-aligned windows, now in whole seconds',
  },
  {
    file: 'src/limiter/base_limiter.go',
    version: V,
    what: 'OVER_LIMIT (0 remaining) iff count after INCRBY > limit; shadow_mode reports it OK',
  },
  {
    file: 'src/service/ratelimit.go',
    version: V,
    what: 'overall OVER_LIMIT iff a descriptor is; SHADOW_MODE=true reports OK for all',
  },
  {
    file: 'src/utils/utilities.go',
    version: V,
    what: 'UnitToDivider (month 30 d, year 365 d); CalculateReset = divider − now mod divider (s)',
  },
  {
    file: 'source/extensions/filters/http/ratelimit/ratelimit.cc (Envoy)',
    version: 'Envoy 1.31',
    what: 'OVER_LIMIT → 429 with x-envoy-ratelimited: true',
  },
  {
    file: 'source/extensions/filters/http/ratelimit/ratelimit_headers.cc (Envoy)',
    version: 'Envoy 1.31',
    what: 'x-ratelimit-* of the status with least remaining, "<rpu>;w=<s>" each',
  },
];
