/**
 * Windows on the clock. A replay of a log starts at virtual time 0, the first request it replays
 * (src/trace/replay.ts), and core's windowed algorithms count their windows from t = 0. Several
 * systems start their windows on the wall clock instead: a Redis INCR + EXPIRE window keyed by
 * ⌊now / window⌋, Kong's UTC seconds, minutes, hours, days and calendar months
 * (kong/tools/timestamp.lua get_timestamps), envoyproxy/ratelimit's (now / divider) · divider
 * (src/limiter/cache_key.go). Where the replay's windows fall elsewhere than those, a request near
 * a window's edge can be counted in a different window than the system counts it: the page says so
 * beside the figures rather than call them the system's own.
 */
import type { AlgorithmConfig } from '../core';
import { CALENDAR_UNITS, UNIT_SECONDS } from '../core/calendar';

/** The clock-started periods of `config` that the replay's origin `originMs` does not start. */
function misplaced(config: AlgorithmConfig, originMs: number): string[] {
  const off = (len: number) => ((originMs % len) + len) % len !== 0;
  switch (config.kind) {
    case 'fixed-window':
      return off(config.windowMs) ? ['window'] : [];
    case 'sliding-window-counter':
      return config.anchor !== 'entry' && off(config.windowMs) ? ['window'] : [];
    case 'calendar-windows': {
      const out: string[] = [];
      for (const unit of CALENDAR_UNITS) {
        if (config[unit] === undefined) continue;
        const calendar = config.align !== 'epoch' && (unit === 'month' || unit === 'year');
        // Core places calendar months and years as if virtual 0 were 1970-01-01T00:00Z, so only
        // an origin on that instant would start them where the calendar does.
        if (calendar ? originMs !== 0 : off(UNIT_SECONDS[unit] * 1000)) out.push(unit);
      }
      return out;
    }
    default:
      return [];
  }
}

/**
 * What differs when a replay whose virtual 0 stands for epoch ms `originMs` (written `at`) decides
 * `config` for a system (`who`, its name in a sentence) that starts its windows on the clock; null
 * when nothing does (algorithms without aligned windows, or an origin on every window's edge).
 */
export function clockWindowsNote(
  config: AlgorithmConfig,
  who: string,
  originMs: number,
  at: string,
): string | null {
  const periods = misplaced(config, originMs);
  if (periods.length === 0) return null;
  const names = periods.map((p) => `${p}s`);
  const them =
    names.length === 1
      ? `its ${names[0]}`
      : `its ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  const calendar =
    config.kind === 'calendar-windows' &&
    config.align !== 'epoch' &&
    (periods.includes('month') || periods.includes('year'));
  const how =
    config.kind === 'calendar-windows' && config.align !== 'epoch'
      ? calendar
        ? 'on the UTC clock and calendar'
        : 'on the UTC clock'
      : 'at multiples of their length since 1970 (UTC)';
  return (
    `This replay starts ${them} at ${at} (its time 0); ${who} starts them ${how}.` +
    ` A request near an edge can fall in a different window here than in ${who}, so near the limit these counts can differ from ${who}’s.`
  );
}
