import { useMemo } from 'react';
import { scaleLinear } from 'd3-scale';
import { bin, max } from 'd3-array';
import type { Bin } from 'd3-array';
import type { SimResult } from '../../sim';
import { VizSvg } from '../VizSvg';
import { TimeAxis } from '../TimeAxis';
import { clamp, formatCount, formatDuration, plural, px } from '../format';
import { canDelay, delaysOf } from './series';
import { EmptyPlot, XTitle, YAxis, chartBox } from './ChartParts';

/** Props of `<DelayHistogram>`. */
export interface DelayHistogramProps {
  result: SimResult;
  /** Index into `result.lanes`. */
  lane: number;
  /** Drawing width in px. Default 480. */
  width?: number;
  /** Drawing height in px. Default 220. */
  height?: number;
  /** About how many bars (round bin widths are picked near it). Default 20. */
  bins?: number;
}

/** One bar: delays in [x0Ms, x1Ms) (the last bar includes its end). */
export interface DelayBin {
  x0Ms: number;
  x1Ms: number;
  count: number;
}

/**
 * Delays binned on round durations over [0, max] (d3-array `bin` with the ticks of a nice scale as
 * thresholds): every delayed request is in exactly one bin.
 */
export function delayBins(
  delays: Float64Array,
  target = 20,
): { bins: DelayBin[]; domain: [number, number] } {
  const top = max(delays) ?? 0;
  if (!(top > 0)) return { bins: [], domain: [0, 1] };
  const x = scaleLinear()
    .domain([0, top])
    .nice(Math.max(1, Math.floor(target)));
  const domain = x.domain() as [number, number];
  // Thresholds strictly inside the domain: one at the end would add an empty-width last bin.
  const thresholds = x.ticks(Math.max(1, Math.floor(target))).filter((t) => t > 0 && t < domain[1]);
  const binned: Array<Bin<number, number>> = bin().domain(domain).thresholds(thresholds)(delays);
  return {
    bins: binned.map((b) => ({ x0Ms: b.x0 ?? 0, x1Ms: b.x1 ?? 0, count: b.length })),
    domain,
  };
}

const MARKERS = [
  ['p50', 'p50Ms'],
  ['p95', 'p95Ms'],
  ['max', 'maxMs'],
] as const;

/**
 * How long the delayed requests waited: a histogram of their delays with the median, the 95th
 * percentile and the maximum marked (the simulation's nearest-rank figures). When nothing was
 * delayed it says so, and why when the limiter cannot delay at all.
 */
export function DelayHistogram({
  result,
  lane: laneIndex,
  width = 480,
  height = 220,
  bins: target = 20,
}: DelayHistogramProps) {
  const lane = result.lanes[laneIndex];
  const box = chartBox(width, height, 1);
  const data = useMemo(
    () =>
      lane === undefined
        ? null
        : delayBins(delaysOf(lane.columns, lane.metrics.delay.count), target),
    [lane, target],
  );
  const stats = lane?.metrics.delay ?? { count: 0, p50Ms: 0, p95Ms: 0, maxMs: 0, meanMs: 0 };
  const name = lane?.name ?? `lane ${laneIndex}`;

  const model = useMemo(() => {
    const domain = data?.domain ?? [0, 1];
    const x = scaleLinear().domain(domain).range([box.left, box.right]);
    const top = max(data?.bins ?? [], (b) => b.count) ?? 0;
    // Headroom above the tallest bar for the three marker labels.
    const y = scaleLinear()
      .domain([0, top > 0 ? top / 0.68 : 1])
      .nice(4)
      .range([box.bottom, box.top]);
    const ticks = x.ticks(Math.max(2, Math.floor((box.right - box.left) / 80)));
    return { x, y, ticks };
  }, [data, box.left, box.right, box.top, box.bottom]);

  const markerX = MARKERS.map(([, field]) => px(clamp(model.x(stats[field]), box.left, box.right)));
  // Labels near the right edge end left of the leftmost such marker, so none crosses a line.
  const leftmostRight = Math.min(box.right, ...markerX.filter((mx) => mx > box.right - 70));
  const empty = stats.count === 0 || data === null || data.bins.length === 0;
  const summary = `p50 ${formatDuration(stats.p50Ms)} · p95 ${formatDuration(stats.p95Ms)} · max ${formatDuration(stats.maxMs)}`;
  const label =
    lane === undefined
      ? `Delay distribution: no lane ${laneIndex}.`
      : empty
        ? `Delay distribution for ${name}: nothing was delayed.`
        : `Delay distribution for ${name}: ${plural(stats.count, 'request')} delayed; ` +
          `median ${formatDuration(stats.p50Ms)}, 95th percentile ${formatDuration(stats.p95Ms)}, ` +
          `longest ${formatDuration(stats.maxMs)}.`;
  const why =
    lane !== undefined && !canDelay(lane.config)
      ? lane.config.kind === 'leaky-bucket'
        ? // nginx's nodelay: passes the burst at once, never holds a request.
          ['nodelay: this limit_req never delays,', 'it admits or rejects at once']
        : [`${lane.name} never delays:`, 'it admits or rejects at once']
      : ['no request had to wait in this run'];
  // Two lines where one does not fit the plot.
  const whyLines = why.join(' ').length * 6.1 > box.right - box.left - 16 ? why : [why.join(' ')];

  return (
    <VizSvg
      className="rl-chart rl-delay-chart"
      width={box.width}
      height={box.height}
      label={label}
      interactive={false}
      testId="delay-chart"
    >
      <text className="rl-label" x={4} y={14}>
        Delays · {name}
      </text>
      <text className="rl-small rl-muted" x={4} y={32} data-testid="delay-summary">
        {empty
          ? 'nothing delayed'
          : box.width < 440
            ? plural(stats.count, 'delayed request')
            : `${plural(stats.count, 'delayed request')} · ${summary}`}
      </text>
      {empty ? (
        <EmptyPlot box={box} lines={['Nothing was delayed', ...whyLines]} />
      ) : (
        <>
          <YAxis
            scale={model.y}
            box={box}
            ticks={model.y.ticks(4).filter((v) => Number.isInteger(v))}
            format={formatCount}
            title="requests"
          />
          <g className="rl-delay-bars">
            {data.bins.map((b) => {
              if (b.count === 0) return null;
              const bx0 = model.x(b.x0Ms);
              const bx1 = model.x(b.x1Ms);
              const by = model.y(b.count);
              return (
                <rect
                  key={b.x0Ms}
                  className="rl-delay-bar"
                  data-testid="delay-bar"
                  data-count={b.count}
                  data-from={b.x0Ms}
                  data-to={b.x1Ms}
                  x={px(bx0 + 0.5)}
                  y={px(by)}
                  width={px(Math.max(1, bx1 - bx0 - 1))}
                  height={px(box.bottom - by)}
                />
              );
            })}
          </g>
          {MARKERS.map(([word, field], i) => {
            const v = stats[field];
            const mx = markerX[i] as number;
            const ly = box.top + 10 + i * 13;
            const right = mx > box.right - 70;
            return (
              <g key={word} className="rl-delay-marker" data-testid={`delay-${word}`} data-ms={v}>
                <path
                  className="rl-delay-marker-line"
                  d={`M${mx},${px(box.top)}V${px(box.bottom)}`}
                />
                <text
                  className="rl-small rl-halo"
                  x={right ? leftmostRight - 4 : mx + 4}
                  y={px(ly)}
                  textAnchor={right ? 'end' : 'start'}
                >
                  {word} {formatDuration(v)}
                </text>
              </g>
            );
          })}
        </>
      )}
      <TimeAxis
        scale={model.x}
        y={box.bottom}
        ticks={empty ? [] : model.ticks}
        format={formatDuration}
        startAtOrigin
      />
      <XTitle box={box}>delay before reaching the backend</XTitle>
    </VizSvg>
  );
}
