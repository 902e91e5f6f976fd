/**
 * The files and documents the rate-limiter-flexible model was built from, each with the rules it
 * fixes, cited beside the responses. Only the code that writes responses (../respond, a chunk of
 * its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { RATE_LIMITER_FLEXIBLE_VERSION } from '../rate-limiter-flexible';

const V = RATE_LIMITER_FLEXIBLE_VERSION;

export const RATE_LIMITER_FLEXIBLE_SOURCES: readonly SourceRef[] = [
  {
    file: 'lib/component/MemoryStorage/MemoryStorage.js',
    version: V,
    what: 'incrby(): a record lives while expiresAt − now > 0, else a new one expires at now + duration; the value is incremented before any check',
  },
  {
    file: 'lib/RateLimiterMemory.js',
    version: V,
    what: 'consume(): reject when consumed > points; blockDuration re-sets the record on the first such request; execEvenly delays ⌈msBeforeNext / (remaining + 2)⌉ or consumed · execEvenlyMinDelayMs',
  },
  {
    file: 'lib/RateLimiterAbstract.js',
    version: V,
    what: 'duration 0: never expires; defaults: points 4, duration 1 s, blockDuration 0, execEvenly false, execEvenlyMinDelayMs ⌈duration·1000 / points⌉ (_getExecEvenlyMinDelayMsDefault)',
  },
  {
    file: 'README.md',
    version: V,
    what: 'the suggested HTTP headers (Retry-After, X-RateLimit-*)',
  },
];
