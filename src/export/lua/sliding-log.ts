import type { SlidingLogConfig } from '../../core';
import { lit } from './prelude';

/**
 * Sliding log (src/core/algorithms/sliding-log.ts). State: a list of logged times, oldest first.
 * A list rather than the usual sorted set: times are appended in order (t never goes below the
 * newest entry) and repeat when requests tie, which a list holds as they are.
 */
export function slidingLogBody(config: SlidingLogConfig): string {
  return `
local LIMIT = ${lit(config.limit)}
local W = ${lit(config.windowMs)}
local LOG_REJECTED = ${config.logRejected === true ? 'true' : 'false'}
-- caddy-ratelimit: a full log whose oldest entry is in its last ms lets the request pass, unlogged.
local LAST_MS_PASSES = ${config.lastMsPasses === true ? 'true' : 'false'}

-- A clock that goes backwards reasons at the newest entry.
local t = now
local newest = redis.call('LINDEX', key, -1)
if newest and tonumber(newest) > now then
  t = tonumber(newest)
end
-- Drop entries that no longer count (t - entry >= W).
while true do
  local oldest = redis.call('LINDEX', key, 0)
  if not oldest or t - tonumber(oldest) < W then
    break
  end
  redis.call('LPOP', key)
end
local n = redis.call('LLEN', key)
if n < LIMIT then
  redis.call('RPUSH', key, int(t))
  keep(t + W - now)
  return {0, 0, 0, LIMIT - n - 1, t + W - now}
end
if LAST_MS_PASSES and t - tonumber(redis.call('LINDEX', key, 0)) == W - 1 then
  local last = tonumber(redis.call('LINDEX', key, -1)) + W
  keep(last - now)
  return {0, 0, 0, 0, last - now}
end
if LOG_REJECTED then
  redis.call('RPUSH', key, int(t))
end
-- Passing needs at most LIMIT - 1 entries left: the (after - LIMIT)-th oldest must have expired
-- (with LAST_MS_PASSES, be in its last ms).
local after = redis.call('LLEN', key)
local retryAt = tonumber(redis.call('LINDEX', key, after - LIMIT)) + W
if LAST_MS_PASSES then
  retryAt = retryAt - 1
end
local resetAt = tonumber(redis.call('LINDEX', key, -1)) + W
keep(resetAt - now)
return {2, 0, retryAt - now, 0, resetAt - now}
`;
}
