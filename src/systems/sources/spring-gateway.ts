/**
 * The files and documents the Spring Cloud Gateway model was built from, each with the rules it
 * fixes, cited beside the responses. Only the code that writes responses (../respond, a chunk of
 * its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { SPRING_GATEWAY_VERSION } from '../spring-gateway';

const V = SPRING_GATEWAY_VERSION;

const SCRIPT =
  'spring-cloud-gateway-server-webflux/src/main/resources/META-INF/scripts/request_rate_limiter.lua';

export const SPRING_SOURCES: readonly SourceRef[] = [
  {
    file: SCRIPT,
    version: V,
    what: 'now = TIME seconds; filled = min(capacity, last + (now − last_refreshed) · rate); allowed iff filled ≥ requested; keys expire after ⌊2 · capacity / rate⌋ s and are not written at all when that is 0',
  },
  {
    file: 'spring-cloud-gateway-server-webflux/src/main/java/org/springframework/cloud/gateway/filter/ratelimit/RedisRateLimiter.java',
    version: V,
    what: 'args (replenishRate, burstCapacity, "", requestedTokens); X-RateLimit-Remaining / -Replenish-Rate / -Burst-Capacity / -Requested-Tokens',
  },
];
