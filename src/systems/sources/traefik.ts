/**
 * The files and documents the Traefik RateLimit middleware model was built from, each with the
 * rules it fixes, cited beside the responses. Only the code that writes responses (../respond, a
 * chunk of its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { TRAEFIK_VERSION } from '../traefik';

const VERSION = TRAEFIK_VERSION;

export const TRAEFIK_SOURCES: readonly SourceRef[] = [
  {
    file: 'pkg/middlewares/ratelimiter/rate_limiter.go',
    version: VERSION,
    what: 'rate = average/period, burst ≥ 1, maxDelay, ttl, the 429 with Retry-After and X-Retry-In',
  },
  {
    file: 'pkg/middlewares/ratelimiter/in_memory_limiter.go',
    version: VERSION,
    what: 'Reserve(), Cancel() when the delay exceeds maxDelay, the ttl refresh on every request',
  },
  {
    file: 'pkg/middlewares/ratelimiter/ttlmap/ttlmap.go',
    version: VERSION,
    what: 'expiry in whole Unix seconds',
  },
  {
    file: 'rate/rate.go',
    version: 'golang.org/x/time 0.3.0',
    what: 'the token bucket: reserve, delay, cancel (proven against it in tests/export/go.server.test.ts)',
  },
];
