// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import fc from 'fast-check';
import { DelayHistogram, LoadChart, PeakChart, delayBins, loadSeries } from '../../src/viz/charts';
import { nominalLimit, rollingMax } from '../../src/viz';
import { peakWindow } from '../../src/sim';
import { ratePerSec } from '../../src/config/measure';
import type { SimResult } from '../../src/sim';
import { countOutcomes, expectFinite, run } from './sim-fixtures';
import { serialize } from './serialize';

afterEach(cleanup);

const fixed10 = { kind: 'fixed-window', limit: 10, windowMs: 1000 } as const;
const log10 = { kind: 'sliding-log', limit: 10, windowMs: 1000 } as const;
const nginx = { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 2 } as const;

/** Ten requests at 9,999 ms and ten at 10,000 ms: the fixed window's boundary burst. */
const boundary = () =>
  run([fixed10, log10], [{ kind: 'boundary-burst', boundaryMs: 10_000, count: 10 }], 20_000);

const poisson = () =>
  run(
    [fixed10, nginx],
    [
      { kind: 'poisson', ratePerSec: 12, startMs: 0, endMs: 60_000 },
      { kind: 'burst', atMs: 30_000, count: 30 },
    ],
    60_000,
  );

/** The y of a path that starts "M<x>,<y>H…" (a horizontal line). */
function lineY(el: Element | null): number {
  const d = el?.getAttribute('d') ?? '';
  const m = /^M[\d.]+,([\d.]+)H/.exec(d);
  if (m === null) throw new Error(`not a horizontal line: ${d}`);
  return Number(m[1]);
}

describe('PeakChart', () => {
  it("shows the fixed window's 2× boundary burst against the limit line", () => {
    const result = boundary();
    expect(result.lanes[0]?.metrics.peakPassed).toEqual({
      windowMs: 1000,
      count: 20,
      startMs: 9999,
    });
    const { container } = render(<PeakChart result={result} lane={0} tMs={10_000} />);
    expect(screen.getByTestId('peak-annotation')).toHaveTextContent(
      'peak 20 in [9.999 s, 10.999 s) — 2× the limit of 10',
    );
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Most passed in any 1 s for Redis fixed window: peak 20 in [9.999 s, 10.999 s) — 2× the limit of 10.',
    );
    // The peak marker sits at twice the limit line's height above the baseline.
    const limit = screen.getByTestId('peak-limit');
    expect(limit).toHaveAttribute('data-limit', '10');
    const limitY = lineY(limit.querySelector('path'));
    const marker = screen.getByTestId('peak-marker').getAttribute('transform') ?? '';
    const peakY = Number(/,([\d.]+)\)$/.exec(marker)?.[1]);
    const baseline = lineY(container.querySelector('.rl-axis-line'));
    expect(baseline - peakY).toBeCloseTo(2 * (baseline - limitY), 0);
    expectFinite(container.innerHTML);
  });

  it('the sliding log holds the same burst to the limit', () => {
    const result = boundary();
    render(<PeakChart result={result} lane={1} />);
    expect(result.lanes[1]?.metrics.peakPassed.count).toBe(10);
    expect(screen.getByTestId('peak-annotation')).toHaveTextContent(
      'peak 10 in [9.999 s, 10.999 s) — within the limit of 10',
    );
  });

  it('the rolling count peaks at the simulation’s peakPassed for every lane', () => {
    const result = poisson();
    result.lanes.forEach((lane, i) => {
      render(<PeakChart result={result} lane={i} />);
      const m = lane.metrics.peakPassed;
      expect(screen.getByTestId('peak-annotation')).toHaveTextContent(
        new RegExp(`^peak ${m.count} in \\[`),
      );
      cleanup();
    });
    // nginx delays: the backend line is drawn, and its nominal limit is its rate × W.
    render(<PeakChart result={result} lane={1} />);
    expect(screen.getByTestId('peak-backend')).toBeInTheDocument();
    expect(nominalLimit(nginx, 1000)).toBe(10);
    expect(nominalLimit(nginx, 500)).toBe(5);
  });

  it('a quota never restored (points never expire) is its limit over any W, and has no rate', () => {
    const never = { kind: 'anchored-window', limit: 3, windowMs: 0 } as const;
    for (const w of [1, 1000, 86_400_000]) expect(nominalLimit(never, w)).toBe(3);
    expect(ratePerSec(never)).toBe(0);
    expect(ratePerSec({ kind: 'anchored-window', limit: 3, windowMs: 1000 })).toBe(3);
  });

  it('rollingMax: column maxima of the count in (t − W, t] equal a brute-force scan (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 999 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 300 }),
        fc.constantFrom(1, 2, 4, 5, 10, 20, 50),
        (raw, W, colWidth) => {
          const times = Float64Array.from(raw.sort((a, b) => a - b));
          const cols = 1000 / colWidth;
          const got = rollingMax(times, W, 0, 1000, cols);
          const f = (t: number) => times.filter((v) => v > t - W && v <= t).length;
          const want = Array.from({ length: cols }, (_, c) => {
            let m = 0;
            for (let t = c * colWidth; t < (c + 1) * colWidth; t += 1) m = Math.max(m, f(t));
            return m;
          });
          expect(Array.from(got)).toEqual(want);
          expect(Math.max(0, ...got)).toBe(peakWindow(times, times.length, W).count);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('snapshot: the boundary burst', async () => {
    const { container } = render(
      <PeakChart result={boundary()} lane={0} tMs={10_000} width={400} />,
    );
    await expect(serialize(container.querySelector('svg') as Element)).toMatchFileSnapshot(
      './__snapshots__/charts/peak-boundary.svg.snap',
    );
  });
});

describe('LoadChart', () => {
  it('rates over the drawn intervals add back up to the lane’s counts', () => {
    const result = poisson();
    result.lanes.forEach((lane) => {
      const { stepMs, points } = loadSeries(lane, result.untilMs);
      expect(points.length).toBeLessThanOrEqual(120);
      expect(stepMs % lane.metrics.bins.binMs).toBe(0);
      const sum = (k: 'offered' | 'passed' | 'backend') =>
        points.reduce((s, p) => s + (p[k] * (p.endMs - p.startMs)) / 1000, 0);
      const t = lane.metrics.total;
      expect(sum('offered')).toBeCloseTo(t.offered, 6);
      expect(sum('passed')).toBeCloseTo(t.admitted + t.delayed, 6);
      expect(sum('backend')).toBeCloseTo(t.admitted + t.delayed - lane.metrics.backendAfterEnd, 6);
    });
  });

  it('draws the three series, marks now, and summarises in words', () => {
    const result = poisson();
    const { container } = render(<LoadChart result={result} lane={0} tMs={30_200} />);
    for (const s of ['offered', 'passed', 'backend']) {
      expect(screen.getByTestId(`load-${s}`).getAttribute('d')).toMatch(/^M/);
    }
    // Offered in the 500 ms interval holding 30.2 s: the burst of 30 plus Poisson arrivals.
    const c = result.lanes[0]?.columns as SimResult['lanes'][number]['columns'];
    let n = 0;
    for (let r = 0; r < c.rows; r += 1)
      if ((c.arrivalMs[r] as number) >= 30_000 && (c.arrivalMs[r] as number) < 30_500) n += 1;
    expect(screen.getByTestId('legend-offered')).toHaveTextContent(`offered ${n * 2}/s`);
    expect(screen.getByTestId('chart-now')).toBeInTheDocument();
    expect(screen.getByRole('img').getAttribute('aria-label')).toMatch(
      /^Load over time for Redis fixed window, requests per second in 0\.5 s steps: offered averages/,
    );
    expectFinite(container.innerHTML);
  });

  it('labels low rates as plain decimals (no SI "m" suffix)', () => {
    const slow = run(
      [fixed10],
      [{ kind: 'constant', ratePerSec: 0.05, startMs: 0, endMs: 60_000 }],
      60_000,
    );
    const { container } = render(<LoadChart result={slow} lane={0} />);
    const labels = Array.from(
      container.querySelectorAll('.rl-y-axis .rl-axis-label:not(.rl-axis-title)'),
      (t) => t.textContent,
    );
    expect(labels.length).toBeGreaterThan(1);
    for (const l of labels) expect(l).toMatch(/^[\d.,]+$/);
    expectFinite(container.innerHTML);
  });
});

describe('DelayHistogram', () => {
  it('bins every delayed request once and marks p50, p95 and max', () => {
    const result = poisson();
    const { container } = render(<DelayHistogram result={result} lane={1} />);
    const delayed = countOutcomes(result, 1)[1];
    const m = result.lanes[1]?.metrics.delay;
    expect(delayed).toBeGreaterThan(100);
    expect(m?.count).toBe(delayed);
    const bars = screen.getAllByTestId('delay-bar');
    expect(bars.reduce((s, b) => s + Number(b.getAttribute('data-count')), 0)).toBe(delayed);
    expect(screen.getByTestId('delay-p50')).toHaveAttribute('data-ms', String(m?.p50Ms));
    expect(screen.getByTestId('delay-p95')).toHaveAttribute('data-ms', String(m?.p95Ms));
    expect(screen.getByTestId('delay-max')).toHaveAttribute('data-ms', String(m?.maxMs));
    // nginx delays at most (burst − delay) / rate = 3 / 10 s.
    expect(m?.maxMs).toBe(300);
    expect(screen.getByTestId('delay-summary')).toHaveTextContent(
      `${delayed} delayed requests · p50 ${m?.p50Ms} ms · p95 ${m?.p95Ms} ms · max 300 ms`,
    );
    expectFinite(container.innerHTML);
  });

  it('delayBins puts each value in exactly one bin that holds it (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 5_000_000 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 40 }),
        (values, target) => {
          const { bins } = delayBins(Float64Array.from(values), target);
          expect(bins.reduce((s, b) => s + b.count, 0)).toBe(values.length);
          for (const v of values) {
            const holders = bins.filter(
              (b, i) => v >= b.x0Ms && (v < b.x1Ms || (i === bins.length - 1 && v === b.x1Ms)),
            );
            expect(holders).toHaveLength(1);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('says so when nothing was delayed, and why for a limiter that never delays', () => {
    const result = poisson();
    const { container } = render(<DelayHistogram result={result} lane={0} />);
    expect(screen.getByTestId('chart-empty')).toHaveTextContent(
      'Nothing was delayedRedis fixed window never delays: it admits or rejects at once',
    );
    expect(screen.queryAllByTestId('delay-bar')).toHaveLength(0);
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Delay distribution for Redis fixed window: nothing was delayed.',
    );
    expectFinite(container.innerHTML);
  });

  it('snapshot: a burst through nginx with delay=2', async () => {
    const result = run([nginx], [{ kind: 'burst', atMs: 1000, count: 6 }], 3000);
    const { container } = render(<DelayHistogram result={result} lane={0} width={400} />);
    await expect(serialize(container.querySelector('svg') as Element)).toMatchFileSnapshot(
      './__snapshots__/charts/delay-burst.svg.snap',
    );
  });
});

describe('charts on degenerate runs', () => {
  const cases: Array<[string, () => SimResult]> = [
    ['no requests', () => run([nginx], [{ kind: 'manual', timesMs: [] }], 1000)],
    [
      'one request in a 1 ms run (one bin)',
      () => run([nginx], [{ kind: 'manual', timesMs: [0] }], 1),
    ],
    [
      'everything rejected after the first',
      () =>
        run(
          [{ kind: 'fixed-window', limit: 1, windowMs: 86_400_000 }],
          [{ kind: 'burst', atMs: 5, count: 50 }],
          100,
        ),
    ],
  ];
  it.each(cases)('%s: no NaN, an empty state where there is nothing to draw', (_, make) => {
    const result = make();
    const { container } = render(
      <>
        <LoadChart result={result} lane={0} tMs={0} />
        <PeakChart result={result} lane={0} tMs={0} />
        <DelayHistogram result={result} lane={0} />
        <PeakChart result={result} lane={7} />
      </>,
    );
    expectFinite(container.innerHTML);
    expect(container.querySelectorAll('svg')).toHaveLength(4);
  });
});
