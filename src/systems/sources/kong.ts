/**
 * The files and documents the Kong rate-limiting plugin model was built from, each with the rules
 * it fixes, cited beside the responses. Only the code that writes responses (../respond, a chunk
 * of its own) imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { KONG_VERSION } from '../kong';

const V = KONG_VERSION;

export const KONG_SOURCES: readonly SourceRef[] = [
  {
    file: 'kong/plugins/rate-limiting/handler.lua',
    version: V,
    what: 'stop when any period has limit − usage ≤ 0; RateLimit-* from the period with the least remaining (ties: the longer); X-RateLimit-*-<Period>; Retry-After = reset; increment only passed requests',
  },
  {
    file: 'kong/plugins/rate-limiting/policies/init.lua',
    version: V,
    what: "local policy: one shm counter per period start, created with a TTL of the period's nominal length",
  },
  {
    file: 'kong/plugins/rate-limiting/expiration.lua',
    version: V,
    what: 'second 1, minute 60, hour 3600, day 86400, month 2592000, year 31536000 (seconds)',
  },
  { file: 'kong/tools/timestamp.lua', version: V, what: 'UTC starts of second … year' },
  {
    file: 'kong/plugins/rate-limiting/policies/cluster.lua',
    version: V,
    what: 'cluster policy: read the row, increment later (upsert + 1)',
  },
  {
    file: 'kong/plugins/rate-limiting/schema.lua',
    version: V,
    what: 'defaults: error_code 429, error_message "API rate limit exceeded", limit_by consumer, policy local',
  },
];
