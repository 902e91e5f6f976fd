import type { FixedWindowConfig } from '../../core';
import { lit } from './prelude';

/**
 * Fixed window (src/core/algorithms/fixed-window.ts). State: hash {w: window index, c: count}.
 * A clock that goes backwards stays in the stored window.
 */
export function fixedWindowBody(config: FixedWindowConfig): string {
  return `
local LIMIT = ${lit(config.limit)}
local W = ${lit(config.windowMs)}

local w = floordiv(now, W)
local s = redis.call('HMGET', key, 'w', 'c')
local sw, c = w, 0
if s[1] then
  sw = tonumber(s[1])
  c = tonumber(s[2])
end
if w > sw then
  sw = w
  c = 0
end
local reset = (sw + 1) * W - now
if c < LIMIT then
  c = c + 1
  redis.call('HSET', key, 'w', int(sw), 'c', int(c))
  keep(reset)
  return {0, 0, 0, LIMIT - c, reset}
end
keep(reset)
return {2, 0, reset, 0, reset}
`;
}
