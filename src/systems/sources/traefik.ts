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
    version: 'golang.org/x/time v0.15.0 (traefik v3.7.9 go.mod)',
    what: 'the token bucket in float64 tokens: reserve, delay, cancel; the 429’s delay replayed to the ns (proven against Debian’s 0.3.0, the same arithmetic, in tests/export/go.server.test.ts)',
  },
];
