import type { LeakyBucketConfig } from '../../core';
import { nginxRateMilli } from '../../core';
import { lit } from './prelude';

/**
 * nginx limit_req (src/core/algorithms/leaky-bucket.ts, after ngx_http_limit_req_module.c).
 * State: hash {e: excess in milli-requests, l: last}. Unlike nginx's zone, nothing evicts a key
 * before it is idle: nginx forgets drained nodes idle for 60 s when new keys arrive, and the
 * least recently used ones when the zone is full.
 */
export function leakyBucketBody(config: LeakyBucketConfig): string {
  const rate = nginxRateMilli(config.rate, config.rateUnit);
  const burstMilli = config.burst * 1000;
  const nodelay = config.delay === 'nodelay';
  const delayMilli = nodelay ? 0 : (config.delay as number) * 1000;
  // Excess up to which a request gets 'admit': ≤ delay, or a delay that rounds down to 0 ms.
  const admitMilli = nodelay
    ? burstMilli
    : Math.min(burstMilli, delayMilli + Math.floor((rate - 1) / 1000));
  return `
local RATE = ${lit(rate)}
local BURST = ${lit(burstMilli)}
local NODELAY = ${nodelay ? 'true' : 'false'}
local DELAY = ${lit(delayMilli)}
local ADMIT = ${lit(admitMilli)}

-- ms = now - last: below -60000 counts as 1, other negatives as 0 (nginx's clamps).
local function clamp(ms)
  if ms < -60000 then
    return 1
  elseif ms < 0 then
    return 0
  end
  return ms
end

-- The excess the next request would see (before the burst check).
local function nextExcess(excess, last)
  local drained = excess - math.floor((RATE * clamp(now - last)) / 1000)
  if drained + 1000 > 0 then
    return drained + 1000
  end
  return 0
end

-- Further requests at now that get 'admit': each adds 1000 to the excess the next one sees.
local function remaining(excess, last)
  local n = nextExcess(excess, last)
  if n > ADMIT then
    return 0
  end
  return math.floor((ADMIT - n) / 1000) + 1
end

-- Until the next request would see excess 0, as on a new node.
local function idleAfter(excess, last)
  local idleAt = last + ceildiv((excess + 1000) * 1000, RATE)
  if idleAt > now then
    return idleAt - now
  end
  return 0
end

local s = redis.call('HMGET', key, 'e', 'l')
if not s[1] then
  redis.call('HSET', key, 'e', '0', 'l', int(now))
  keep(idleAfter(0, now))
  return {0, 0, 0, remaining(0, now), idleAfter(0, now)}
end
local old = tonumber(s[1])
local last = tonumber(s[2])
local ms = clamp(now - last)
local excess = nextExcess(old, last)
if excess > BURST then
  -- The earliest time floor(rate·ms / 1000) covers the excess that must go.
  local retryAt = last + ceildiv((old + 1000 - BURST) * 1000, RATE)
  keep(idleAfter(old, last))
  return {2, 0, retryAt - now, 0, idleAfter(old, last)}
end
if ms ~= 0 then
  last = now
end
redis.call('HSET', key, 'e', int(excess), 'l', int(last))
keep(idleAfter(excess, last))
local delay = 0
if not NODELAY and excess > DELAY then
  delay = math.floor(((excess - DELAY) * 1000) / RATE)
end
if delay == 0 then
  return {0, 0, 0, remaining(excess, last), idleAfter(excess, last)}
end
return {1, delay, 0, remaining(excess, last), idleAfter(excess, last)}
`;
}
