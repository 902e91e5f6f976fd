/**
 * What Kong's rate-limiting plugin sends for a decision (kong.ts has the model).
 */
import type { AlgorithmConfig, CalendarUnit, Decision } from '../../core';
import { UNIT_SECONDS, calendarUnits, periodOf } from '../../core';
import { KONG_SOURCES } from '../sources/kong';
import { makeResponse, wallClockMs } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

const PERIOD_NAME: Readonly<Record<CalendarUnit, string>> = {
  second: 'Second',
  minute: 'Minute',
  hour: 'Hour',
  day: 'Day',
  month: 'Month',
  year: 'Year',
};

/**
 * Kong's headers for one request at wall-clock `nowMs` (ms since the Unix epoch; Kong reads
 * ngx.time(): whole seconds of the wall clock) from the per-period usage before it (`before`, the
 * key's state just before the decision).
 */
export function kongHeaders(
  units: ReadonlyArray<{ unit: CalendarUnit; limit: number }>,
  usage: ReadonlyMap<CalendarUnit, number>,
  nowMs: number,
): { stop: boolean; fields: SystemHeader[] } {
  const now = Math.floor(nowMs / 1000) * 1000; // handler.lua: time() * 1000
  const remainingBefore = units.map((u) => u.limit - (usage.get(u.unit) ?? 0));
  const stop = remainingBefore.some((r) => r <= 0);
  const fields: SystemHeader[] = [];
  let best: { limit: number; window: number; remaining: number; reset: number } | undefined;
  units.forEach((u, i) => {
    let remaining = remainingBefore[i] as number;
    // handler.lua: the stopping period (or every period when nothing stops) counts this request.
    if (!stop || remaining <= 0) remaining -= 1;
    remaining = Math.max(0, remaining);
    const window = UNIT_SECONDS[u.unit];
    if (
      best === undefined ||
      remaining < best.remaining ||
      (remaining === best.remaining && window > best.window)
    ) {
      const start = periodOf(u.unit, now, 'calendar')[0];
      const reset = Math.max(1, window - Math.floor((now - start) / 1000));
      best = { limit: u.limit, window, remaining, reset };
    }
    fields.push(
      { name: `X-RateLimit-Limit-${PERIOD_NAME[u.unit]}`, value: String(u.limit) },
      { name: `X-RateLimit-Remaining-${PERIOD_NAME[u.unit]}`, value: String(remaining) },
    );
  });
  if (best !== undefined) {
    fields.push(
      { name: 'RateLimit-Limit', value: String(best.limit) },
      { name: 'RateLimit-Remaining', value: String(best.remaining) },
      { name: 'RateLimit-Reset', value: String(best.reset) },
    );
    if (stop) fields.push({ name: 'Retry-After', value: String(best.reset) });
  }
  return { stop, fields };
}

/** What kong sends for `decision` (SystemModel.response). */
export function kongResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const units = config.kind === 'calendar-windows' ? calendarUnits(config) : [];
  const before = options.before;
  const usage = new Map<CalendarUnit, number>();
  if (before !== undefined && before.kind === 'calendar-windows') {
    for (const w of before.windows) usage.set(w.unit, w.count);
  }
  // handler.lua access(): current_timestamp = ngx.time() * 1000 is the wall clock at the request,
  // and RateLimit-Reset counts to the end of the period holding it (timestamp.lua get_timestamps,
  // UTC), so the reset is written at the request's wall-clock instant, not its scenario time.
  const { fields } = kongHeaders(units, usage, wallClockMs(options));
  return makeResponse(decision.outcome === 'reject' ? 429 : 200, fields, KONG_SOURCES);
}
