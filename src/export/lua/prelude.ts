/**
 * The part every Redis script shares: the calling convention, the clock, exact integer helpers and
 * key expiry.
 *
 * Lua 5.1 (Redis's) has only doubles, like JavaScript, so the scripts repeat the core's arithmetic
 * operation for operation: the same products, quotients and floors give the same doubles, hence the
 * same decisions. Two places where Lua could lose digits are avoided on purpose:
 * - numbers passed to redis.call go through string.format('%d') (Redis itself would print a Lua
 *   number with %.17g or shortest-form and might choose an exponent);
 * - `%` is never used (Lua 5.1's a % b is a − floor(a/b)·b, which is not JavaScript's).
 */
import { MAX_TIME_MS } from '../../core';

/** A whole number as a Lua literal. */
export function lit(n: number): string {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a whole number: ${String(n)}`);
  return String(n);
}

/** Options every script takes. */
export interface LuaOptions {
  /**
   * Added to every PEXPIRE, in ms. 0 (default) expires a key exactly when the limiter is idle
   * again by the caller's clock. A little slack guards callers whose clocks run ahead of Redis's.
   */
  expirySlackMs?: number;
}

/**
 * The header comment, argument parsing and helpers. After it, `key` and `now` are set and the
 * algorithm's body follows.
 */
export function prelude(title: string, options: LuaOptions): string {
  const slack = options.expirySlackMs ?? 0;
  if (!Number.isSafeInteger(slack) || slack < 0) {
    throw new RangeError(`expirySlackMs must be a whole number ≥ 0, got ${String(slack)}`);
  }
  return `-- Rate Limit Lab: ${title}
-- EVAL <this script> 1 <key> [nowMs]
--   nowMs: the caller's clock in whole ms; omitted or empty: Redis's TIME.
-- Returns {outcome, delayMs, retryAfterMs, remaining, resetMs}:
--   outcome 0 admit, 1 delay (wait delayMs, then pass the request), 2 reject (retry after retryAfterMs);
--   remaining: further requests that would be admitted at this instant;
--   resetMs: time until the key is idle again (its expiry, by the caller's clock).
-- Needs Redis >= 5 (EVAL with TIME before writes: effects replication is the default).
local key = KEYS[1]
local arg = ARGV[1]
local now
if arg == nil or arg == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
elseif string.len(arg) <= 17 and string.find(arg, '^%-?%d+$') then
  now = tonumber(arg)
end
if now == nil or now > ${lit(MAX_TIME_MS)} or now < -${lit(MAX_TIME_MS)} then
  return redis.error_reply('nowMs must be a whole number of milliseconds from -${lit(MAX_TIME_MS)} to ${lit(MAX_TIME_MS)}')
end

-- floor(a / b) for whole a and whole b > 0, corrected where the double quotient rounds.
local function floordiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

local function ceildiv(a, b)
  return -floordiv(-a, b)
end

-- A whole number as Redis argument text, every digit kept.
local function int(n)
  return string.format('%d', n)
end

-- The key lives until the limiter is idle again (ms > 0 whenever state is kept).
local function keep(ms)
  redis.call('PEXPIRE', key, int(ms + ${lit(slack)}))
end
`;
}
