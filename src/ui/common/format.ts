import { format } from 'd3-format';

const seconds = format(',.3~f');
const count = format(',d');

/** A virtual time for people: "2.35 s", "850 ms", "1 min 5 s". */
export function formatTime(tMs: number): string {
  if (!Number.isFinite(tMs)) return '–';
  const t = Math.round(tMs);
  if (Math.abs(t) < 1000) return `${t} ms`;
  if (Math.abs(t) < 60_000) return `${seconds(t / 1000)} s`;
  const m = Math.trunc(t / 60_000);
  const rest = Math.abs(t - m * 60_000) / 1000;
  return rest === 0 ? `${m} min` : `${m} min ${seconds(rest)} s`;
}

/** A whole count with thousands separators. */
export function formatCount(n: number): string {
  return Number.isFinite(n) ? count(n) : '–';
}

/** "1×", "0.5×", "100×". */
export function formatSpeed(speed: number): string {
  return `${format('~g')(speed)}×`;
}
