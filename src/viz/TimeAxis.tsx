import { memo } from 'react';
import { px } from './format';

/** Props of `<TimeAxis>`. */
export interface TimeAxisProps {
  /** Virtual ms → px. */
  scale: { (ms: number): number; domain(): number[]; range(): number[] };
  /** Baseline, px. */
  y: number;
  /** Tick times (ms); ticks outside the scale's domain are dropped. */
  ticks: readonly number[];
  /** Tick label for a time. */
  format: (ms: number) => string;
  /**
   * A place (px) that carries a label of its own under the axis, such as "now": tick labels within
   * `clearPx` of it are left out so the two never run into each other.
   */
  clearOfX?: number;
  /** Half-width kept clear around `clearOfX`, px. Default 26. */
  clearPx?: number;
  /**
   * The label of a tick at the axis's left end starts there instead of being centred on it, so it
   * stays clear of a y axis's bottom label (charts). Default false.
   */
  startAtOrigin?: boolean;
}

/** A horizontal time axis drawn by React from a linear scale (ours or d3-scale's): baseline, ticks and labels. */
export function TimeAxis({
  scale,
  y,
  ticks,
  format,
  clearOfX,
  clearPx = 26,
  startAtOrigin = false,
}: TimeAxisProps) {
  const [d0, d1] = scale.domain() as [number, number];
  const [r0, r1] = scale.range() as [number, number];
  const shown = ticks.filter((t) => t >= d0 && t <= d1);
  return (
    <g className="rl-axis" aria-hidden="true">
      <path className="rl-axis-line" d={`M${px(r0)},${px(y)}H${px(r1)}`} />
      {shown.map((t) => {
        const x = px(scale(t));
        return (
          <AxisTick
            key={t}
            x={x}
            y={px(y)}
            label={clearOfX === undefined || Math.abs(x - clearOfX) >= clearPx ? format(t) : null}
            anchor={startAtOrigin && Math.abs(x - r0) < 0.5 ? 'start' : 'middle'}
          />
        );
      })}
    </g>
  );
}

/**
 * One tick of a time axis at (`x`, `y`) px, with its label under it (none: `null`). Memoised: on an
 * axis that slides with the clock (`slide`), a tick keeps its place in the sliding group from frame
 * to frame and is not rendered again.
 */
export const AxisTick = memo(function AxisTick({
  x,
  y,
  label,
  anchor = 'middle',
}: {
  x: number;
  y: number;
  label: string | null;
  anchor?: 'start' | 'middle';
}) {
  return (
    <g transform={`translate(${x},${y})`}>
      <path className="rl-axis-tick" d="M0,0V4" />
      {label !== null && (
        <text className="rl-axis-label" y={14} textAnchor={anchor}>
          {label}
        </text>
      )}
    </g>
  );
});
