import type { CalendarWindowsConfig } from '../../core';
import { UNIT_SECONDS, calendarUnits } from '../../core';
import { lit } from './prelude';

/**
 * Calendar windows (src/core/algorithms/calendar-windows.ts): several fixed windows at once, each
 * aligned to its UTC period. State: hash {l: latest time decided at, and per window i: p<i> period
 * start, c<i> count, e<i> counter expiry}. Calendar months and years use the same days ↔ civil date
 * arithmetic as src/core/calendar.ts (Howard Hinnant's algorithms).
 */
export function calendarWindowsBody(config: CalendarWindowsConfig): string {
  const units = calendarUnits(config);
  const calendar = (config.align ?? 'calendar') === 'calendar';
  const table = units
    .map(
      (u) =>
        `  {limit = ${lit(u.limit)}, len = ${lit(UNIT_SECONDS[u.unit] * 1000)}, cal = ${calendar && (u.unit === 'month' || u.unit === 'year') ? `'${u.unit}'` : 'nil'}}`,
    )
    .join(',\n');
  return `
local UNITS = {
${table}
}
local COUNT_REJECTED = ${config.countRejected === true ? 'true' : 'false'}
local TTL = ${config.counterTtl === true ? 'true' : 'false'}
local SHADOW = ${config.shadowMode === true ? 'true' : 'false'}
local DAY = 86400000

local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = floordiv(y, 400)
  local yoe = y - era * 400
  local mp = m + 9
  if mp >= 12 then mp = mp - 12 end
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end

local function civil_from_days(days)
  local z = days + 719468
  local era = floordiv(z, 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp + 3
  if mp >= 10 then m = mp - 9 end
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return y, m
end

-- The period of unit u containing t: start, end.
local function period(u, t)
  if u.cal == nil then
    local s = floordiv(t, u.len) * u.len
    return s, s + u.len
  end
  local y, m = civil_from_days(floordiv(t, DAY))
  if u.cal == 'month' then
    local ny, nm = y, m + 1
    if nm == 13 then ny, nm = y + 1, 1 end
    return days_from_civil(y, m, 1) * DAY, days_from_civil(ny, nm, 1) * DAY
  end
  return days_from_civil(y, 1, 1) * DAY, days_from_civil(y + 1, 1, 1) * DAY
end

local n = #UNITS
local fields = {'l'}
for i = 1, n do
  fields[#fields + 1] = 'p' .. i
  fields[#fields + 1] = 'c' .. i
  fields[#fields + 1] = 'e' .. i
end
local s = redis.call('HMGET', key, unpack(fields))
local t = now
if s[1] and tonumber(s[1]) > now then t = tonumber(s[1]) end
local p, c, e = {}, {}, {}
local blocked = false
for i = 1, n do
  local u = UNITS[i]
  local ps = period(u, t)
  local sp, sc, se = s[3 * i - 1], s[3 * i], s[3 * i + 1]
  if sp and tonumber(sp) == ps and t < tonumber(se) then
    p[i], c[i], e[i] = ps, tonumber(sc), tonumber(se)
  else
    p[i], c[i], e[i] = nil, 0, nil
  end
  if c[i] >= u.limit then blocked = true end
end
if (not blocked) or COUNT_REJECTED or SHADOW then
  for i = 1, n do
    local u = UNITS[i]
    if c[i] > 0 then
      c[i] = c[i] + 1
    else
      local ps, pe = period(u, t)
      p[i], c[i], e[i] = ps, 1, pe
      if TTL and t + u.len < pe then e[i] = t + u.len end
    end
  end
end
local remaining, retry_at, reset_at = nil, now, now
local args = {'l', int(t)}
for i = 1, n do
  local u = UNITS[i]
  local left = u.limit - c[i]
  if left < 0 then left = 0 end
  if remaining == nil or left < remaining then remaining = left end
  if c[i] > 0 then
    if e[i] > reset_at then reset_at = e[i] end
    if c[i] >= u.limit and e[i] > retry_at then retry_at = e[i] end
    args[#args + 1] = 'p' .. i
    args[#args + 1] = int(p[i])
    args[#args + 1] = 'c' .. i
    args[#args + 1] = int(c[i])
    args[#args + 1] = 'e' .. i
    args[#args + 1] = int(e[i])
  end
end
if reset_at > now then
  redis.call('HSET', key, unpack(args))
  keep(reset_at - now)
end
if blocked and SHADOW then
  return {0, 0, 0, 0, reset_at - now}
end
if blocked then
  return {2, 0, retry_at - now, 0, reset_at - now}
end
return {0, 0, 0, remaining, reset_at - now}
`;
}
