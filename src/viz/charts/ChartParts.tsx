/**
 * Pieces shared by the charts: the plot box, a y axis with grid lines, a legend that wraps. React
 * draws them from d3 scales; every coordinate goes through px().
 */
import type { ScaleLinear } from 'd3-scale';
import { finite, px, textWidth } from '../format';
import { TimeAxis } from '../TimeAxis';

/** The plot area inside a chart of a given size (px). */
export interface ChartBox {
  width: number;
  height: number;
  /** Plot area. */
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * Title line, `legendLines` lines of legend or annotation, then the plot; the x axis and its title
 * below.
 */
export function chartBox(width: number, height: number, legendLines = 1): ChartBox {
  const w = Math.max(280, finite(width, 480));
  const h = Math.max(160, finite(height, 220));
  // Title (y 14), legend lines (16 px each, first at y 32), the y axis unit, then the plot.
  const top = 24 + legendLines * 16 + 18;
  // Right margin: room for half of the last tick label.
  return { width: w, height: h, left: 46, right: w - 22, top, bottom: h - 34 };
}

/** Props of `<YAxis>`. */
export interface YAxisProps {
  scale: ScaleLinear<number, number>;
  box: ChartBox;
  ticks: readonly number[];
  format: (v: number) => string;
  /** Unit or quantity, drawn above the tick labels: "requests / s". */
  title: string;
}

/** Horizontal grid lines at the ticks, labels left of the plot, the unit above them. */
export function YAxis({ scale, box, ticks, format, title }: YAxisProps) {
  return (
    <g className="rl-axis rl-y-axis" aria-hidden="true">
      {ticks.map((v) => {
        const y = px(scale(v));
        return (
          <g key={v}>
            <path className="rl-grid-line" d={`M${px(box.left)},${y}H${px(box.right)}`} />
            <text className="rl-axis-label" x={px(box.left - 6)} y={y} dy="0.35em" textAnchor="end">
              {format(v)}
            </text>
          </g>
        );
      })}
      {/* High enough to clear the top tick's label (centred on the plot's top line). */}
      <text className="rl-axis-label rl-axis-title" x={4} y={px(box.top - 12)}>
        {title}
      </text>
    </g>
  );
}

/** The x axis title, centred under the plot. */
export function XTitle({ box, children }: { box: ChartBox; children: string }) {
  return (
    <text
      className="rl-axis-label rl-axis-title"
      x={px((box.left + box.right) / 2)}
      y={px(box.height - 4)}
      textAnchor="middle"
      aria-hidden="true"
    >
      {children}
    </text>
  );
}

/** A legend entry: its swatch class and its words. */
export interface LegendItem {
  key: string;
  label: string;
  /** 'line' draws a short stroke with `className`, 'box' a filled square. */
  swatch: 'line' | 'box';
  className: string;
}

/** How many lines a legend takes at this width. */
export function legendLines(items: readonly LegendItem[], width: number): number {
  return layoutLegend(items, 8, width - 8).lines;
}

function layoutLegend(items: readonly LegendItem[], x0: number, x1: number) {
  let x = x0;
  let line = 0;
  const placed = items.map((item) => {
    const w = 22 + textWidth(item.label) + 14;
    if (x > x0 && x + w - 14 > x1) {
      x = x0;
      line += 1;
    }
    const at = { item, x, line };
    x += w;
    return at;
  });
  return { placed, lines: line + 1 };
}

/** The legend, left to right from the plot's left edge, wrapping within the chart. */
export function Legend({
  items,
  box,
  y,
}: {
  items: readonly LegendItem[];
  box: ChartBox;
  y: number;
}) {
  const { placed } = layoutLegend(items, 8, box.width - 8);
  return (
    <g className="rl-legend" aria-hidden="true">
      {placed.map(({ item, x, line }) => {
        const ly = y + line * 16;
        return (
          <g key={item.key} data-testid={`legend-${item.key}`}>
            {item.swatch === 'line' ? (
              <path className={item.className} d={`M${px(x)},${px(ly - 4)}h16`} />
            ) : (
              <rect
                className={item.className}
                x={px(x + 3)}
                y={px(ly - 9)}
                width={10}
                height={10}
              />
            )}
            <text className="rl-small" x={px(x + 22)} y={px(ly)}>
              {item.label}
            </text>
          </g>
        );
      })}
    </g>
  );
}

/** A message in the middle of an empty plot. */
export function EmptyPlot({ box, lines }: { box: ChartBox; lines: readonly string[] }) {
  const cy = (box.top + box.bottom) / 2 - ((lines.length - 1) * 16) / 2;
  return (
    <g data-testid="chart-empty">
      <rect
        className="rl-plot-empty"
        x={px(box.left)}
        y={px(box.top)}
        width={px(box.right - box.left)}
        height={px(box.bottom - box.top)}
      />
      {lines.map((line, i) => (
        <text
          key={line}
          className={i === 0 ? 'rl-label' : 'rl-small rl-muted'}
          x={px((box.left + box.right) / 2)}
          y={px(cy + i * 16)}
          textAnchor="middle"
        >
          {line}
        </text>
      ))}
    </g>
  );
}

/**
 * The bottom of a chart over time: the time axis, its title, and the current time as a line when
 * `tMs` is given.
 */
export function XTimeAxis({
  scale,
  box,
  ticks,
  format,
  title,
  tMs,
}: {
  scale: ScaleLinear<number, number>;
  box: ChartBox;
  ticks: readonly number[];
  format: (ms: number) => string;
  title: string;
  tMs?: number | undefined;
}) {
  return (
    <>
      <TimeAxis scale={scale} y={box.bottom} ticks={ticks} format={format} startAtOrigin />
      <XTitle box={box}>{title}</XTitle>
      {tMs !== undefined && (
        <path
          className="rl-now"
          data-testid="chart-now"
          d={`M${px(scale(tMs))},${px(box.top)}V${px(box.bottom)}`}
        />
      )}
    </>
  );
}
