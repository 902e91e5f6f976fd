import { NEVER_MS } from '../../core';
import type { AnchoredWindowConfig } from '../../core';
import { lit } from './prelude';

/** What both scripts do with a rejected request: count it if asked, start a block, and save. */
const REJECTED = `if COUNT_REJECTED then
  c = c + COST
end
if BLOCK > 0 and blocked == 0 then
  blocked = 1
  reset = now + BLOCK
end
save()`;

/**
 * Anchored window (src/core/algorithms/anchored-window.ts): a window per key that starts at the
 * key's first request. State: hash {s: window start, r: reset time, c: count, b: 1 when blocked}.
 * With windowMs 0 (rate-limiter-flexible duration 0) a record never expires unless blocked: it is
 * stored with r = -1 and no TTL, and its waits are NEVER_MS, as the core's.
 */
export function anchoredWindowBody(config: AnchoredWindowConfig): string {
  if (config.windowMs === 0) return neverBody(config);
  return `
local LIMIT = ${lit(config.limit)}
local W = ${lit(config.windowMs)}
local COUNT_REJECTED = ${config.countRejected === true ? 'true' : 'false'}
local BLOCK = ${lit(config.blockMs ?? 0)}
local EVENLY = ${config.execEvenly === true ? 'true' : 'false'}
local MIN_DELAY = ${lit(config.execEvenlyMinDelayMs ?? Math.ceil(config.windowMs / config.limit))}
local COST = ${lit(config.cost ?? 1)}

local s = redis.call('HMGET', key, 's', 'r', 'c', 'b')
local start, reset, c, blocked = now, now + W, 0, 0
local first = true
if s[2] and tonumber(s[2]) > now then
  start = tonumber(s[1])
  reset = tonumber(s[2])
  c = tonumber(s[3])
  blocked = tonumber(s[4])
  first = false
end
local function save()
  redis.call('HSET', key, 's', int(start), 'r', int(reset), 'c', int(c), 'b', int(blocked))
  keep(reset - now)
end
if c + COST <= LIMIT then
  c = c + COST
  save()
  local left = reset - now
  if EVENLY and not first then
    local d = ceildiv(left, LIMIT - c + 2)
    if d < MIN_DELAY then
      d = c * MIN_DELAY
    end
    if d > 0 then
      return {1, d, 0, 0, left}
    end
  end
  if EVENLY then
    return {0, 0, 0, 0, left}
  end
  return {0, 0, 0, math.floor((LIMIT - c) / COST), left}
end
${REJECTED}
return {2, 0, reset - now, 0, reset - now}
`;
}

/** The windowMs 0 variant: reset is math.huge in the script, -1 in the hash, NEVER_MS in replies. */
function neverBody(config: AnchoredWindowConfig): string {
  return `
local LIMIT = ${lit(config.limit)}
local NEVER = ${lit(NEVER_MS)}
local COUNT_REJECTED = ${config.countRejected === true ? 'true' : 'false'}
local BLOCK = ${lit(config.blockMs ?? 0)}
local COST = ${lit(config.cost ?? 1)}

local s = redis.call('HMGET', key, 's', 'r', 'c', 'b')
local start, reset, c, blocked = now, math.huge, 0, 0
if s[2] then
  local r = tonumber(s[2])
  if r == -1 then
    r = math.huge
  end
  if r > now then
    start = tonumber(s[1])
    reset = r
    c = tonumber(s[3])
    blocked = tonumber(s[4])
  end
end
local function save()
  if reset == math.huge then
    redis.call('HSET', key, 's', int(start), 'r', '-1', 'c', int(c), 'b', int(blocked))
    redis.call('PERSIST', key)
  else
    redis.call('HSET', key, 's', int(start), 'r', int(reset), 'c', int(c), 'b', int(blocked))
    keep(reset - now)
  end
end
local function wait()
  if reset == math.huge then
    return NEVER
  end
  return reset - now
end
-- A record that never expires reports msBeforeNext -1: execEvenly does not delay it.
if c + COST <= LIMIT then
  c = c + COST
  save()
  local rest = 0
  if not ${config.execEvenly === true ? 'true' : 'false'} then
    rest = math.floor((LIMIT - c) / COST)
  end
  return {0, 0, 0, rest, wait()}
end
${REJECTED}
return {2, 0, wait(), 0, wait()}
`;
}
