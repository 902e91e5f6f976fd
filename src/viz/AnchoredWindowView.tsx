import { useMemo } from 'react';
import { StackedMarks } from './DenseMarks';
import { TimeAxis } from './TimeAxis';
import { VizSvg } from './VizSvg';
import { linearScale } from './linear';
import { clamp, formatCount, formatDuration, px } from './format';
import { requestsOfKey, stackColumns } from './requests';
import { slide } from './slide';
import type { AlgorithmViewProps } from './types';

const HEIGHT = 196;
const TANK_TOP = 44;
const TANK_BOTTOM = 120;
const MARKS_Y = 136;
const AXIS_Y = 166;
/** Marks stacked at one time, at most. */
const MAX_STACK = 3;

/**
 * "Anchored window: 3 of 5 since this key's first request; resets in 400 ms." — or, for a key with
 * no live window, "Anchored window: no window yet; the next request opens one of 1 s."
 */
export function describeAnchoredWindow(
  i: AlgorithmViewProps<'anchored-window'>['inspection'],
  nowMs: number,
): string {
  if (i.windowStartMs === null) {
    return i.windowMs === 0
      ? 'Anchored window: no record yet; the next request opens one whose points never expire.'
      : `Anchored window: no window yet; the next request opens one of ${formatDuration(i.windowMs)}.`;
  }
  const state = i.blocked ? 'blocked, rejecting; ' : i.count >= i.limit ? 'full, rejecting; ' : '';
  return (
    `Anchored window: ${formatCount(i.count)} of ${formatCount(i.limit)} since the window opened ` +
    `at ${formatDuration(i.windowStartMs)}; ${state}${resetText(i, nowMs)}.`
  );
}

/** "resets in 400 ms", "blocked, ends in 2 s", or "points never expire" (duration 0). */
function resetText(i: AlgorithmViewProps<'anchored-window'>['inspection'], nowMs: number): string {
  if (i.resetAtMs === null) return 'points never expire';
  return `${i.blocked ? 'blocked, ends' : 'resets'} in ${formatDuration(i.resetAtMs - nowMs)}`;
}

/**
 * Anchored window (express-rate-limit's MemoryStore, rate-limiter-flexible's RateLimiterMemory): a
 * key's window opens at its first request and lasts `windowMs` from there, so every key has its own
 * boundaries. The live window is a tank on a time axis around now, filled by its count up to the
 * limit (a count past the limit — rejected requests count too — is written beside it); a
 * rate-limiter-flexible block stretches the tank (dashed) to the block's end. Below, each request of
 * the key at its arrival time (● admitted, ■ delayed, ✕ rejected).
 */
export function AnchoredWindowView({
  inspection: i,
  nowMs,
  requests,
  width = 480,
  onSelectRequest,
}: AlgorithmViewProps<'anchored-window'>) {
  const w = Math.max(300, width);
  // A record that never expires (rate-limiter-flexible duration 0) is drawn on a 10 s axis.
  const W = i.windowMs === 0 ? 10_000 : Math.max(1, i.windowMs);
  const limit = Math.max(1, i.limit);
  const x0 = 12;
  const x1 = w - 12;

  const model = useMemo(() => {
    // Now sits at 70 % of the width; the axis spans 2.5 windows (2 on a phone), as the fixed window.
    const span = W * (w < 420 ? 2 : 2.5);
    const d0 = nowMs - span * 0.7;
    const d1 = nowMs + span * 0.3;
    const x = linearScale([d0, d1], [x0, x1]);
    const visible = requestsOfKey(requests, i.key).filter(
      (r) => r.arrivalMs <= nowMs && r.arrivalMs >= d0,
    );
    const sliding = slide(nowMs, x(nowMs), (x1 - x0) / span, 8 * W);
    const marks = stackColumns(visible, (r) => sliding.at(r.arrivalMs), 7, sliding.zeroPx);
    // The window's start and end as ticks; the end only when its label has room beside the start's.
    const ticks =
      i.windowStartMs === null || i.resetAtMs === null
        ? []
        : Math.abs(x(i.resetAtMs) - x(i.windowStartMs)) >= 60
          ? [i.windowStartMs, i.resetAtMs]
          : [i.windowStartMs];
    return { x, marks, sliding, ticks };
  }, [W, w, nowMs, requests, i.key, i.windowStartMs, i.resetAtMs, x1]);

  const { x } = model;
  const at = (t: number) => clamp(x(t), x0, x1);
  const label = describeAnchoredWindow(i, nowMs);
  const nowX = px(x(nowMs));
  const live = i.windowStartMs !== null;
  const start = i.windowStartMs ?? nowMs;
  // The key's record lives until resetAtMs: windowMs after its first request, or the end of a
  // rate-limiter-flexible block, which moves the record's expiry (the tank is drawn that long).
  const a = at(start);
  // A record without an end runs off the right edge.
  const b = i.resetAtMs === null ? (live ? x1 : at(start + W)) : at(i.resetAtMs);
  const fillTop = TANK_BOTTOM - (clamp(i.count, 0, limit) / limit) * (TANK_BOTTOM - TANK_TOP);
  const over = i.count - i.limit;

  return (
    <VizSvg
      className="rl-anchored-window"
      width={w}
      height={HEIGHT}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="anchored-window-view"
    >
      <text className="rl-big" x={x0} y={22} data-testid="window-count">
        {formatCount(live ? i.count : 0)}
        <tspan className="rl-muted rl-unit"> / {formatCount(i.limit)} in this window</tspan>
      </text>
      <text className="rl-small rl-muted" x={x1} y={22} textAnchor="end" data-testid="window-reset">
        {live ? resetText(i, nowMs) : 'opens at the next request'}
      </text>
      <g>
        {live && (
          <g
            className={`rl-window rl-window--current${i.blocked ? ' rl-window--blocked' : ''}`}
            data-testid="window"
            data-window-start={start}
          >
            <rect
              className="rl-window-frame"
              x={px(a + 1)}
              y={TANK_TOP}
              width={px(Math.max(0, b - a - 2))}
              height={TANK_BOTTOM - TANK_TOP}
            />
            {i.count > 0 && (
              <rect
                className="rl-window-fill"
                data-testid="window-fill"
                x={px(a + 1)}
                y={px(fillTop)}
                width={px(Math.max(0, b - a - 2))}
                height={px(TANK_BOTTOM - fillTop)}
              />
            )}
            {b - a > 64 && (
              <text
                className="rl-small"
                x={px((a + b) / 2)}
                y={TANK_TOP - 6}
                textAnchor="middle"
                data-testid="window-label"
              >
                {formatCount(i.count)}/{formatCount(limit)}
                {over > 0 ? ` · ${formatCount(over)} over` : ''}
                {i.blocked ? ' · blocked' : ''}
              </text>
            )}
          </g>
        )}
        <path className="rl-limit-line" d={`M${x0},${TANK_TOP}H${px(x1)}`} />
        {/* The now line goes under the marks: a request decided at this instant stays visible. */}
        <path className="rl-now" data-testid="now-line" d={`M${nowX},${TANK_TOP - 4}V${AXIS_Y}`} />
        <g transform={`translate(${model.sliding.shiftPx},0)`}>
          <StackedMarks
            marks={model.marks}
            baseY={MARKS_Y + 8}
            maxLevel={MAX_STACK}
            onSelect={onSelectRequest}
          />
        </g>
      </g>
      <TimeAxis scale={x} y={AXIS_Y} ticks={model.ticks} format={formatDuration} clearOfX={nowX} />
      <text className="rl-small rl-now-label" x={nowX} y={HEIGHT - 4} textAnchor="middle">
        now
      </text>
    </VizSvg>
  );
}
