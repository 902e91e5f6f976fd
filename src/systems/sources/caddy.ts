/**
 * The files and documents the Caddy (caddy-ratelimit) model was built from, each with the rules it
 * fixes, cited beside the responses. Only the code that writes responses (../respond, a chunk of
 * its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { CADDY_RATELIMIT_VERSION } from '../caddy';

const V = CADDY_RATELIMIT_VERSION;

export const CADDY_SOURCES: readonly SourceRef[] = [
  {
    file: 'ringbuffer.go',
    version: V,
    what: 'allowed iff now − oldest > window (so an event exactly window old still counts); refused events are not logged; When() = oldest + window − now, 0 at exactly window',
  },
  {
    file: 'handler.go',
    version: V,
    what: 'ServeHTTP refuses only when When() > 0 (exactly window after the oldest: passes, not recorded); rateLimitExceeded: 429, Retry-After = FormatFloat(wait.Seconds() + 0.5, f, 0); optional jitter',
  },
  { file: 'caddyfile.go', version: V, what: 'zone { key, window, events }' },
];
