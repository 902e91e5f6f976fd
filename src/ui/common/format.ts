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
  if (a < 1000) return `${t} ms`;
  if (a < 60_000) return `${seconds(t / 1000)} s`;
  const h = Math.trunc(a / 3_600_000);
  const text = `${h > 0 ? `${count(h)} h ` : ''}${Math.trunc(a / 60_000) % 60} min ${seconds((a % 60_000) / 1000)} s`;
  return (t < 0 ? '-' : '') + text.replace(/ 0 s$/, '').replace(/ 0 min$/, '');
}

/** A whole count with thousands separators. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? count(n) : '–';
}

/** "1×", "0.5×", "100×". */
export function formatSpeed(speed: number): string {
  return `${format('~g')(speed)}×`;
}
