import { useMemo } from 'react';
import { scaleLinear } from 'd3-scale';
import { area, curveStepAfter, line } from 'd3-shape';
import { max } from 'd3-array';
import { format } from 'd3-format';
import { peakWindow } from '../../sim';
import type { PeakWindow, SimResult } from '../../sim';
import { VizSvg } from '../VizSvg';
import { clamp, finite, formatCount, formatDecimal, formatDuration, px } from '../format';
import { backendTimes, nominalLimit, passedTimes, rollingMax, rollingMaxPassed } from './series';
import { formatInstant, timeTicks } from '../timeTicks';
import { EmptyPlot, Legend, XTimeAxis, YAxis, chartBox, legendLines } from './ChartParts';
import type { LegendItem } from './ChartParts';

/** Props of `<PeakChart>`. */
export interface PeakChartProps {
  result: SimResult;
  /** Index into `result.lanes`. */
  lane: number;
  /** The current virtual time (ms), marked with a line. */
  tMs?: number;
  /** W, the interval length (ms). Default: the scenario's `metrics.windowMs` (1000). */
  windowMs?: number;
  /**
   * The nominal limit drawn as a line, in requests per W. Default: the limiter's quota scaled to W
   * (`nominalLimit`): `limit` for a window of W, rate × W otherwise.
   */
  limit?: number;
  /** Drawing width in px. Default 480. */
  width?: number;
  /** Drawing height in px. Default 220. */
  height?: number;
}

const ratio = format(',.2~r');

/** "[9.999 s, 10.999 s)" */
export function formatInterval(startMs: number, windowMs: number): string {
  return `[${formatInstant(startMs)}, ${formatInstant(startMs + windowMs)})`;
}

/**
 * The peak sentence: "peak 20 in [9.999 s, 10.999 s) — 2× the limit of 10", or "— within the limit
 * of 10"; "nothing passed" when the lane passed nothing.
 */
export function describePeak(peak: PeakWindow, limit: number): string {
  if (peak.count === 0) return 'nothing passed';
  const where = `peak ${formatCount(peak.count)} in ${formatInterval(peak.startMs, peak.windowMs)}`;
  if (!(limit > 0)) return where;
  const l = formatDecimal(limit);
  return peak.count > limit
    ? `${where} — ${ratio(peak.count / limit)}× the limit of ${l}`
    : `${where} — within the limit of ${l}`;
}

/**
 * The most requests passed in any interval of length W, as a rolling count over time (the
 * requests passed in the W that ends at each instant; per pixel its maximum, so no burst hides
 * between pixels), against the nominal limit, with the busiest interval shaded and annotated. With
 * delays, a dashed line shows the same count at the backend (after the delays).
 */
export function PeakChart({
  result,
  lane: laneIndex,
  tMs,
  windowMs,
  limit,
  width = 480,
  height = 220,
}: PeakChartProps) {
  const lane = result.lanes[laneIndex];
  const untilMs = Math.max(1, finite(result.untilMs, 1));
  const W = Math.max(
    1,
    Math.round(finite(windowMs ?? result.scenario.metrics?.windowMs ?? 1000, 1000)),
  );
  const nominal = finite(limit ?? (lane === undefined ? 0 : nominalLimit(lane.config, W)));
  const hasDelays = (lane?.metrics.delay.count ?? 0) > 0;
  const items: LegendItem[] = [
    {
      key: 'passed',
      label: `passed in the last ${formatDuration(W)}`,
      swatch: 'box',
      className: 'rl-peak-swatch',
    },
    ...(hasDelays
      ? [
          {
            key: 'backend',
            label: 'at the backend',
            swatch: 'line' as const,
            className: 'rl-peak-backend',
          },
        ]
      : []),
    {
      key: 'limit',
      label: `limit ${formatDecimal(nominal)}`,
      swatch: 'line',
      className: 'rl-limit-line',
    },
  ];
  const legendN = legendLines(items, width);
  // The plot's width does not depend on how many lines sit above it.
  const base = chartBox(width, height, 1);
  const cols = Math.max(1, Math.round(base.right - base.left));

  const data = useMemo(() => {
    if (lane === undefined) return null;
    const { total, peakPassed } = lane.metrics;
    // The busiest W the simulation found already, and the rolling count straight from the rows
    // (no array of passed times on the page); another W is searched here.
    let peak = peakPassed;
    if (peakPassed.windowMs !== W) {
      const passed = passedTimes(lane.columns, total.admitted + total.delayed);
      peak = peakWindow(passed, passed.length, W);
    }
    const backend = hasDelays ? backendTimes(lane) : null;
    return {
      peak,
      passed: rollingMaxPassed(lane.columns, W, 0, untilMs, cols),
      backend: backend === null ? null : rollingMax(backend, W, 0, untilMs, cols),
    };
  }, [lane, hasDelays, W, untilMs, cols]);

  const { peak, sentence, annotation } = useMemo(() => {
    const p = data?.peak ?? { windowMs: W, count: 0, startMs: -1 };
    const text = describePeak(p, nominal);
    // On a narrow chart the sentence breaks before its dash (SVG text does not wrap).
    const lines = text.length * 6.4 > base.width - 8 ? text.split(/ (?=— )/) : [text];
    return { peak: p, sentence: text, annotation: lines };
  }, [data, W, nominal, base.width]);
  const box = chartBox(width, height, legendN + annotation.length);

  const model = useMemo(() => {
    const x = scaleLinear().domain([0, untilMs]).range([box.left, box.right]);
    const top = Math.max(nominal, max(data?.passed ?? []) ?? 0, max(data?.backend ?? []) ?? 0);
    const y = scaleLinear()
      .domain([0, top > 0 ? top * 1.1 : 1])
      .nice(4)
      .range([box.bottom, box.top]);
    // One point per change of value: a step curve through them draws the same line.
    const pts = (vals: Float64Array): Array<[number, number]> => {
      const out: Array<[number, number]> = [];
      vals.forEach((v, c) => {
        if (c === 0 || v !== vals[c - 1]) out.push([box.left + c, v]);
      });
      out.push([box.right, vals[vals.length - 1] ?? 0]);
      return out;
    };
    const lineOf = line<[number, number]>()
      .x((p) => px(p[0]))
      .y((p) => px(y(p[1])))
      .curve(curveStepAfter);
    const areaOf = area<[number, number]>()
      .x((p) => px(p[0]))
      .y0(px(box.bottom))
      .y1((p) => px(y(p[1])))
      .curve(curveStepAfter);
    const passed = data === null ? null : pts(data.passed);
    return {
      x,
      y,
      passedLine: passed === null ? '' : (lineOf(passed) ?? ''),
      passedArea: passed === null ? '' : (areaOf(passed) ?? ''),
      backendLine: data === null || data.backend === null ? '' : (lineOf(pts(data.backend)) ?? ''),
      ticks: timeTicks(0, untilMs, Math.max(3, Math.floor((box.right - box.left) / 80))),
    };
  }, [data, nominal, untilMs, box.left, box.right, box.top, box.bottom]);

  const name = lane?.name ?? `lane ${laneIndex}`;
  const label =
    lane === undefined
      ? `Most passed in any ${formatDuration(W)}: no lane ${laneIndex}.`
      : `Most passed in any ${formatDuration(W)} for ${name}: ${sentence}.`;
  const t = tMs === undefined ? undefined : clamp(finite(tMs), 0, untilMs);
  const limitY = px(model.y(nominal));
  const over = nominal > 0 && peak.count > nominal;
  const bandX0 = clamp(model.x(peak.startMs), box.left, box.right);
  const bandX1 = clamp(model.x(peak.startMs + W), box.left, box.right);
  const legendY = 32 + annotation.length * 16;

  return (
    <VizSvg
      className="rl-chart rl-peak-chart"
      width={box.width}
      height={box.height}
      label={label}
      interactive={false}
      testId="peak-chart"
    >
      <text className="rl-label" x={4} y={14}>
        Most passed in any {formatDuration(W)} · {name}
      </text>
      <text
        className={`rl-small${over ? ' rl-strong' : ' rl-muted'}`}
        x={4}
        y={31}
        data-testid="peak-annotation"
      >
        {annotation.map((part, i) => (
          <tspan key={part} x={4} dy={i === 0 ? 0 : 16}>
            {part}
          </tspan>
        ))}
      </text>
      <Legend items={items} box={box} y={legendY} />
      {peak.count === 0 ? (
        <EmptyPlot
          box={box}
          lines={['Nothing passed', 'every request was rejected, or none came']}
        />
      ) : (
        <>
          <YAxis
            scale={model.y}
            box={box}
            ticks={model.y.ticks(4)}
            format={(v) => formatDecimal(v)}
            title={`requests per ${formatDuration(W)}`}
          />
          <rect
            className="rl-peak-band"
            data-testid="peak-band"
            x={px(bandX0)}
            y={px(box.top)}
            width={px(Math.max(1, bandX1 - bandX0))}
            height={px(box.bottom - box.top)}
          />
          <path className="rl-peak-area" d={model.passedArea} />
          <path className="rl-peak-line" data-testid="peak-passed" d={model.passedLine} />
          {model.backendLine !== '' && (
            <path className="rl-peak-backend" data-testid="peak-backend" d={model.backendLine} />
          )}
          {nominal > 0 && (
            <g data-testid="peak-limit" data-limit={formatDecimal(nominal)}>
              <path className="rl-limit-line" d={`M${px(box.left)},${limitY}H${px(box.right)}`} />
            </g>
          )}
          <g
            className="rl-peak-marker"
            data-testid="peak-marker"
            transform={`translate(${px((bandX0 + bandX1) / 2)},${px(model.y(peak.count))})`}
          >
            <path d="M0,-3l-5,-8h10Z" />
          </g>
        </>
      )}
      <XTimeAxis
        scale={model.x}
        box={box}
        ticks={model.ticks.ticks}
        format={model.ticks.format}
        title="virtual time (end of the interval)"
        tMs={t}
      />
    </VizSvg>
  );
}
