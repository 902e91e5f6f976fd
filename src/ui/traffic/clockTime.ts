// The access-log parts' clock times: a module of their own, so the first load does not carry it.

/**
 * A moment of a log as a clock time, UTC (the log's own offsets are already applied):
 * "2024-03-10 14:03:09 UTC", with milliseconds only when it has some ("… 14:03:09.250 UTC").
 */
export function formatClock(epochMs: number): string {
  if (!Number.isFinite(epochMs) || Math.abs(epochMs) > 8.64e15) return '–';
  const iso = new Date(Math.round(epochMs)).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, iso.endsWith('.000Z') ? 19 : 23)} UTC`;
}
