/**
 * The files and documents the express-rate-limit model was built from, each with the rules it
 * fixes, cited beside the responses. Only the code that writes responses (../respond, a chunk of
 * its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { EXPRESS_RATE_LIMIT_VERSION } from '../express-rate-limit';

const V = EXPRESS_RATE_LIMIT_VERSION;

export const EXPRESS_RATE_LIMIT_SOURCES: readonly SourceRef[] = [
  {
    file: 'source/memory-store.ts',
    version: V,
    what: 'increment(): a client whose resetTime ≤ now restarts (0 hits, resetTime = now + windowMs), then totalHits++',
  },
  {
    file: 'source/rate-limit.ts',
    version: V,
    what: 'defaults (windowMs 60000, limit 5, statusCode 429, legacyHeaders true, standardHeaders false → true = draft-6); reject iff totalHits > limit; remaining = max(limit − totalHits, 0)',
  },
  {
    file: 'source/headers.ts',
    version: V,
    what: 'X-RateLimit-*, draft-6/7/8 RateLimit headers, Retry-After = ⌈(resetTime − now)/1000⌉',
  },
];
