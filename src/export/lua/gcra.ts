import type { GcraConfig } from '../../core';
import { ceilDiv } from '../../core';
import { lit } from './prelude';

/**
 * redis-cell's GCRA (src/core/algorithms/gcra.ts). State: hash {ms, f}: the theoretical arrival
 * time tat = ms + f / count, kept in units of 1/count ms so that T = period / count is whole,
 * without ever multiplying an absolute time by count.
 */
export function gcraBody(config: GcraConfig): string {
  const { count, periodMs, burst } = config;
  const tauUnits = periodMs * (burst + 1);
  return `
local COUNT = ${lit(count)}
local T_UNITS = ${lit(periodMs)}
local TAU = ${lit(tauUnits)}
local T_WHOLE = ${lit(Math.floor(periodMs / count))}
local T_FRAC = ${lit(periodMs - Math.floor(periodMs / count) * count)}
local TAU_CEIL_MS = ${lit(ceilDiv(tauUnits, count))}

local s = redis.call('HMGET', key, 'ms', 'f')
-- base = max(tat, now)
local ms, frac = now, 0
local tatMs, tatFrac
if s[1] then
  tatMs = tonumber(s[1])
  tatFrac = tonumber(s[2])
  if tatMs > now or (tatMs == now and tatFrac > 0) then
    ms = tatMs
    frac = tatFrac
  end
end
-- new = base + T
frac = frac + T_FRAC
ms = ms + T_WHOLE
if frac >= COUNT then
  frac = frac - COUNT
  ms = ms + 1
end
if ms - now <= TAU_CEIL_MS + 1 then
  local ahead = (ms - now) * COUNT + frac
  if ahead <= TAU then
    redis.call('HSET', key, 'ms', int(ms), 'f', int(frac))
    keep(ceildiv(ahead, COUNT))
    return {0, 0, 0, floordiv(TAU - ahead, T_UNITS), ceildiv(ahead, COUNT)}
  end
end
-- Rejected (a fresh key never is, as T <= tau): retry when now' >= new - tau.
local reset = tatMs - now + ceildiv(tatFrac, COUNT)
keep(reset)
return {2, 0, ms - now + ceildiv(frac - TAU, COUNT), 0, reset}
`;
}
