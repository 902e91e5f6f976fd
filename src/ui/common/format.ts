import { format } from 'd3-format';

const seconds = format(',.3~f');
const count = format(',d');

/**
 * A virtual time or a duration for people: "850 ms", "2.35 s", "1 min 5 s", and from an hour up
 * in hours, minutes and seconds: "10 h 0 min 49 s", "22 h 5 min", "83 h" (zero parts are left
 * out at the end only).
 */
export function formatTime(tMs: number): string {
  if (!Number.isFinite(tMs)) return '–';
  const t = Math.round(tMs);
  const a = Math.abs(t);
  const sign = t < 0 ? '-' : '';
  if (a < 1000) return `${t} ms`;
  if (a < 60_000) return `${seconds(t / 1000)} s`;
  const h = Math.trunc(a / 3_600_000);
  const m = Math.trunc((a - h * 3_600_000) / 60_000);
  const s = (a - h * 3_600_000 - m * 60_000) / 1000;
  const parts =
    h > 0 ? [`${count(h)} h`, `${m} min`, `${seconds(s)} s`] : [`${m} min`, `${seconds(s)} s`];
  while (parts.length > 1 && /^0 /.test(parts.at(-1) as string)) parts.pop();
  return sign + parts.join(' ');
}

/**
 * A moment of a log as a clock time, UTC (the log's own offsets are already applied):
 * "2024-03-10 14:03:09 UTC", with milliseconds only when it has some ("… 14:03:09.250 UTC").
 */
export function formatClock(epochMs: number): string {
  if (!Number.isFinite(epochMs) || Math.abs(epochMs) > 8.64e15) return '–';
  const iso = new Date(Math.round(epochMs)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, iso.endsWith('.000Z') ? 19 : 23)} UTC`;
}

/** A whole count with thousands separators. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? count(n) : '–';
}

/** "1×", "0.5×", "100×". */
export function formatSpeed(speed: number): string {
  return `${format('~g')(speed)}×`;
}
