import { VizSvg } from './VizSvg';
import { clamp, formatCount, formatDuration, px } from './format';
import type { AlgorithmViewProps } from './types';

type Inspection = AlgorithmViewProps<'calendar-windows'>['inspection'];
type Window = Inspection['windows'][number];

/** Height of one window's row, px. */
const ROW = 56;
const TOP = 8;

/** "full, rejecting", "over, answered OK (shadow_mode)" or "" for a window with room. */
function windowState(i: Inspection, win: Window): string {
  if (win.count < win.limit) return '';
  return i.shadowMode === true ? 'over, answered OK (shadow_mode)' : 'full, rejecting';
}

/** "resets in 20 s", or with Kong's counter TTL ending first, "counter expires in 29 d …". */
function windowReset(win: Window, nowMs: number): string {
  const reset = `resets in ${formatDuration(win.endMs - nowMs)}`;
  return win.expiresAtMs < win.endMs && win.count > 0
    ? `${reset}; its counter expires first, in ${formatDuration(win.expiresAtMs - nowMs)} (TTL)`
    : reset;
}

/** "Calendar windows: second 3 of 5, resets in 400 ms; minute 40 of 100, resets in 20 s." */
export function describeCalendarWindows(i: Inspection, nowMs: number): string {
  const parts = i.windows.map((win) => {
    const state = windowState(i, win);
    return (
      `${win.unit} ${formatCount(win.count)} of ${formatCount(win.limit)}` +
      `${state === '' ? '' : ` (${state})`}, ${windowReset(win, nowMs)}`
    );
  });
  return `Calendar windows: ${parts.join('; ')}.`;
}

/**
 * Calendar windows (Kong's rate-limiting plugin, Envoy's global rate limit service): one row per
 * configured period, shortest first. Each row is the period's count against its limit (a request
 * passes only while every period has room) and, under it, how far the clock is through the period
 * (UTC calendar periods for Kong, periods counted from 1970 for envoyproxy/ratelimit), with the
 * time to its reset. The requests themselves are on the timeline: a period can be a year long.
 */
export function CalendarWindowsView({
  inspection: i,
  nowMs,
  width = 480,
}: AlgorithmViewProps<'calendar-windows'>) {
  const w = Math.max(300, width);
  const x0 = 12;
  const x1 = w - 12;
  const height = TOP + i.windows.length * ROW + 4;
  return (
    <VizSvg
      className="rl-calendar-windows"
      width={w}
      height={height}
      label={describeCalendarWindows(i, nowMs)}
      interactive={false}
      testId="calendar-windows-view"
    >
      {i.windows.map((win, row) => {
        const y = TOP + row * ROW;
        const limit = Math.max(1, win.limit);
        const fill = (clamp(win.count, 0, limit) / limit) * (x1 - x0);
        const length = Math.max(1, win.endMs - win.startMs);
        const elapsed = (clamp(nowMs - win.startMs, 0, length) / length) * (x1 - x0);
        const state = windowState(i, win);
        const over = win.count - win.limit;
        return (
          <g
            key={win.unit}
            className={`rl-window rl-window--current${state === '' ? '' : ' rl-window--full'}`}
            data-testid="calendar-window"
            data-unit={win.unit}
          >
            <text className="rl-small" x={x0} y={y + 12} data-testid="calendar-window-count">
              <tspan className="rl-strong">{win.unit}</tspan> {formatCount(win.count)} /{' '}
              {formatCount(win.limit)}
              {over > 0 ? ` (${formatCount(over)} over)` : ''}
              {state === '' ? '' : ` · ${state}`}
            </text>
            <rect className="rl-window-frame" x={x0} y={y + 18} width={px(x1 - x0)} height={12} />
            {fill > 0 && (
              <rect className="rl-window-fill" x={x0} y={y + 18} width={px(fill)} height={12} />
            )}
            <rect className="rl-period-track" x={x0} y={y + 34} width={px(x1 - x0)} height={3} />
            <rect className="rl-period-elapsed" x={x0} y={y + 34} width={px(elapsed)} height={3} />
            <text
              className="rl-small rl-muted"
              x={x0}
              y={y + 50}
              data-testid="calendar-window-reset"
            >
              {windowReset(win, nowMs)}
            </text>
          </g>
        );
      })}
    </VizSvg>
  );
}
