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

/**
 * Clock times of moments that may share one day: the day once (`day`, "2024-03-10", or null when
 * they span several) and each moment as `at` writes it: the time alone ("14:03:09") on one day,
 * else the whole `formatClock` text.
 */
export function clockOfDay(
  fromMs: number,
  toMs: number,
): {
  day: string | null;
  at: (epochMs: number) => string;
} {
  const a = formatClock(fromMs);
  const day =
    a.slice(0, 10) === formatClock(toMs).slice(0, 10) && a !== '–' ? a.slice(0, 10) : null;
  return {
    day,
    at: (ms) => (day === null ? formatClock(ms) : formatClock(ms).slice(11, -4)),
  };
}

/**
 * The span of a file a trace was read out of, `2026-01-05 00:00:00 UTC to 2026-01-06 00:00:00 UTC`;
 * null when the trace is the whole file (no span given).
 */
export function fileSpanText(span: { spanFromMs?: number; spanToMs?: number }): string | null {
  const { spanFromMs: a, spanToMs: b } = span;
  return a === undefined || b === undefined ? null : `${formatClock(a)} to ${formatClock(b)}`;
}
