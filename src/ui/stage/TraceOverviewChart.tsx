import { useId, useMemo, useRef, useState } from 'react';
import type { KeyboardEvent, PointerEvent } from 'react';
import { scaleLinear, scaleSqrt } from 'd3-scale';
import { finite, px } from '../../viz/format';
import { YAxis } from '../../viz/charts/ChartParts';
import type { ChartBox } from '../../viz/charts/ChartParts';
import { clockText, editSpan } from './traceSpan';
import type { Span, SpanEdit } from './traceSpan';

/** Props of `<TraceOverviewChart>`. */
export interface TraceOverviewChartProps {
  /** Drawing width, px. */
  width: number;
  /** Epoch ms of the trace's first request (time 0 of the spans). */
  baseMs: number;
  /** The end of the trace for spans, ms after its first request (a second after its last). */
  endMs: number;
  /** Bin width of `requests` and `rejected`, ms. */
  binMs: number;
  requests: Uint32Array;
  /** Rejections per bin of the limiter being edited; null while computing. */
  rejected: Uint32Array | null;
  /** The span the stage replays. */
  span: Span;
  /** A span the person chose (on release of a drag, on each key). */
  onSpan: (span: Span) => void;
  /** The longest span a person can pick, ms (default: a run's longest, MAX_UNTIL_MS). */
  maxLengthMs?: number;
}

const HEIGHT = 150;
/** Hit width of a handle, px (a pointer or finger target of at least 24 px). */
const HANDLE_HIT = 24;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Tick steps tried for the clock axis, ms. */
const STEPS = [HOUR, 2 * HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 2 * DAY, 7 * DAY];

/** Clock ticks in UTC at a round step, at most `max` of them, within [fromMs, toMs] epoch. */
function clockTicks(fromMs: number, toMs: number, max: number): { at: number; day: boolean }[] {
  const step =
    STEPS.find((s) => (toMs - fromMs) / s <= max) ?? Math.ceil((toMs - fromMs) / max / DAY) * DAY;
  const out: { at: number; day: boolean }[] = [];
  for (let t = Math.ceil(fromMs / step) * step; t <= toMs; t += step) {
    out.push({ at: t, day: t % DAY === 0 });
  }
  return out;
}

const MONTHS = 'Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec'.split(' ');
function tickLabel(at: number, day: boolean): string {
  const d = new Date(at);
  return day
    ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`
    : `${String(d.getUTCHours()).padStart(2, '0')}:00`;
}

/**
 * The largest value of `perBin` in each of `columns` runs of bins (the columns a plot this wide
 * can show), as [first bin, value] pairs.
 */
function peaks(perBin: Uint32Array, columns: number): [number, number][] {
  const n = perBin.length;
  const cols = Math.max(1, Math.min(n, Math.floor(columns)));
  const out: [number, number][] = [];
  for (let c = 0; c < cols; c += 1) {
    const lo = Math.floor((c * n) / cols);
    const hi = Math.floor(((c + 1) * n) / cols);
    let m = 0;
    for (let i = lo; i < hi; i += 1) m = Math.max(m, perBin[i] as number);
    out.push([lo, m]);
  }
  return out;
}

/** A step area over the bins' peaks. */
function stepArea(
  points: [number, number][],
  bins: number,
  x: (bin: number) => number,
  y: (v: number) => number,
): string {
  const base = px(y(0));
  let d = `M${px(x(0))},${base}`;
  points.forEach(([, v], i) => {
    const next = points[i + 1]?.[0] ?? bins;
    d += `V${px(y(v))}H${px(x(next))}`;
  });
  return `${d}V${base}Z`;
}

type Part = 'start' | 'end' | 'body';

/** The bin of an overview in words: `minute`, or `4 minutes` for a long trace's wider bins. */
export function binWordsOf(binMs: number): string {
  const minutes = Math.max(1, Math.round(binMs / 60_000));
  return minutes === 1 ? 'minute' : `${minutes.toLocaleString('en-US')} minutes`;
}

/** What the overview chart draws, in words beside swatches (colour is not the only signal). */
export function TraceOverviewLegend({ binMs, limiter }: { binMs: number; limiter: string }) {
  const bin = binWordsOf(binMs);
  return (
    <ul className="trace-overview-legend" aria-label="Legend">
      <li>
        <span className="ov-swatch ov-swatch-requests" aria-hidden="true" /> requests per {bin}{' '}
        (each column its busiest {bin})
      </li>
      <li>
        <span className="ov-swatch ov-swatch-rejected" aria-hidden="true" /> rejected by {limiter}{' '}
        (hatched)
      </li>
      <li>
        <span className="ov-swatch ov-swatch-span" aria-hidden="true" /> the replayed span
      </li>
    </ul>
  );
}

/**
 * The whole trace: requests per minute (each column the busiest minute in it, on a square-root
 * scale), the rejections of the limiter being edited hatched over them, the clock in UTC below,
 * and the span the stage replays as a brush. Its two handles and its body are sliders: drag them, or use the arrow keys
 * (a bin), Page Up / Page Down (an hour), Home and End.
 */
export function TraceOverviewChart(props: TraceOverviewChartProps) {
  const { baseMs, endMs, binMs, requests, rejected, span, onSpan, maxLengthMs } = props;
  // The bin in words: a minute, or the several minutes a long trace's bins hold.
  const binWords = binWordsOf(binMs);
  const perBin = binWords.replace(/minutes?$/, 'min');
  const width = Math.max(280, finite(props.width, 600));
  const box: ChartBox = {
    width,
    height: HEIGHT,
    left: 46,
    right: width - 14,
    top: 18,
    bottom: HEIGHT - 26,
  };
  const hatch = `${useId()}-hatch`;
  const x = useMemo(
    () => scaleLinear().domain([0, endMs]).range([box.left, box.right]),
    [endMs, box.left, box.right],
  );
  const top = useMemo(() => requests.reduce((a, b) => Math.max(a, b), 0), [requests]);
  // Square-root: a scraper's minute of hundreds of requests leaves the ordinary minutes visible.
  const y = useMemo(
    () =>
      scaleSqrt()
        .domain([0, Math.max(1, top)])
        .nice(4)
        .range([box.bottom, box.top]),
    [top, box.bottom, box.top],
  );
  const plotWidth = box.right - box.left;
  const paths = useMemo(() => {
    const bx = (bin: number) => x(Math.min(endMs, bin * binMs));
    return {
      requests: stepArea(peaks(requests, plotWidth), requests.length, bx, y),
      rejected:
        rejected === null ? null : stepArea(peaks(rejected, plotWidth), rejected.length, bx, y),
    };
  }, [requests, rejected, plotWidth, x, y, binMs, endMs]);
  const ticks = clockTicks(baseMs, baseMs + endMs, Math.max(2, Math.floor(plotWidth / 90)));

  // A drag in progress: the part held, where it started, and the span it shows meanwhile.
  const drag = useRef<{ part: Part; x0: number; from: Span } | null>(null);
  const [preview, setPreview] = useState<Span | null>(null);
  const shown = preview ?? span;
  const msPerPx = endMs / Math.max(1, plotWidth);

  const edited = (part: Part, from: Span, deltaMs: number): Span => {
    const edit: SpanEdit =
      part === 'start'
        ? { start: from.fromMs + deltaMs }
        : part === 'end'
          ? { end: from.fromMs + from.lengthMs + deltaMs }
          : { shift: deltaMs };
    return editSpan(from, edit, endMs, maxLengthMs);
  };
  const down = (part: Part, e: PointerEvent<SVGElement>) => {
    e.preventDefault();
    e.stopPropagation();
    e.currentTarget.setPointerCapture(e.pointerId);
    (e.currentTarget as unknown as HTMLElement).focus?.();
    drag.current = { part, x0: e.clientX, from: span };
  };
  const move = (e: PointerEvent<SVGElement>) => {
    const d = drag.current;
    if (d === null) return;
    setPreview(edited(d.part, d.from, (e.clientX - d.x0) * msPerPx));
  };
  const up = (e: PointerEvent<SVGElement>) => {
    const d = drag.current;
    if (d === null) return;
    drag.current = null;
    setPreview(null);
    onSpan(edited(d.part, d.from, (e.clientX - d.x0) * msPerPx));
  };
  /** A press on the plot outside the span moves the span to be centred there. */
  const jump = (e: PointerEvent<SVGRectElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const at = (e.clientX - rect.left) * msPerPx;
    onSpan(editSpan(span, { shift: at - span.lengthMs / 2 - span.fromMs }, endMs));
  };
  const key = (part: Part, e: KeyboardEvent<SVGGElement>) => {
    const step =
      e.key === 'ArrowLeft' || e.key === 'ArrowDown'
        ? -binMs
        : e.key === 'ArrowRight' || e.key === 'ArrowUp'
          ? binMs
          : e.key === 'PageDown'
            ? -HOUR
            : e.key === 'PageUp'
              ? HOUR
              : e.key === 'Home'
                ? -Infinity
                : e.key === 'End'
                  ? Infinity
                  : 0;
    if (step === 0) return;
    e.preventDefault();
    const delta = Number.isFinite(step) ? step : step * endMs;
    onSpan(edited(part, span, Math.max(-endMs, Math.min(endMs, delta))));
  };

  const x0 = px(x(shown.fromMs));
  const x1 = px(x(Math.min(endMs, shown.fromMs + shown.lengthMs)));
  const startText = clockText(baseMs + shown.fromMs);
  const endText = clockText(baseMs + shown.fromMs + shown.lengthMs);
  const handle = (part: 'start' | 'end', at: number) => (
    <g
      className="ov-handle"
      role="slider"
      tabIndex={0}
      aria-label={part === 'start' ? 'Start of the replayed span' : 'End of the replayed span'}
      aria-valuemin={0}
      aria-valuemax={endMs}
      aria-valuenow={part === 'start' ? shown.fromMs : shown.fromMs + shown.lengthMs}
      aria-valuetext={part === 'start' ? startText : endText}
      data-testid={`span-${part}`}
      onPointerDown={(e) => down(part, e)}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={up}
      onKeyDown={(e) => key(part, e)}
    >
      <rect
        className="ov-hit"
        x={px(at - HANDLE_HIT / 2)}
        y={px(box.top)}
        width={HANDLE_HIT}
        height={px(box.bottom - box.top)}
      />
      <rect
        className="ov-grip"
        x={px(at - 4)}
        y={px(box.top + (box.bottom - box.top) / 4)}
        width={8}
        height={px((box.bottom - box.top) / 2)}
        rx={3}
      />
    </g>
  );

  return (
    <svg
      className="rl-viz trace-overview-chart"
      width={width}
      height={HEIGHT}
      viewBox={`0 0 ${width} ${HEIGHT}`}
      role="group"
      aria-label={`Requests per ${binWords} from ${clockText(baseMs)} to ${clockText(baseMs + endMs)}, and the span the stage replays`}
      data-testid="trace-overview-chart"
    >
      <defs>
        <pattern
          id={hatch}
          width={6}
          height={6}
          patternUnits="userSpaceOnUse"
          patternTransform="rotate(45)"
        >
          <rect className="ov-hatch-bg" width={6} height={6} />
          <path className="ov-hatch" d="M0,0V6" />
        </pattern>
      </defs>
      <YAxis
        scale={y}
        box={box}
        ticks={y.ticks(3)}
        format={(v) => v.toLocaleString('en-US')}
        title={`requests / ${perBin} (square root)`}
      />
      <rect
        className="ov-plot"
        x={px(box.left)}
        y={px(box.top)}
        width={px(plotWidth)}
        height={px(box.bottom - box.top)}
        onPointerDown={jump}
      />
      <path className="ov-requests" d={paths.requests} aria-hidden="true" />
      {paths.rejected !== null && (
        <path
          className="ov-rejected"
          d={paths.rejected}
          fill={`url(#${hatch})`}
          aria-hidden="true"
        />
      )}
      <g className="rl-axis" aria-hidden="true">
        <path className="rl-axis-line" d={`M${px(box.left)},${px(box.bottom)}H${px(box.right)}`} />
        {ticks.map((t) => {
          const tx = px(x(t.at - baseMs));
          return (
            <g key={t.at}>
              <path className="rl-axis-line" d={`M${tx},${px(box.bottom)}v4`} />
              <text
                className={t.day ? 'rl-axis-label ov-day' : 'rl-axis-label'}
                x={tx}
                y={px(box.bottom + 16)}
                textAnchor="middle"
              >
                {tickLabel(t.at, t.day)}
              </text>
            </g>
          );
        })}
      </g>
      {/* Outside the span: dimmed. */}
      <rect
        className="ov-outside"
        x={px(box.left)}
        y={px(box.top)}
        width={Math.max(0, x0 - box.left)}
        height={px(box.bottom - box.top)}
        aria-hidden="true"
      />
      <rect
        className="ov-outside"
        x={x1}
        y={px(box.top)}
        width={Math.max(0, box.right - x1)}
        height={px(box.bottom - box.top)}
        aria-hidden="true"
      />
      <g
        className="ov-body"
        role="slider"
        tabIndex={0}
        aria-label="Replayed span (moves both ends)"
        aria-valuemin={0}
        aria-valuemax={Math.max(0, endMs - shown.lengthMs)}
        aria-valuenow={shown.fromMs}
        aria-valuetext={`${startText} to ${endText}`}
        data-testid="span-body"
        onPointerDown={(e) => down('body', e)}
        onPointerMove={move}
        onPointerUp={up}
        onPointerCancel={up}
        onKeyDown={(e) => key('body', e)}
      >
        <rect
          className="ov-span"
          x={x0}
          y={px(box.top)}
          width={Math.max(1, x1 - x0)}
          height={px(box.bottom - box.top)}
        />
      </g>
      {handle('start', x0)}
      {handle('end', x1)}
    </svg>
  );
}
