import type { AnchoredWindowConfig } from '../../core';
import { lit } from './prelude';

/**
 * Anchored window (src/core/algorithms/anchored-window.ts): a window per key that starts at the
 * key's first request. State: hash {s: window start, r: reset time, c: count, b: 1 when blocked}.
 */
export function anchoredWindowBody(config: AnchoredWindowConfig): string {
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
if COUNT_REJECTED then
  c = c + COST
end
if BLOCK > 0 and blocked == 0 then
  blocked = 1
  reset = now + BLOCK
end
save()
return {2, 0, reset - now, 0, reset - now}
`;
}
