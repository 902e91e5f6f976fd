import { useMemo } from 'react';
import { linearScale } from './linear';
import { format } from 'd3-format';
import { OutcomeMark } from './OutcomeMark';
import { TimeAxis } from './TimeAxis';
import { VizSvg } from './VizSvg';
import { clamp, finite, formatCount, formatDecimal, formatDuration, px } from './format';
import type { AlgorithmViewProps } from './types';

type Inspection = AlgorithmViewProps<'sliding-window-counter'>['inspection'];

const HEIGHT = 240;
const CHART_TOP = 44;
const CHART_BOTTOM = 138;
const AXIS_Y = 142;
const FORMULA_Y = 196;

// No thousands separator inside a fraction: "999/1000" reads better than "999/1,000".
const upTo3 = format('.3~f');

/** The formula with live numbers, e.g. `42 × 45/60 + 18 = 49.5 < 50 → admit`. */
export interface SwcFormula {
  /** The whole line. */
  text: string;
  /** Whether the next request is admitted, decided exactly as the limiter does (scaled integers). */
  admit: boolean;
  /** (W − e)/W as a float, for display. */
  weight: number;
  /** The unit the weight's numerator and denominator are written in. */
  unit: 's' | 'ms';
}

/**
 * The sliding-window counter's rule with the inspection's numbers filled in. The verdict compares
 * p·(W − e) + c·W < limit·W in integers, as the limiter does; the printed estimate is rounded and
 * marked ≈ when rounding changed it, and never rounds onto the wrong side of the limit.
 */
export function swcFormula(i: Inspection): SwcFormula {
  const W = Math.max(1, i.windowMs);
  const e = clamp(i.elapsedMs, 0, W);
  const p = i.previousCount;
  const c = i.currentCount;
  const admit = p * (W - e) + c * W < i.limit * W;
  const unit = W >= 10_000 && W % 1000 === 0 ? 's' : 'ms';
  const u = unit === 's' ? 1000 : 1;
  const estimate = finite((p * (W - e)) / W + c);
  const limitText = formatCount(i.limit);
  let shown = formatDecimal(estimate);
  for (const digits of [3, 4, 6]) {
    if (shown !== limitText || !admit) break;
    shown = format(`,.${digits}~f`)(estimate);
  }
  // Exact when the printed decimals carry the whole fraction (p·(W − e) + c·W)/W: checked in
  // integers, as float sums such as 0.999 + 4 need not print back to themselves.
  const decimals = shown.split('.')[1]?.length ?? 0;
  const numerator = BigInt(p) * BigInt(W - e) + BigInt(c) * BigInt(W);
  const exact = (numerator * 10n ** BigInt(decimals)) % BigInt(W) === 0n;
  const text =
    `${formatCount(p)} × ${upTo3((W - e) / u)}/${upTo3(W / u)} + ${formatCount(c)} ` +
    `${exact ? '=' : '≈'} ${shown} ${admit ? '<' : '≥'} ${limitText} → ${admit ? 'admit' : 'reject'}`;
  return { text, admit, weight: (W - e) / W, unit };
}

/** "Sliding-window counter: previous 42 × 0.75 + current 18 = 49.5 of 50; the next request is admitted." */
export function describeSlidingWindowCounter(i: Inspection): string {
  const f = swcFormula(i);
  return (
    `Sliding-window counter: previous ${formatCount(i.previousCount)} × weight ${formatDecimal(f.weight)} + ` +
    `current ${formatCount(i.currentCount)} = ${formatDecimal(i.estimate)} of ${formatCount(i.limit)}; ` +
    `the next request is ${f.admit ? 'admitted' : 'rejected'}.`
  );
}

/**
 * Cloudflare's sliding-window counter: the previous and current windows as bars of their counts, the
 * window [t − W, t] laid over them (the part of the previous bar it covers is the weighted share),
 * the estimate bar against the limit, and the formula with live numbers.
 */
export function SlidingWindowCounterView({
  inspection: i,
  width = 480,
  onSelectRequest,
}: AlgorithmViewProps<'sliding-window-counter'>) {
  const w = Math.max(300, width);
  const W = Math.max(1, i.windowMs);
  const e = clamp(i.elapsedMs, 0, W);
  const s = i.windowStartMs;
  const p = i.previousCount;
  const c = i.currentCount;
  const weight = (W - e) / W;
  const estimate = finite(i.estimate);
  const x0 = 12;
  const chartX1 = Math.round(w * 0.68);
  const estX = chartX1 + 30;
  const estW = Math.min(44, w - estX - 56);

  const { x, y } = useMemo(() => {
    const top = Math.max(i.limit, p, c, estimate, 1) * 1.1;
    return {
      x: linearScale([s - W, s + W], [x0, chartX1]),
      y: linearScale([0, top], [CHART_BOTTOM, CHART_TOP]),
    };
  }, [i.limit, p, c, estimate, s, W, chartX1]);

  const f = swcFormula(i);
  const label = describeSlidingWindowCounter(i);
  const t = s + e;
  const barTop = (n: number) => px(y(n));
  const barH = (n: number) => px(CHART_BOTTOM - y(n));
  const limitY = px(y(i.limit));

  return (
    <VizSvg
      className="rl-swc"
      width={w}
      height={HEIGHT}
      label={label}
      interactive={onSelectRequest !== undefined}
      testId="sliding-window-counter-view"
    >
      <text className="rl-big" x={x0} y={22} data-testid="estimate">
        {formatDecimal(estimate)}
        <tspan className="rl-muted rl-unit"> / {formatCount(i.limit)} estimated</tspan>
      </text>
      <text className="rl-small rl-muted" x={w - 12} y={22} textAnchor="end">
        window {formatDuration(W)}
      </text>

      {/* Previous window: the whole count, and the share the sliding window still covers. */}
      <rect
        className="rl-bar rl-bar--previous"
        data-testid="bar-previous"
        x={px(x(s - W) + 2)}
        y={barTop(p)}
        width={px(x(s) - x(s - W) - 4)}
        height={barH(p)}
      />
      <rect
        className="rl-bar rl-bar--weighted"
        data-testid="bar-previous-weighted"
        x={px(x(t - W))}
        y={barTop(p)}
        width={px(Math.max(0, x(s) - 2 - x(t - W)))}
        height={barH(p)}
      />
      <rect
        className="rl-bar rl-bar--current"
        data-testid="bar-current"
        x={px(x(s) + 2)}
        y={barTop(c)}
        width={px(x(s + W) - x(s) - 4)}
        height={barH(c)}
      />
      {/* Counts under their windows, clear of the bars and the limit line. */}
      <text
        className="rl-small"
        x={px((x(s - W) + x(s)) / 2)}
        y={AXIS_Y + 28}
        textAnchor="middle"
        data-testid="previous-label"
      >
        previous {formatCount(p)}
      </text>
      <text
        className="rl-small"
        x={px((x(s) + x(s + W)) / 2)}
        y={AXIS_Y + 28}
        textAnchor="middle"
        data-testid="current-label"
      >
        current {formatCount(c)}
      </text>

      {/* The sliding window [t − W, t]. */}
      <g data-testid="sliding-bracket">
        <rect
          className="rl-bracket-band rl-bracket-band--outline"
          x={px(x(t - W))}
          y={CHART_TOP - 10}
          width={px(x(t) - x(t - W))}
          height={CHART_BOTTOM - CHART_TOP + 10}
        />
      </g>
      <path className="rl-limit-line" d={`M${x0},${limitY}H${px(estX + estW + 4)}`} />
      <text className="rl-small rl-muted" x={px(estX + estW + 8)} y={limitY} dy="0.35em">
        limit {formatCount(i.limit)}
      </text>
      <path className="rl-now" d={`M${px(x(t))},${CHART_TOP - 12}V${AXIS_Y}`} />

      {/* The estimate: the weighted previous share stacked on the current count. */}
      <g data-testid="bar-estimate">
        <rect
          className="rl-bar rl-bar--current"
          x={px(estX)}
          y={barTop(c)}
          width={px(estW)}
          height={barH(c)}
        />
        <rect
          className="rl-bar rl-bar--weighted"
          x={px(estX)}
          y={barTop(c + p * weight)}
          width={px(estW)}
          height={px(y(c) - y(c + p * weight))}
        />
        <text
          className="rl-small"
          x={px(estX + estW / 2)}
          y={CHART_BOTTOM + 14}
          textAnchor="middle"
        >
          estimate
        </text>
      </g>

      <TimeAxis scale={x} y={AXIS_Y} ticks={[s - W, s, s + W]} format={formatDuration} />

      <g className="rl-formula-line" transform={`translate(${x0},${FORMULA_Y})`}>
        <OutcomeMark outcome={f.admit ? 'admit' : 'reject'} x={5} y={0} size={10} />
        <text className="rl-formula" x={16} y={0} dy="0.35em" data-testid="formula">
          {f.text}
        </text>
      </g>
      <text className="rl-small rl-muted" x={x0} y={FORMULA_Y + 24}>
        estimate = previous × (W − e)/W + current; e = {formatDuration(e)}, W = {formatDuration(W)}
      </text>
    </VizSvg>
  );
}
