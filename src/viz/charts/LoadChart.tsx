import { useMemo } from 'react';
import { scaleLinear } from 'd3-scale';
import { curveStepAfter, line } from 'd3-shape';
import { max } from 'd3-array';
import { format } from 'd3-format';
import type { LaneResult, SimResult } from '../../sim';
import { VizSvg } from '../VizSvg';
import { clamp, finite, px } from '../format';
import { formatSeconds, timeTicks } from '../timeTicks';
import { EmptyPlot, Legend, XTimeAxis, YAxis, chartBox, legendLines } from './ChartParts';
import type { LegendItem } from './ChartParts';

/** One interval of the load chart: rates in requests per second over [startMs, endMs). */
export interface LoadPoint {
  startMs: number;
  endMs: number;
  /** Attempts arriving (first and retries). */
  offered: number;
  /** Admitted + delayed, by decision time. */
  passed: number;
  /** Reaching the backend: admitted at arrival, delayed at release. */
  backend: number;
}

/** The load series of a lane and the interval it was drawn at. */
export interface LoadSeries {
  stepMs: number;
  points: LoadPoint[];
}

/** Multiples of the metrics bin tried for the drawn interval. */
const FACTORS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000];

/**
 * A lane's rates over time from `metrics.bins`, merged into intervals of a round multiple of the
 * bin so that at most `maxPoints` are drawn (rates in a 100 ms bin of Poisson traffic are mostly
 * noise). Ends at the lane's complete range; the last interval may be shorter, its rate uses its own
 * length.
 */
export function loadSeries(lane: LaneResult, untilMs: number, maxPoints = 120): LoadSeries {
  const b = lane.metrics.bins;
  const binMs = Math.max(1, b.binMs);
  const endMs = Math.max(0, Math.min(untilMs, lane.completeUntilMs, b.offered.length * binMs));
  const nBins = Math.ceil(endMs / binMs);
  const limit = Math.max(1, Math.floor(maxPoints));
  const k = FACTORS.find((f) => Math.ceil(nBins / f) <= limit) ?? Math.ceil(nBins / limit);
  const stepMs = k * binMs;
  const points: LoadPoint[] = [];
  for (let first = 0; first < nBins; first += k) {
    let offered = 0;
    let passed = 0;
    let backend = 0;
    for (let i = first; i < Math.min(nBins, first + k); i += 1) {
      offered += b.offered[i] as number;
      passed += (b.admitted[i] as number) + (b.delayed[i] as number);
      backend += b.backend[i] as number;
    }
    const startMs = first * binMs;
    const end = Math.min(endMs, startMs + stepMs);
    const perSec = 1000 / Math.max(1, end - startMs);
    points.push({
      startMs,
      endMs: end,
      offered: offered * perSec,
      passed: passed * perSec,
      backend: backend * perSec,
    });
  }
  return { stepMs, points };
}

/** Props of `<LoadChart>`. */
export interface LoadChartProps {
  result: SimResult;
  /** Index into `result.lanes`. */
  lane: number;
  /** The current virtual time (ms), marked with a line; the legend shows the rates there. */
  tMs?: number;
  /** Drawing width in px (the SVG scales down with its container). Default 480. */
  width?: number;
  /** Drawing height in px. Default 220. */
  height?: number;
  /** Most intervals drawn (the metrics bins are merged to fit). Default 120. */
  maxPoints?: number;
}

type Series = 'offered' | 'passed' | 'backend';
const SERIES: readonly Series[] = ['offered', 'passed', 'backend'];
const WORDS: Record<Series, string> = {
  offered: 'offered',
  passed: 'passed (admitted + delayed)',
  backend: 'reached backend',
};

const rate = format(',.3~r');
const si = format('~s');
const plain = format(',~r');
/** Tick labels: "0.5", "20", "1,500", then SI above 10,000 ("20k"), never SI milli ("500m"). */
const rateTick = (v: number) => (Math.abs(v) >= 10_000 ? si(v) : plain(v));

/**
 * Offered, passed and backend load over time, in requests per second, as step lines (each series
 * has its own stroke pattern as well as its colour), with the current time marked.
 */
export function LoadChart({
  result,
  lane: laneIndex,
  tMs,
  width = 480,
  height = 220,
  maxPoints = 120,
}: LoadChartProps) {
  const lane = result.lanes[laneIndex];
  const untilMs = Math.max(1, finite(result.untilMs, 1));
  const series = useMemo(
    () => (lane === undefined ? null : loadSeries(lane, untilMs, maxPoints)),
    [lane, untilMs, maxPoints],
  );
  const points = useMemo(() => series?.points ?? [], [series]);
  const t = tMs === undefined ? undefined : clamp(finite(tMs), 0, untilMs);
  const at =
    t === undefined
      ? undefined
      : (points.find((p) => t >= p.startMs && t < p.endMs) ?? points.at(-1));
  const items: LegendItem[] = SERIES.map((s) => ({
    key: s,
    label: at === undefined ? WORDS[s] : `${WORDS[s]} ${rate(at[s])}/s`,
    swatch: 'line',
    className: `rl-load-line rl-load-line--${s}`,
  }));
  const box = chartBox(width, height, legendLines(items, width));

  const model = useMemo(() => {
    const x = scaleLinear().domain([0, untilMs]).range([box.left, box.right]);
    const top = max(points, (p) => Math.max(p.offered, p.passed, p.backend)) ?? 0;
    const y = scaleLinear()
      .domain([0, top > 0 ? top : 1])
      .nice(4)
      .range([box.bottom, box.top]);
    const paths = SERIES.map((s) => {
      const last = points.at(-1);
      const pts: Array<[number, number]> = points.map((p) => [p.startMs, p[s]]);
      if (last !== undefined) pts.push([last.endMs, last[s]]);
      const d =
        line<[number, number]>()
          .x((p) => px(x(p[0])))
          .y((p) => px(y(p[1])))
          .curve(curveStepAfter)(pts) ?? '';
      return { s, d };
    });
    return {
      x,
      y,
      paths,
      ticks: timeTicks(0, untilMs, Math.max(3, Math.floor((box.right - box.left) / 80))),
    };
  }, [points, untilMs, box.left, box.right, box.top, box.bottom]);

  const name = lane?.name ?? `lane ${laneIndex}`;
  const total = lane?.metrics.total;
  const seconds = untilMs / 1000;
  const peak = (s: Series) => max(points, (p) => p[s]) ?? 0;
  const label =
    lane === undefined || total === undefined
      ? `Load over time: no lane ${laneIndex}.`
      : `Load over time for ${name}, requests per second in ${formatSeconds(series?.stepMs ?? 0)} steps: ` +
        `offered averages ${rate(total.offered / seconds)} (peak ${rate(peak('offered'))}), ` +
        `passed ${rate((total.admitted + total.delayed) / seconds)} (peak ${rate(peak('passed'))}), ` +
        `backend peak ${rate(peak('backend'))}.`;
  const yTicks = model.y.ticks(4);

  return (
    <VizSvg
      className="rl-chart rl-load-chart"
      width={box.width}
      height={box.height}
      label={label}
      interactive={false}
      testId="load-chart"
    >
      <text className="rl-label" x={4} y={14}>
        Load over time · {name}
      </text>
      <Legend items={items} box={box} y={32} />
      {points.length === 0 ? (
        <EmptyPlot box={box} lines={['No requests in this run']} />
      ) : (
        <>
          <YAxis scale={model.y} box={box} ticks={yTicks} format={rateTick} title="requests / s" />
          {model.paths.map(({ s, d }) => (
            <path
              key={s}
              className={`rl-load-line rl-load-line--${s}`}
              data-testid={`load-${s}`}
              d={d}
            />
          ))}
        </>
      )}
      <XTimeAxis
        scale={model.x}
        box={box}
        ticks={model.ticks.ticks}
        format={model.ticks.format}
        title="virtual time"
        tMs={t}
      />
    </VizSvg>
  );
}
