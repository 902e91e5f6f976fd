import { memo, useContext, useId, useMemo } from 'react';
import { AnimatingContext } from './animating';
import { linearScale } from './linear';
import { range } from 'd3-array/first-paint';
import { StackedMarks } from './DenseMarks';
import { AxisTick, TimeAxis } from './TimeAxis';
import { VizSvg } from './VizSvg';
import { clamp, formatCount, formatDuration, px } from './format';
import { requestsOfKey, stackColumns } from './requests';
import { slide } from './slide';
import type { AlgorithmViewProps, VizRequest } from './types';

const HEIGHT = 196;
const TANK_TOP = 44;
const TANK_BOTTOM = 120;
const MARKS_Y = 136;
const AXIS_Y = 166;
/** At most this many windows are drawn: tiny windows must not make thousands of rects. */
const MAX_WINDOWS = 24;
/** Marks stacked at one time, at most. */
const MAX_STACK = 3;

/** "Fixed window: 7 of 10 in this window; resets in 400 ms." */
export function describeFixedWindow(
  i: AlgorithmViewProps<'fixed-window'>['inspection'],
  nowMs: number,
): string {
  return (
    `Fixed window: ${formatCount(i.count)} of ${formatCount(i.limit)} in this window; ` +
    `${i.count >= i.limit ? 'full, rejecting; ' : ''}resets in ${formatDuration(i.windowEndMs - nowMs)}.`
  );
}

/**
 * Fixed window: windows aligned to t = 0 on a time axis around now. Each window is a tank that fills
 * with its admitted requests up to the limit and starts empty at the boundary; below it, each request
 * at its arrival time (● admitted, ✕ rejected).
 */
export function FixedWindowView({
  inspection: i,
  nowMs,
  requests,
  width = 480,
  onSelectRequest,
  requestsFromMs = Number.NEGATIVE_INFINITY,
  countRequests,
}: AlgorithmViewProps<'fixed-window'>) {
  const animating = useContext(AnimatingContext);
  // An id that is a plain name in `url(#…)`, whatever useId's characters.
  const clipId = `rl-window-clip${useId().replace(/[^\w-]/g, '')}`;
  const w = Math.max(300, width);
  const W = Math.max(1, i.windowMs);
  const limit = Math.max(1, i.limit);
  const x0 = 12;
  const x1 = w - 12;

  const model = useMemo(() => {
    // Now sits at 70 % of the width; the axis spans 2.5 windows (fewer pixels per window on a phone).
    const span = W * (w < 420 ? 2 : 2.5);
    const d0 = nowMs - span * 0.7;
    const d1 = nowMs + span * 0.3;
    const x = linearScale([d0, d1], [x0, x1]);
    const first = Math.floor(d0 / W);
    const last = Math.min(Math.floor(d1 / W), first + MAX_WINDOWS);
    const mine = requestsOfKey(requests, i.key).filter((r) => r.arrivalMs <= nowMs);
    const visible = mine.filter((r) => r.arrivalMs >= d0);
    // Admitted and rejected requests per window drawn, in one pass (a frame used to filter the
    // requests twice per window: allocation per frame).
    const admittedIn = new Array<number>(last - first + 1).fill(0);
    const rejectedIn = new Array<number>(last - first + 1).fill(0);
    for (let n = 0; n < mine.length; n += 1) {
      const r = mine[n] as VizRequest;
      const k = Math.floor(r.arrivalMs / W) - first;
      if (!(k >= 0 && k <= last - first)) continue; // also NaN
      if (r.outcome === 'reject') rejectedIn[k] = (rejectedIn[k] as number) + 1;
      else admittedIn[k] = (admittedIn[k] as number) + 1;
    }
    const windows = range(first, last + 1).map((k) => {
      const start = k * W;
      const current = start === i.windowStartMs;
      // Exact counts from the whole run where the requests were cut (up to now: arrivals are
      // whole ms).
      const exact =
        start < requestsFromMs && start <= i.windowStartMs
          ? (countRequests?.(i.key, start, Math.min(start + W, Math.floor(nowMs) + 1)) ?? null)
          : null;
      // The current window's count is the limiter's own; past windows count the requests given.
      const admitted = current
        ? i.count
        : start > i.windowStartMs
          ? 0
          : exact !== null
            ? exact.admitted + exact.delayed
            : (admittedIn[k - first] as number);
      return {
        k,
        start,
        current,
        future: start > i.windowStartMs,
        // Counted from requests that may not reach back to its start: a lower bound. The current
        // window's admitted count is the limiter's own; its rejected count is from the requests.
        partial: !current && start < requestsFromMs && exact === null,
        rejectedPartial: start < requestsFromMs && exact === null,
        admitted,
        rejected: exact?.rejected ?? (rejectedIn[k - first] as number),
      };
    });
    // The marks slide with the axis in a group of their own (see slide.ts); the axis spans 2.5
    // windows, so the group's base time moves every 8 windows.
    const sliding = slide(nowMs, x(nowMs), (x1 - x0) / span, 8 * W);
    const marks = stackColumns(visible, (r) => sliding.at(r.arrivalMs), 7, sliding.zeroPx);
    return { x, d0, d1, windows, marks, sliding, ticks: windows.map((win) => win.start) };
  }, [W, w, nowMs, requests, i.key, i.windowStartMs, i.count, x1, requestsFromMs, countRequests]);

  const { x, sliding } = model;
  const fillY = (count: number) =>
    TANK_BOTTOM - (clamp(count, 0, limit) / limit) * (TANK_BOTTOM - TANK_TOP);
  const label = describeFixedWindow(i, nowMs);
  const nowX = px(x(nowMs));
  const tankX = (t: number) => clamp(x(t), x0, x1);
  const tanks = model.windows.map((win) => {
    // Whether it is labelled, and where, follows its visible part (clamped to the axis).
    const a = tankX(win.start);
    const b = tankX(win.start + W);
    // Playing, a tank sits in the sliding group at its whole extent, cut by the clip; its label
    // stays centred on the visible part, so only a tank at an end of the axis moves its label.
    const [left, right] = animating ? [sliding.at(win.start), sliding.at(win.start + W)] : [a, b];
    const inside = a === x(win.start) && b === x(win.start + W);
    const labelX = !animating
      ? (a + b) / 2
      : inside
        ? sliding.at(win.start + W / 2)
        : (a + b) / 2 - sliding.shiftPx;
    return (
      <WindowTank
        key={win.k}
        start={win.start}
        className={`rl-window${win.current ? ' rl-window--current' : ''}${win.future ? ' rl-window--future' : ''}`}
        left={left}
        right={right}
        labelX={labelX}
        fillY={win.admitted > 0 ? fillY(win.admitted) : null}
        label={
          !win.future && b - a > 56
            ? `${win.partial ? '≥' : ''}${formatCount(win.admitted)}/${formatCount(limit)}`
            : null
        }
        rejected={
          win.rejected > 0
            ? ` · ✕${win.rejectedPartial ? '≥' : ''}${formatCount(win.rejected)}`
            : ''
        }
      />
    );
  });

  return (
    <VizSvg
      className="rl-fixed-window"
      width={w}
      height={HEIGHT}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="fixed-window-view"
    >
      <text className="rl-big" x={x0} y={22} data-testid="window-count">
        {formatCount(i.count)}
        <tspan className="rl-muted rl-unit">{` / ${formatCount(i.limit)} in this window`}</tspan>
      </text>
      <text className="rl-small rl-muted" x={x1} y={22} textAnchor="end" data-testid="window-reset">
        {`resets in ${formatDuration(i.windowEndMs - nowMs)}`}
      </text>
      {animating && (
        // The tanks are cut at the axis's ends; the counts above them are not (as a still frame
        // draws them, centred on a tank's visible part).
        <clipPath id={clipId}>
          <rect x={0} y={0} width={w} height={TANK_TOP - 2} />
          <rect x={x0} y={TANK_TOP - 2} width={x1 - x0} height={HEIGHT} />
        </clipPath>
      )}
      <g>
        {animating ? (
          // Playing: the tanks slide with the marks, so a frame changes one translate and the
          // tank whose count moved, not every tank's geometry. Cut at the axis's ends
          // rather than clamped to them; a still frame clamps, as before.
          <g clipPath={`url(#${clipId})`}>
            <g transform={`translate(${sliding.shiftPx},0)`}>{tanks}</g>
          </g>
        ) : (
          tanks
        )}
        <path className="rl-limit-line" d={`M${x0},${TANK_TOP}H${px(x1)}`} />
        {/* The now line goes under the marks: a request decided at this instant stays visible. */}
        <path className="rl-now" data-testid="now-line" d={`M${nowX},${TANK_TOP - 4}V${AXIS_Y}`} />
        <g transform={`translate(${sliding.shiftPx},0)`}>
          <StackedMarks
            marks={model.marks}
            baseY={MARKS_Y + 8}
            maxLevel={MAX_STACK}
            onSelect={onSelectRequest}
          />
        </g>
      </g>
      {animating ? (
        <g className="rl-axis" aria-hidden="true">
          <path className="rl-axis-line" d={`M${px(x0)},${AXIS_Y}H${px(x1)}`} />
          <g transform={`translate(${sliding.shiftPx},0)`}>
            {model.ticks
              .filter((t) => t >= model.d0 && t <= model.d1)
              .map((t) => (
                <AxisTick
                  key={t}
                  x={sliding.at(t)}
                  y={AXIS_Y}
                  label={Math.abs(px(x(t)) - nowX) >= 26 ? formatDuration(t) : null}
                />
              ))}
          </g>
        </g>
      ) : (
        <TimeAxis
          scale={x}
          y={AXIS_Y}
          ticks={model.ticks}
          format={formatDuration}
          clearOfX={nowX}
        />
      )}
      <text className="rl-small rl-now-label" x={nowX} y={HEIGHT - 4} textAnchor="middle">
        now
      </text>
    </VizSvg>
  );
}

/**
 * One window's tank from x `left` to `right` (px): its frame, its fill down from `fillY` (none:
 * `null`) and its counts above it, centred on `labelX` (none: `label` `null`). Memoised: a
 * playing view draws its tanks in a sliding group, where a tank whose count did not change keeps
 * the same props from frame to frame and is not rendered again.
 */
const WindowTank = memo(function WindowTank({
  start,
  className,
  left,
  right,
  labelX,
  fillY,
  label,
  rejected,
}: {
  start: number;
  className: string;
  left: number;
  right: number;
  /** The label's centre, px. */
  labelX: number;
  fillY: number | null;
  label: string | null;
  /** After the label: " · ✕3", or ''. */
  rejected: string;
}) {
  const width = px(Math.max(0, right - left - 2));
  return (
    <g className={className} data-testid="window" data-window-start={start}>
      <rect
        className="rl-window-frame"
        x={px(left + 1)}
        y={TANK_TOP}
        width={width}
        height={TANK_BOTTOM - TANK_TOP}
      />
      {fillY !== null && (
        <rect
          className="rl-window-fill"
          data-testid="window-fill"
          x={px(left + 1)}
          y={px(fillY)}
          width={width}
          height={px(TANK_BOTTOM - fillY)}
        />
      )}
      {label !== null && (
        <text
          className="rl-small"
          x={px(labelX)}
          y={TANK_TOP - 6}
          textAnchor="middle"
          data-testid="window-label"
        >
          {label}
          {rejected}
        </text>
      )}
    </g>
  );
});
