import type { TokenBucketConfig } from '../../core';
import { lit } from './prelude';

/**
 * Envoy's token bucket, with x/time/rate's reservations when maxDelayMs > 0
 * (src/core/algorithms/token-bucket.ts). State: hash {l: level, t: time of level}. Continuous
 * refill keeps the level scaled by fill_interval (one token = fillIntervalMs units, tokensPerFill
 * units per ms); interval refill keeps whole tokens.
 */
export function tokenBucketBody(config: TokenBucketConfig): string {
  const interval = config.refill === 'interval';
  const unit = interval ? 1 : config.fillIntervalMs;
  const levelAt = interval
    ? `local function levelAt(level, last, t)
  local fills = floordiv(t, F) - floordiv(last, F)
  if fills > 0 then
    return math.min(FULL, level + fills * TPF)
  end
  return level
end

-- When the bucket holds target units, starting from level at t (t when already there).
local function timeToReach(level, t, target)
  if level >= target then
    return t
  end
  return (floordiv(t, F) + ceildiv(target - level, TPF)) * F
end`
    : `local function levelAt(level, last, t)
  return math.min(FULL, level + (t - last) * TPF)
end

-- When the bucket holds target units, starting from level at t (t when already there).
local function timeToReach(level, t, target)
  if level >= target then
    return t
  end
  return t + ceildiv(target - level, TPF)
end`;
  return `
local TPF = ${lit(config.tokensPerFill)}
local F = ${lit(config.fillIntervalMs)}
local UNIT = ${lit(unit)}
local FULL = ${lit(config.maxTokens * unit)}
local MAX_DELAY = ${lit(config.maxDelayMs ?? 0)}

-- Units at t >= last (${interval ? 'whole tokens at every k·fill_interval' : 'TPF units every ms'}), capped at FULL.
${levelAt}

local s = redis.call('HMGET', key, 'l', 't')
local t = now
local level = FULL
if s[1] then
  local last = tonumber(s[2])
  -- A clock that goes backwards reasons at the stored time.
  if last > t then
    t = last
  end
  level = levelAt(tonumber(s[1]), last, t)
end
if level >= UNIT then
  level = level - UNIT
  redis.call('HSET', key, 'l', int(level), 't', int(t))
  local reset = timeToReach(level, t, FULL) - now
  keep(reset)
  return {0, 0, 0, floordiv(level, UNIT), reset}
end
-- No token: when does the next one not yet promised exist?
local tokenAt = timeToReach(level, t, UNIT)
if MAX_DELAY > 0 and tokenAt - t <= MAX_DELAY then
  level = level - UNIT
  redis.call('HSET', key, 'l', int(level), 't', int(t))
  local reset = timeToReach(level, t, FULL) - now
  keep(reset)
  return {1, tokenAt - t, 0, 0, reset}
end
local reset = timeToReach(level, t, FULL) - now
keep(reset)
return {2, 0, tokenAt - MAX_DELAY - now, 0, reset}
`;
}
