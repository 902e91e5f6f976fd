// Long file on purpose: the timeline is one interactive drawing (axis, marks per lane, playhead,
// pointer and keyboard seeking) whose parts share one scale and one hit-testing model.
import { memo, useMemo, useRef } from 'react';
import type { KeyboardEvent, PointerEvent as ReactPointerEvent } from 'react';
import type { Outcome } from '../core';
import { OUTCOMES, rowRange } from '../sim';
import type { LaneResult, SimResult } from '../sim';
import { OutcomeMark } from './OutcomeMark';
import { linearScale } from './linear';
import type { LinearScale } from './linear';
import { TimeAxis } from './TimeAxis';
import { clamp, finite, formatCount, px, textWidth } from './format';
import { columnOf, lastRowAtOrBefore, nearestRow, outcomeColumns } from './laneSeries';
import type { OutcomeColumns } from './laneSeries';
import { formatSeconds, timeTicks } from './timeTicks';

/** A request of one lane: `row` indexes `result.lanes[lane].columns`. */
export interface LaneRow {
  lane: number;
  row: number;
}

/** Props of `<Timeline>`. */
export interface TimelineProps {
  result: SimResult;
  /** Lanes drawn, top to bottom (indices into `result.lanes`). Default: every lane. */
  lanes?: readonly number[];
  /** The current virtual time (ms); the handle sits here. Clamped to [0, result.untilMs]. */
  tMs: number;
  /** Start of the time range drawn (ms). Default 0. */
  fromMs?: number;
  /** End of the time range drawn (ms, exclusive). Default `result.untilMs`. */
  toMs?: number;
  /** Drawing width in px (the SVG scales down with its container). Default 640. */
  width?: number;
  /** The selected request, ringed when its lane is drawn. Default none. */
  selected?: LaneRow | null;
  /**
   * Seek: called with a whole-ms time in [0, result.untilMs] on a click on empty track, on every
   * move of a drag, and on slider keys (←/→ 100 ms, Shift 1 s, PageUp/PageDown 10 s, Home, End).
   */
  onSeek: (tMs: number) => void;
  /**
   * Called when a request is clicked (an individual mark, or in an aggregated column the request of
   * that outcome nearest the pointer), and on Enter / Space in the slider with the last request at or
   * before `tMs` in the first lane drawn.
   */
  onSelect?: (lane: number, row: number) => void;
  /** Accessible name of the slider. Default 'Virtual time'. */
  label?: string;
  /**
   * Per-request colour and name (a fleet's replica: its colour and "replica R3"). An
   * individual mark gets a short bar in that colour under it, the name as its tooltip and
   * `data-replica`; in dense lanes each column's bar is split into one segment per colour, in
   * proportion. null or absent draws none. Pass a stable function (memoise it): the lanes are
   * re-reduced when it changes, never per frame.
   */
  markColor?: MarkColor;
  /**
   * The clock is playing: the handle moves every frame. The playhead's line is then drawn at x = 0
   * and moved by its transform, in a layer of its own (viz.css), so a frame re-rasters no strip of
   * the lanes' bars under it. Paused (the default) it is drawn in place, as the pictures show it.
   */
  moving?: boolean;
}

/**
 * A request's colour and the name that goes with it (never the colour alone), or null: lets the
 * page colour the timeline by something the timeline does not know (a fleet's replica, a key, a
 * client). The outcome stays in the mark's shape, colour and row.
 */
export type MarkColor = (lane: number, row: number) => { color: string; name: string } | null;

/** Arrow-key steps of the slider (ms). */
export const TIMELINE_STEP_MS = 100;
export const TIMELINE_SHIFT_STEP_MS = 1000;
export const TIMELINE_PAGE_STEP_MS = 10_000;

const GUTTER = 26; // left: the outcome glyphs of each row
const x0 = GUTTER;
const RIGHT = 14;
const TOP = 22; // the time readout above the lanes
const LABEL_H = 16;
const ROW_H = 12;
const ROWS = 3;
const LANE_GAP = 8;
const LANE_H = LABEL_H + ROWS * ROW_H + LANE_GAP;
const AXIS_H = 26;
const LEGEND_H = 20;
/** A pointer that moves more than this (px) between down and up is scrubbing, not clicking. */
const DRAG_PX = 3;
/** A click finds a request this many px either side of the pointer. */
const HIT_PX = 4;
/** Individual marks are drawn only when a lane has at most this many in view … */
const MAX_MARKS = 1500;
/** … at most this many of one outcome in one pixel column, and on average ≥ 3 px per mark. */
const MAX_PER_PIXEL = 2;
const PX_PER_MARK = 3;

const OUTCOME_WORDS: Record<Outcome, string> = {
  admit: 'admitted',
  delay: 'delayed',
  reject: 'rejected',
};

function laneTop(index: number): number {
  return TOP + index * LANE_H;
}

/** Centre y of an outcome row (code 0 admit, 1 delay, 2 reject) in a lane band. */
function rowCenter(index: number, code: number): number {
  return laneTop(index) + LABEL_H + code * ROW_H + ROW_H / 2;
}

/**
 * How one lane is drawn for the current range and width. `agg` is its reduction when it was cheap
 * to make here (a sparse lane, or one already reduced); a dense lane's is made by its own
 * `LaneMarks` (`laneReduction`), so that each lane's pass over its rows is a separate piece of
 * render work: a large result arriving from the worker renders in a transition that yields between
 * lanes (six lanes of 666,666 rows took one ~40 ms task in this component's memo).
 */
export interface LanePlan {
  lane: number;
  /** Individual marks (sparse) or per-column bars (dense). */
  individual: boolean;
  agg: OutcomeColumns | null;
}

interface Reduction {
  /** The range and width it was made for. */
  key: string;
  agg: OutcomeColumns;
  individual: boolean;
}

/**
 * The last reduction of each lane's columns. A new result from an edit to one limiter keeps the
 * other lanes' columns (simulate's cache), so their reductions, and with them their memoised
 * `LaneMarks`, are reused as they are.
 */
const reduced = new WeakMap<LaneResult['columns'], Reduction>();

/**
 * A lane's outcome counts per pixel column over [fromMs, toMs), and whether to draw it mark by
 * mark: individual marks when at most MAX_MARKS requests are in view, ≥ PX_PER_MARK px each on
 * average, and at most MAX_PER_PIXEL of one outcome in a column. Cached per lane. With `sparseOnly`,
 * null instead of reducing a lane with too many requests in view for marks (two binary searches
 * tell): it is drawn as bars, and reduced later by its own `LaneMarks`.
 */
export function laneReduction(
  columns: LaneResult['columns'],
  fromMs: number,
  toMs: number,
  cols: number,
  sparseOnly = false,
): Reduction | null {
  const key = `${fromMs} ${toMs} ${cols}`;
  let kept = reduced.get(columns);
  if (kept?.key !== key) {
    const few = (n: number) => n <= MAX_MARKS && n * PX_PER_MARK <= cols;
    if (sparseOnly) {
      const [start, end] = toMs > fromMs ? rowRange(columns, fromMs, toMs) : [0, 0];
      if (!few(end - start)) return null;
    }
    const agg = outcomeColumns(columns, fromMs, toMs, cols);
    kept = { key, agg, individual: few(agg.end - agg.start) && agg.maxCount <= MAX_PER_PIXEL };
    reduced.set(columns, kept);
  }
  return kept;
}

/** Plans each lane (`LanePlan`): only sparse lanes, and lanes already reduced, are reduced here. */
export function planLanes(
  result: SimResult,
  lanes: readonly number[],
  fromMs: number,
  toMs: number,
  cols: number,
): LanePlan[] {
  return lanes.map((lane) => {
    const made = laneReduction(
      (result.lanes[lane] as LaneResult).columns,
      fromMs,
      toMs,
      cols,
      true,
    );
    return { lane, individual: made?.individual ?? false, agg: made?.agg ?? null };
  });
}

/**
 * Bars one pixel wide standing on `bottom`, column `col` at x = `left` + col with height
 * `heights[col]` (0: no bar), as one closed outline per run of adjacent bars:
 * `M x,bottom V top h1 V top h1 … V bottom Z`. At 1:1 scale, the same pixels as a rectangle per bar when
 * `left` and `bottom` are whole (every vertical edge lies on a pixel boundary), in about a third of
 * the characters (a dense lane's two bar paths came to ~30,000 characters, which an edit
 * while playing built, set and parsed again).
 */
export function barsPath(left: number, bottom: number, heights: ArrayLike<number>): string {
  const base = px(bottom);
  let d = '';
  let open = false;
  for (let col = 0; col < heights.length; col += 1) {
    const h = heights[col] as number;
    if (!(h > 0)) {
      if (open) d += `V${base}Z`;
      open = false;
      continue;
    }
    if (!open) d += `M${px(left + col)},${base}`;
    open = true;
    // The top as the rectangle's `v-h` from the base put it (px(bottom - h) differs at ties).
    d += `V${px(base + px(-h))}h1`;
  }
  if (open) d += `V${base}Z`;
  return d;
}

/**
 * One outcome's bars of a dense lane, split by `markColor`: per column, the bar the plain drawing
 * would draw (height from the column's count), cut into one segment per colour in proportion to its
 * requests, stacked in the order the colours first appear. One path per colour.
 */
function colouredBars(
  columns: LaneResult['columns'],
  agg: OutcomeColumns,
  code: number,
  lane: number,
  markColor: MarkColor,
  left: number,
  bottom: number,
): Array<{ color: string | undefined; d: string; count: number }> {
  const byColor = new Map<string | undefined, Uint32Array>();
  for (let r = agg.start; r < agg.end; r += 1) {
    if (columns.outcome[r] !== code) continue;
    const color = markColor(lane, r)?.color;
    let counts = byColor.get(color);
    if (counts === undefined) byColor.set(color, (counts = new Uint32Array(agg.cols)));
    const col = columnOf(columns.arrivalMs[r] as number, agg.fromMs, agg.toMs, agg.cols);
    counts[col] = (counts[col] as number) + 1;
  }
  const totals = agg.counts[code as 0 | 1 | 2];
  const paths = [...byColor].map(([color]) => ({ color, d: '', count: 0 }));
  for (let col = 0; col < agg.cols; col += 1) {
    const k = totals[col] as number;
    if (k === 0) continue;
    const h = Math.max(2, Math.sqrt(k / agg.maxCount) * (ROW_H - 2));
    let y = bottom;
    let i = 0;
    for (const counts of byColor.values()) {
      const part = counts[col] as number;
      const path = paths[i] as (typeof paths)[number];
      i += 1;
      if (part === 0) continue;
      const seg = (h * part) / k;
      path.d += `M${px(left + col)},${px(y)}h1v${px(-seg)}h-1Z`;
      path.count += part;
      y -= seg;
    }
  }
  return paths;
}

interface LaneMarksProps {
  lane: LaneResult;
  laneIndex: number;
  /** Its place from the top. */
  i: number;
  /** Its reduction, or null to make it here (`LanePlan`). */
  agg: OutcomeColumns | null;
  individual: boolean;
  x: LinearScale;
  fromMs: number;
  toMs: number;
  cols: number;
  x0: number;
  x1: number;
  markColor: MarkColor | undefined;
}

/**
 * One lane's band. Memoised on its own lane result and reduction: after an edit to one limiter
 * only that lane's band renders again. A dense lane is reduced here, in its own render.
 */
const LaneMarks = memo(function LaneMarks({
  lane,
  laneIndex,
  i,
  agg: planned,
  individual,
  x,
  fromMs,
  toMs,
  cols: width,
  x0,
  x1,
  markColor,
}: LaneMarksProps) {
  const c = lane.columns;
  const agg = planned ?? (laneReduction(c, fromMs, toMs, width) as Reduction).agg;
  const n = agg.end - agg.start;
  const cols = agg.cols;
  const top = laneTop(i);
  const cut = lane.completeUntilMs < toMs;
  return (
    <g
      key={laneIndex}
      className="rl-timeline-lane"
      data-testid="timeline-lane"
      data-lane={laneIndex}
      data-mode={individual ? 'marks' : 'columns'}
    >
      {/* A backing behind the label: the playhead's line passes under it, never through the
            words (a clock near the start put the line across "Token bucket"). */}
      <rect
        className="rl-timeline-label-bg"
        x={1}
        y={top}
        width={px(textWidth(lane.name, 12) * 1.1 + 7)}
        height={LABEL_H - 2}
      />
      <text className="rl-label" x={4} y={top + 11}>
        {lane.name}
      </text>
      <LaneCounts totals={agg.totals} right={x1} y={top + 11} />
      {OUTCOMES.map((o, code) => (
        <g key={o}>
          <rect
            className={`rl-timeline-row rl-timeline-row--${o}`}
            x={px(x0)}
            y={px(top + LABEL_H + code * ROW_H)}
            width={px(x1 - x0)}
            height={ROW_H}
          />
          <OutcomeMark outcome={o} x={x0 - 10} y={rowCenter(i, code)} size={7} />
        </g>
      ))}
      {cut && (
        <rect
          className="rl-timeline-cut"
          data-testid="timeline-cut"
          x={px(x(lane.completeUntilMs))}
          y={px(top + LABEL_H)}
          width={px(Math.max(0, x1 - x(lane.completeUntilMs)))}
          height={ROWS * ROW_H}
        >
          <title>Not simulated: the run was cut here</title>
        </rect>
      )}
      {individual
        ? Array.from({ length: n }, (_, k) => {
            const row = agg.start + k;
            const code = c.outcome[row] as number;
            const outcome = OUTCOMES[code] ?? 'reject';
            const tag = markColor?.(laneIndex, row) ?? null;
            const mx = x(c.arrivalMs[row] as number);
            return (
              <g
                key={row}
                className="rl-timeline-mark"
                data-testid="timeline-mark"
                data-lane={laneIndex}
                data-row={row}
                data-outcome={outcome}
                {...(tag === null ? {} : { 'data-replica': tag.name })}
              >
                {tag !== null && (
                  <>
                    <title>{tag.name}</title>
                    <rect
                      className="rl-timeline-replica"
                      x={px(mx - 3.5)}
                      y={px(rowCenter(i, code) + 4)}
                      width={7}
                      height={2}
                      fill={tag.color}
                    />
                  </>
                )}
                <OutcomeMark
                  outcome={outcome}
                  x={x(c.arrivalMs[row] as number)}
                  y={rowCenter(i, code)}
                  size={7}
                />
              </g>
            );
          })
        : OUTCOMES.map((o, code) => {
            const counts = agg.counts[code as 0 | 1 | 2];
            const bottom = top + LABEL_H + (code + 1) * ROW_H - 1;
            if (markColor !== undefined) {
              return (
                <g key={o}>
                  {colouredBars(c, agg, code, laneIndex, markColor, x0, bottom).map(
                    ({ color, d, count }, k) => (
                      <path
                        key={k}
                        className={`rl-timeline-bars rl-timeline-bars--${o}`}
                        data-testid="timeline-bars"
                        data-outcome={o}
                        data-count={count}
                        style={color === undefined ? undefined : { fill: color }}
                        d={d === '' ? undefined : d}
                      />
                    ),
                  )}
                </g>
              );
            }
            const heights = new Float64Array(cols);
            for (let col = 0; col < cols; col += 1) {
              const k = counts[col] as number;
              if (k > 0) heights[col] = Math.max(2, Math.sqrt(k / agg.maxCount) * (ROW_H - 2));
            }
            const d = barsPath(x0, bottom, heights);
            return (
              <path
                key={o}
                className={`rl-timeline-bars rl-timeline-bars--${o}`}
                data-testid="timeline-bars"
                data-outcome={o}
                data-count={agg.totals[code as 0 | 1 | 2]}
                d={d === '' ? undefined : d}
              />
            );
          })}
    </g>
  );
});

/** "● 568 ■ 0 ✕ 166", right-aligned, with the drawn shapes (a font may lack ✕). */
function LaneCounts({
  totals,
  right,
  y,
}: {
  totals: readonly [number, number, number];
  right: number;
  y: number;
}) {
  let x = right;
  const items = [2, 1, 0].map((code) => {
    const text = formatCount(totals[code as 0 | 1 | 2]);
    const textX = x;
    x -= text.length * 6.4;
    const markX = x - 8;
    x = markX - 14;
    return { code, text, textX, markX };
  });
  return (
    <g className="rl-timeline-counts" data-testid="timeline-counts">
      <rect
        className="rl-timeline-label-bg"
        x={px(x + 14 - 8)}
        y={y - 11}
        width={px(right - x - 6 + 4)}
        height={LABEL_H - 2}
      />
      {items.map(({ code, text, textX, markX }) => (
        <g key={code} data-outcome={OUTCOMES[code]}>
          <OutcomeMark outcome={OUTCOMES[code] ?? 'reject'} x={markX} y={y - 4} size={7} />
          <text className="rl-small rl-muted" x={px(textX)} y={y} textAnchor="end">
            {text}
          </text>
        </g>
      ))}
    </g>
  );
}

/** Where a pointer is, in SVG px, given that CSS may scale the SVG down. */
function svgPoint(svg: SVGSVGElement, width: number, clientX: number, clientY: number) {
  const rect = svg.getBoundingClientRect();
  const scale = rect.width > 0 ? width / rect.width : 1;
  return { x: (clientX - rect.left) * scale, y: (clientY - rect.top) * scale };
}

/**
 * The timeline scrubber: every request of the lanes drawn, by outcome (● admitted, ■ delayed,
 * ✕ rejected, each in its own row, so colour is never needed), and the current time as a draggable
 * handle that is also an ARIA slider. Click empty track to seek, drag anywhere to scrub, click a mark
 * to select its request. Pure: the time and the selection come in as props, changes go out through
 * `onSeek` and `onSelect`.
 */
export function Timeline({
  result,
  lanes,
  tMs,
  fromMs,
  toMs,
  width = 640,
  selected = null,
  onSeek,
  onSelect,
  label = 'Virtual time',
  markColor,
  moving = false,
}: TimelineProps) {
  const untilMs = Math.max(1, finite(result.untilMs, 1));
  const w = Math.max(280, finite(width, 640));
  const x1 = w - RIGHT;
  const d0 = clamp(finite(fromMs ?? 0), 0, untilMs - 1);
  const d1 = clamp(finite(toMs ?? untilMs, untilMs), d0 + 1, untilMs);
  const laneKey = (lanes ?? result.lanes.map((_, i) => i)).join(',');
  const shown = useMemo(
    () =>
      laneKey === ''
        ? []
        : laneKey
            .split(',')
            .map(Number)
            .filter((i) => result.lanes[i] !== undefined),
    [laneKey, result],
  );
  const x = useMemo(() => linearScale([d0, d1], [x0, x1]), [d0, d1, x1]);
  const ticks = useMemo(
    () => timeTicks(d0, d1, Math.max(3, Math.floor((x1 - x0) / 90))),
    [d0, d1, x1],
  );
  const cols = Math.max(1, Math.round(x1 - x0));
  const drawings = useMemo(
    () => planLanes(result, shown, d0, d1, cols),
    [result, shown, d0, d1, cols],
  );
  const aggregated = drawings.some((d) => !d.individual);
  const axisY = TOP + Math.max(1, shown.length) * LANE_H;
  const height = axisY + AXIS_H + LEGEND_H;
  const t = clamp(Math.round(finite(tMs)), 0, untilMs);
  const handleX = clamp(x(t), x0, x1);
  const drag = useRef<{ x: number; y: number; moved: boolean; id: number } | null>(null);
  const svgRef = useRef<SVGSVGElement>(null);
  const sliderRef = useRef<SVGGElement>(null);

  const timeAt = (sx: number) => clamp(Math.round(x.invert(sx)), 0, untilMs);

  /** The request under a point: an individual mark, or the nearest of the row's outcome. */
  const hit = (target: EventTarget | null, sx: number, sy: number): LaneRow | null => {
    const mark = target instanceof Element ? target.closest('[data-row]') : null;
    if (mark !== null) {
      return {
        lane: Number(mark.getAttribute('data-lane')),
        row: Number(mark.getAttribute('data-row')),
      };
    }
    if (sx < x0 || sx > x1) return null;
    const i = Math.floor((sy - TOP) / LANE_H);
    const lane = shown[i];
    if (lane === undefined) return null;
    const code = Math.floor((sy - laneTop(i) - LABEL_H) / ROW_H);
    if (code < 0 || code >= ROWS) return null;
    const columns = result.lanes[lane]?.columns;
    if (columns === undefined) return null;
    const tol = Math.max(0, (HIT_PX * (d1 - d0)) / Math.max(1, x1 - x0));
    const row = nearestRow(columns, code, x.invert(sx), tol);
    return row < 0 ? null : { lane, row };
  };

  const onPointerDown = (e: ReactPointerEvent<SVGSVGElement>) => {
    if (e.button !== 0 || svgRef.current === null) return;
    const p = svgPoint(svgRef.current, w, e.clientX, e.clientY);
    drag.current = { x: p.x, y: p.y, moved: false, id: e.pointerId };
    // Capture keeps the drag alive outside the SVG (not implemented in every DOM, e.g. jsdom).
    if (typeof svgRef.current.setPointerCapture === 'function') {
      try {
        svgRef.current.setPointerCapture(e.pointerId);
      } catch {
        // An inactive pointer id (synthetic events): scrubbing still works inside the SVG.
      }
    }
    sliderRef.current?.focus({ preventScroll: true });
    e.preventDefault();
  };

  const onPointerMove = (e: ReactPointerEvent<SVGSVGElement>) => {
    const d = drag.current;
    if (d === null || svgRef.current === null) return;
    const p = svgPoint(svgRef.current, w, e.clientX, e.clientY);
    if (!d.moved && Math.abs(p.x - d.x) <= DRAG_PX && Math.abs(p.y - d.y) <= DRAG_PX) return;
    d.moved = true;
    onSeek(timeAt(p.x));
  };

  const onPointerUp = (e: ReactPointerEvent<SVGSVGElement>) => {
    const d = drag.current;
    drag.current = null;
    if (d === null || svgRef.current === null) return;
    if (d.moved) return;
    const found = onSelect !== undefined ? hit(e.target, d.x, d.y) : null;
    if (found !== null) onSelect?.(found.lane, found.row);
    else onSeek(timeAt(d.x));
  };

  const onKeyDown = (e: KeyboardEvent<SVGGElement>) => {
    let next: number;
    const step = e.shiftKey ? TIMELINE_SHIFT_STEP_MS : TIMELINE_STEP_MS;
    switch (e.key) {
      case 'ArrowRight':
      case 'ArrowUp':
        next = t + step;
        break;
      case 'ArrowLeft':
      case 'ArrowDown':
        next = t - step;
        break;
      case 'PageUp':
        next = t + TIMELINE_PAGE_STEP_MS;
        break;
      case 'PageDown':
        next = t - TIMELINE_PAGE_STEP_MS;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = untilMs;
        break;
      case 'Enter':
      case ' ': {
        const lane = shown[0];
        const columns = lane === undefined ? undefined : result.lanes[lane]?.columns;
        if (onSelect === undefined || lane === undefined || columns === undefined) return;
        e.preventDefault();
        const row = lastRowAtOrBefore(columns, t);
        if (row >= 0) onSelect(lane, row);
        return;
      }
      default:
        return;
    }
    e.preventDefault();
    onSeek(clamp(next, 0, untilMs));
  };

  const sel = selected !== null ? shown.indexOf(selected.lane) : -1;
  const selColumns = sel >= 0 ? result.lanes[selected?.lane ?? -1]?.columns : undefined;
  const selRow = selected?.row ?? -1;
  const selVisible =
    selColumns !== undefined &&
    selRow >= 0 &&
    selRow < selColumns.rows &&
    (selColumns.arrivalMs[selRow] as number) >= d0 &&
    (selColumns.arrivalMs[selRow] as number) < d1;
  const readout = `${formatSeconds(t)} of ${formatSeconds(untilMs)}`;
  const readoutX = clamp(handleX, x0 + 40, x1 - 40);

  return (
    <svg
      ref={svgRef}
      className="rl-viz rl-timeline"
      role="group"
      aria-label={`Timeline of ${
        shown
          .map((l) => {
            const lr = result.lanes[l];
            return lr === undefined ? '' : lr.name;
          })
          .join(', ') || 'no lanes'
      }`}
      data-testid="timeline"
      width={px(w)}
      height={px(height)}
      viewBox={`0 0 ${px(w)} ${px(height)}`}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => {
        drag.current = null;
      }}
    >
      <rect className="rl-timeline-track" x={0} y={0} width={px(w)} height={px(height)} />
      {/* The playhead's line goes under the marks: a request decided at this instant is drawn
          above it, never hidden (the grip and the readout stay on top, in the slider below). */}
      {moving ? (
        <path
          className="rl-timeline-now is-moving"
          data-testid="timeline-now"
          d={`M0,${TOP - 2}V${px(axisY)}`}
          transform={`translate(${px(handleX)},0)`}
        />
      ) : (
        <path
          className="rl-timeline-now"
          data-testid="timeline-now"
          d={`M${px(handleX)},${TOP - 2}V${px(axisY)}`}
        />
      )}
      {/* The requests of every lane drawn, by outcome row: individual marks when sparse, else per
          pixel column one bar per outcome whose height grows with the count (√ scale, at least
          2 px). Each lane's band is memoised apart from the handle, so moving the clock never
          re-reduces 600,000 rows. */}
      <g className="rl-timeline-lanes">
        {drawings.map(({ lane: laneIndex, agg, individual }, i) => (
          <LaneMarks
            key={laneIndex}
            lane={result.lanes[laneIndex] as LaneResult}
            laneIndex={laneIndex}
            i={i}
            agg={agg}
            individual={individual}
            x={x}
            fromMs={d0}
            toMs={d1}
            cols={cols}
            x0={x0}
            x1={x1}
            markColor={markColor}
          />
        ))}
      </g>
      {shown.length === 0 && (
        <text className="rl-muted" x={x0} y={TOP + 24}>
          No lanes to show
        </text>
      )}
      {selVisible && selColumns !== undefined && (
        <g className="rl-timeline-selected" data-testid="timeline-selected" aria-hidden="true">
          <circle
            cx={px(x(selColumns.arrivalMs[selRow] as number))}
            cy={px(rowCenter(sel, selColumns.outcome[selRow] as number))}
            r={7}
          />
        </g>
      )}
      <TimeAxis scale={x} y={axisY} ticks={ticks.ticks} format={ticks.format} />
      <g
        ref={sliderRef}
        className="rl-timeline-handle"
        role="slider"
        tabIndex={0}
        aria-label={label}
        aria-orientation="horizontal"
        aria-valuemin={0}
        aria-valuemax={untilMs}
        aria-valuenow={t}
        aria-valuetext={formatSeconds(t)}
        data-testid="timeline-handle"
        onKeyDown={onKeyDown}
      >
        <rect
          className="rl-timeline-grip"
          x={px(handleX - 5)}
          y={px(axisY - 8)}
          width={10}
          height={16}
          rx={3}
        />
        <text
          className="rl-small rl-strong"
          x={px(readoutX)}
          y={TOP - 7}
          textAnchor="middle"
          data-testid="timeline-readout"
        >
          {readout}
        </text>
      </g>
      <g className="rl-timeline-legend" aria-hidden="true">
        {OUTCOMES.map((o, code) => {
          const lx = 8 + code * 86;
          const ly = height - 7;
          return (
            <g key={o}>
              <OutcomeMark outcome={o} x={lx} y={ly - 4} size={8} />
              <text className="rl-small" x={lx + 8} y={ly}>
                {OUTCOME_WORDS[o]}
              </text>
            </g>
          );
        })}
        {aggregated && (
          <text className="rl-small rl-muted" x={px(x1)} y={height - 7} textAnchor="end">
            {w >= 420 ? 'bar height: requests per pixel' : 'bars: per pixel'}
          </text>
        )}
      </g>
    </svg>
  );
}
