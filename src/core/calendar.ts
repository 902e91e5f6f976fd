/**
 * UTC calendar periods in whole milliseconds since 1970-01-01T00:00:00Z, without `Date` (pure
 * integer arithmetic; Unix time has no leap seconds, so a day is always 86,400,000 ms).
 * Days ↔ civil dates follow Howard Hinnant's "chrono-Compatible Low-Level Date Algorithms"
 * (http://howardhinnant.github.io/date_algorithms.html, days_from_civil / civil_from_days).
 */
import { floorDiv } from './int';
import type { CalendarUnit } from './types';

export const CALENDAR_UNITS: readonly CalendarUnit[] = [
  'second',
  'minute',
  'hour',
  'day',
  'month',
  'year',
];

/** Each unit's nominal length in seconds (Kong `expiration.lua`, envoyproxy/ratelimit `UnitToDivider`). */
export const UNIT_SECONDS: Readonly<Record<CalendarUnit, number>> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  month: 2_592_000,
  year: 31_536_000,
};

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of the proleptic Gregorian date y-m-d (m 1–12, d 1–31). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = floorDiv(yy, 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** The civil date of `days` since 1970-01-01: [year, month 1–12, day 1–31]. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468;
  const era = floorDiv(z, 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return [y, m, d];
}

/**
 * The period of `unit` containing `tMs`: [start, end) in ms. 'calendar' months and years are UTC
 * calendar months and years (Kong `kong/tools/timestamp.lua` get_timestamps); 'epoch' periods are
 * UNIT_SECONDS long counted from 1970 (envoyproxy/ratelimit `src/limiter/cache_key.go`:
 * (now / divider) · divider).
 */
export function periodOf(
  unit: CalendarUnit,
  tMs: number,
  align: 'calendar' | 'epoch',
): [startMs: number, endMs: number] {
  if (align === 'epoch' || (unit !== 'month' && unit !== 'year')) {
    const len = UNIT_SECONDS[unit] * 1000;
    const start = floorDiv(tMs, len) * len;
    return [start, start + len];
  }
  const [y, m] = civilFromDays(floorDiv(tMs, DAY_MS));
  if (unit === 'month') {
    const next = m === 12 ? daysFromCivil(y + 1, 1, 1) : daysFromCivil(y, m + 1, 1);
    return [daysFromCivil(y, m, 1) * DAY_MS, next * DAY_MS];
  }
  return [daysFromCivil(y, 1, 1) * DAY_MS, daysFromCivil(y + 1, 1, 1) * DAY_MS];
}
