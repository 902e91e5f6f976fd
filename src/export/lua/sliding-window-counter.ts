import type { SlidingWindowCounterConfig } from '../../core';
import { lit } from './prelude';

/**
 * Cloudflare's sliding-window counter (src/core/algorithms/sliding-window-counter.ts). State: hash
 * {w: window index, p: previous count, c: current count, t: time of the last admitted request}.
 * Compared scaled by W so it stays exact: p·(W − e) + c·W < limit·W.
 */
export function slidingWindowCounterBody(config: SlidingWindowCounterConfig): string {
  return `
local LIMIT = ${lit(config.limit)}
local W = ${lit(config.windowMs)}

local s = redis.call('HMGET', key, 'w', 'p', 'c', 't')
local t = now
local sw, sc
if s[1] then
  sw = tonumber(s[1])
  sc = tonumber(s[3])
  local last = tonumber(s[4])
  if last > now then
    t = last
  end
end
local window = floordiv(t, W)
-- Roll the counts forward without storing them: a rejected request changes nothing.
local p, c = 0, 0
if s[1] then
  if window == sw then
    p = tonumber(s[2])
    c = sc
  elseif window == sw + 1 then
    p = sc
  end
end
local start = window * W
local e = t - start
local budget = LIMIT * W - p * (W - e)
if c * W < budget then
  c = c + 1
  redis.call('HSET', key, 'w', int(window), 'p', int(p), 'c', int(c), 't', int(t))
  keep(start + 2 * W - now)
  return {0, 0, 0, math.max(0, ceildiv(budget, W) - c), start + 2 * W - now}
end
-- The earliest pass: later in this window as the previous count's weight shrinks, or else early
-- in the next one, where this window's count becomes the previous.
local inWindow = W
if p > 0 and c < LIMIT then
  inWindow = floordiv((p + c - LIMIT) * W, p) + 1
end
local retryAt
if inWindow < W then
  retryAt = start + inWindow
else
  local next = 0
  if c > 0 then
    next = math.max(0, floordiv((c - LIMIT) * W, c) + 1)
  end
  retryAt = start + W + next
end
local resetAt = start + W
if c > 0 then
  resetAt = start + 2 * W
end
keep(resetAt - now)
return {2, 0, retryAt - now, 0, resetAt - now}
`;
}
