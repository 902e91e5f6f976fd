// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import fc from 'fast-check';
import { Timeline, outcomeColumns } from '../../src/viz';
import type { SimResult } from '../../src/sim';
import { countOutcomes, expectFinite, run } from './sim-fixtures';
import { serialize } from './serialize';

afterEach(cleanup);

// Layout of a 640 px timeline: plot from x 26 to 626 (600 px); lane i's rows (admit, delay, reject)
// are 12 px high from y 22 + 60·i + 16.
const W = 640;
const xOf = (tMs: number, untilMs: number) => 26 + (tMs / untilMs) * 600;
const rowY = (lane: number, code: number) => 22 + 60 * lane + 16 + code * 12 + 6;

const fixed2 = { kind: 'fixed-window', limit: 2, windowMs: 1000 } as const;
/** Fixed window, 2 per second: 100 ✓, 200 ✓, 300 ✕ | 1100 ✓, 1150 ✓, 1200 ✕, 1250 ✕ | … */
const sparse = () =>
  run(
    [fixed2],
    [{ kind: 'manual', timesMs: [100, 200, 300, 1100, 1150, 1200, 1250, 2500, 5000, 9000] }],
    10_000,
  );

/** A minute of Poisson traffic at 12/s and a burst of 30 at 30 s through 10 per second. */
const dense = () =>
  run(
    [
      { kind: 'fixed-window', limit: 10, windowMs: 1000 },
      { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 2 },
    ],
    [
      { kind: 'poisson', ratePerSec: 12, startMs: 0, endMs: 60_000 },
      { kind: 'burst', atMs: 30_000, count: 30 },
    ],
    60_000,
  );

function draw(result: SimResult, props: Partial<Parameters<typeof Timeline>[0]> = {}) {
  const onSeek = vi.fn();
  const onSelect = vi.fn();
  const view = render(
    <Timeline
      result={result}
      tMs={2350}
      width={W}
      onSeek={onSeek}
      onSelect={onSelect}
      {...props}
    />,
  );
  return { ...view, onSeek, onSelect, svg: screen.getByTestId('timeline') };
}

describe('Timeline marks', () => {
  it('draws one mark per request of a sparse lane, by outcome row, matching the decisions', () => {
    const result = sparse();
    const { container } = draw(result);
    const lane = screen.getByTestId('timeline-lane');
    expect(lane).toHaveAttribute('data-mode', 'marks');
    const marks = within(lane).getAllByTestId('timeline-mark');
    const by = (o: string) => marks.filter((m) => m.getAttribute('data-outcome') === o).length;
    const [admitted, delayed, rejected] = countOutcomes(result, 0);
    expect([by('admit'), by('delay'), by('reject')]).toEqual([admitted, delayed, rejected]);
    expect([admitted, rejected]).toEqual([7, 3]);
    expect(result.lanes[0]?.metrics.total).toMatchObject({ admitted: 7, rejected: 3 });
    // The first request (100 ms, admitted) is a circle at its time in the admit row.
    const first = marks.find((m) => m.getAttribute('data-row') === '0') as Element;
    const circle = first.querySelector('circle') as SVGCircleElement;
    expect(Number(circle.getAttribute('cx'))).toBeCloseTo(xOf(100, 10_000), 1);
    expect(Number(circle.getAttribute('cy'))).toBeCloseTo(rowY(0, 0), 1);
    // The third (300 ms) was rejected: a cross (a path, no fill) in the reject row.
    const third = marks.find((m) => m.getAttribute('data-row') === '2') as Element;
    expect(third).toHaveAttribute('data-outcome', 'reject');
    const d = third.querySelector('path')?.getAttribute('d') ?? '';
    const [, cx, cy] = /^M([\d.]+),([\d.]+)/.exec(d) ?? [];
    expect(Number(cx) + 2.975).toBeCloseTo(xOf(300, 10_000), 0);
    expect(Number(cy) + 2.975).toBeCloseTo(rowY(0, 2), 0);
    expectFinite(container.innerHTML);
  });

  it('aggregates a dense lane per pixel column; the columns add up to the outcome counts', () => {
    const result = dense();
    draw(result);
    const lanes = screen.getAllByTestId('timeline-lane');
    expect(lanes).toHaveLength(2);
    lanes.forEach((lane, i) => {
      expect(lane).toHaveAttribute('data-mode', 'columns');
      expect(within(lane).queryAllByTestId('timeline-mark')).toHaveLength(0);
      const counts = within(lane)
        .getAllByTestId('timeline-bars')
        .map((p) => Number(p.getAttribute('data-count')));
      expect(counts).toEqual(countOutcomes(result, i));
      const m = result.lanes[i]?.metrics.total;
      expect(counts).toEqual([m?.admitted, m?.delayed, m?.rejected]);
    });
    // The leaky bucket delays: its delay row has bars, the fixed window's has none.
    const delayBars = (i: number) =>
      within(lanes[i] as HTMLElement)
        .getAllByTestId('timeline-bars')
        .find((p) => p.getAttribute('data-outcome') === 'delay');
    expect(delayBars(0)?.getAttribute('d')).toBeNull();
    expect(delayBars(1)?.getAttribute('d')).toMatch(/^M/);
  });

  it('column counts equal a plain count of rows per column, for any range (property)', () => {
    const result = dense();
    const c = result.lanes[0]?.columns as SimResult['lanes'][number]['columns'];
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 59_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 1, max: 700 }),
        (from, span, cols) => {
          const to = Math.min(60_000, from + span);
          fc.pre(to > from);
          const agg = outcomeColumns(c, from, to, cols);
          const naive = [
            new Array<number>(cols).fill(0),
            new Array<number>(cols).fill(0),
            new Array<number>(cols).fill(0),
          ];
          for (let r = 0; r < c.rows; r += 1) {
            const t = c.arrivalMs[r] as number;
            if (t < from || t >= to) continue;
            const col = Math.min(cols - 1, Math.floor(((t - from) * cols) / (to - from)));
            const counts = naive[c.outcome[r] as number] as number[];
            counts[col] = (counts[col] as number) + 1;
          }
          expect(agg.counts.map((a) => Array.from(a))).toEqual(naive);
          expect(agg.totals).toEqual(naive.map((a) => a.reduce((s, v) => s + v, 0)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('stays small with 600,000 requests: a few paths per lane, not an element per request', () => {
    const result = run(
      [{ kind: 'fixed-window', limit: 10, windowMs: 1000 }],
      [{ kind: 'constant', ratePerSec: 10_000, startMs: 0, endMs: 60_000 }],
      60_000,
    );
    expect(result.lanes[0]?.columns.rows).toBe(600_000);
    const { container } = draw(result);
    const lane = screen.getByTestId('timeline-lane');
    expect(lane.querySelectorAll('*').length).toBeLessThan(40);
    const counts = within(lane)
      .getAllByTestId('timeline-bars')
      .map((p) => Number(p.getAttribute('data-count')));
    expect(counts).toEqual([600, 0, 599_400]);
    expect(container.querySelectorAll('*').length).toBeLessThan(120);
  });

  it('draws only the range asked for: the counts are the rows inside it', () => {
    const result = dense();
    draw(result, { fromMs: 29_000, toMs: 31_000 });
    const c = result.lanes[0]?.columns as SimResult['lanes'][number]['columns'];
    const want = [0, 0, 0];
    for (let r = 0; r < c.rows; r += 1) {
      const t = c.arrivalMs[r] as number;
      const o = c.outcome[r] as 0 | 1 | 2;
      if (t >= 29_000 && t < 31_000) want[o] = (want[o] as number) + 1;
    }
    expect(want[2]).toBeGreaterThanOrEqual(20); // the burst at 30 s
    const lane = screen.getAllByTestId('timeline-lane')[0] as HTMLElement;
    const counts = within(lane)
      .getAllByTestId('timeline-bars')
      .map((p) => Number(p.getAttribute('data-count')));
    expect(counts).toEqual(want);
    // The axis is labelled in the range: 29 s … 31 s.
    expect(screen.getByTestId('timeline')).toHaveTextContent('29.5 s');
  });

  it('draws the lanes asked for, in that order, and rings the selected request', () => {
    const result = dense();
    const c = result.lanes[1]?.columns as SimResult['lanes'][number]['columns'];
    // A delayed request of the leaky bucket, drawn in the top band (lanes = [1, 0]).
    let row = 0;
    while (c.outcome[row] !== 1) row += 1;
    draw(result, { lanes: [1, 0], selected: { lane: 1, row } });
    const lanes = screen.getAllByTestId('timeline-lane');
    expect(lanes.map((l) => l.getAttribute('data-lane'))).toEqual(['1', '0']);
    expect(lanes[0]).toHaveTextContent('nginx');
    const ring = screen
      .getByTestId('timeline-selected')
      .querySelector('circle') as SVGCircleElement;
    expect(Number(ring.getAttribute('cx'))).toBeCloseTo(xOf(c.arrivalMs[row] as number, 60_000), 1);
    expect(Number(ring.getAttribute('cy'))).toBeCloseTo(rowY(0, 1), 1);
  });
});

describe('Timeline seeking and selecting', () => {
  it('is an ARIA slider over the run, with the time in words', () => {
    draw(sparse());
    const slider = screen.getByRole('slider', { name: 'Virtual time' });
    expect(slider).toHaveAttribute('aria-valuemin', '0');
    expect(slider).toHaveAttribute('aria-valuemax', '10000');
    expect(slider).toHaveAttribute('aria-valuenow', '2350');
    expect(slider).toHaveAttribute('aria-valuetext', '2.35 s');
    expect(slider).toHaveAttribute('tabindex', '0');
  });

  it('keys step 100 ms, 1 s with Shift, 10 s with Page keys, and jump to either end', () => {
    const { onSeek } = draw(sparse());
    const slider = screen.getByRole('slider');
    const press = (key: string, shiftKey = false) => {
      onSeek.mockClear();
      fireEvent.keyDown(slider, { key, shiftKey });
      return onSeek.mock.calls.map((c) => c[0] as number);
    };
    expect(press('ArrowRight')).toEqual([2450]);
    expect(press('ArrowLeft')).toEqual([2250]);
    expect(press('ArrowUp')).toEqual([2450]);
    expect(press('ArrowRight', true)).toEqual([3350]);
    expect(press('ArrowLeft', true)).toEqual([1350]);
    expect(press('PageUp')).toEqual([10_000]); // 12,350 clamped to the end of the run
    expect(press('PageDown')).toEqual([0]);
    expect(press('Home')).toEqual([0]);
    expect(press('End')).toEqual([10_000]);
    expect(press('a')).toEqual([]);
  });

  it('clamps at the start of the run', () => {
    const { onSeek } = draw(sparse(), { tMs: 50 });
    fireEvent.keyDown(screen.getByRole('slider'), { key: 'ArrowLeft' });
    expect(onSeek).toHaveBeenCalledWith(0);
  });

  it('Enter selects the last request at or before the current time', () => {
    const { onSelect } = draw(sparse(), { tMs: 1199 });
    fireEvent.keyDown(screen.getByRole('slider'), { key: 'Enter' });
    // Rows: 100, 200, 300, 1100, 1150, 1200 … → the last at or before 1199 is row 4 (1150 ms).
    expect(onSelect).toHaveBeenCalledWith(0, 4);
  });

  it('clicking a mark selects its request; clicking empty track seeks there', () => {
    const result = sparse();
    const { onSelect, onSeek, svg } = draw(result);
    const mark = screen
      .getAllByTestId('timeline-mark')
      .find((m) => m.getAttribute('data-row') === '5') as Element;
    const shape = mark.firstElementChild as Element;
    fireEvent.pointerDown(shape, { clientX: xOf(1200, 10_000), clientY: rowY(0, 2), pointerId: 1 });
    fireEvent.pointerUp(shape, { clientX: xOf(1200, 10_000), clientY: rowY(0, 2), pointerId: 1 });
    expect(onSelect).toHaveBeenCalledWith(0, 5);
    expect(onSeek).not.toHaveBeenCalled();
    // Empty space above the lanes: a seek to the time under the pointer.
    fireEvent.pointerDown(svg, { clientX: xOf(7000, 10_000), clientY: 8, pointerId: 1 });
    fireEvent.pointerUp(svg, { clientX: xOf(7000, 10_000), clientY: 8, pointerId: 1 });
    expect(onSeek).toHaveBeenCalledWith(7000);
    expect(onSelect).toHaveBeenCalledTimes(1);
  });

  it('clicking an aggregated row selects the nearest request of that outcome', () => {
    const result = dense();
    const { onSelect, svg } = draw(result);
    const at = { clientX: xOf(30_000, 60_000), clientY: rowY(0, 2), pointerId: 1 };
    fireEvent.pointerDown(svg, at);
    fireEvent.pointerUp(svg, at);
    expect(onSelect).toHaveBeenCalledTimes(1);
    const [lane, row] = onSelect.mock.calls[0] as [number, number];
    const c = result.lanes[lane]?.columns as SimResult['lanes'][number]['columns'];
    expect(lane).toBe(0);
    // The burst of 30 at 30 s through 10 per second: rejected requests at exactly 30,000 ms.
    expect(c.arrivalMs[row]).toBe(30_000);
    expect(c.outcome[row]).toBe(2);
  });

  it('dragging scrubs: each move seeks, the release does not select', () => {
    const { onSeek, onSelect, svg } = draw(sparse());
    fireEvent.pointerDown(svg, { clientX: xOf(1000, 10_000), clientY: rowY(0, 0), pointerId: 1 });
    fireEvent.pointerMove(svg, { clientX: xOf(2000, 10_000), clientY: rowY(0, 0), pointerId: 1 });
    fireEvent.pointerMove(svg, { clientX: xOf(4000, 10_000), clientY: 200, pointerId: 1 });
    fireEvent.pointerUp(svg, { clientX: xOf(4000, 10_000), clientY: 200, pointerId: 1 });
    expect(onSeek.mock.calls.map((c) => c[0] as number)).toEqual([2000, 4000]);
    expect(onSelect).not.toHaveBeenCalled();
  });
});

describe('Timeline edge cases', () => {
  it('draws an empty run, a one-millisecond run and a cut lane without NaN', () => {
    const empty = run([fixed2], [{ kind: 'manual', timesMs: [] }], 1000);
    const { container, unmount } = draw(empty, { tMs: 0 });
    expect(screen.queryAllByTestId('timeline-mark')).toHaveLength(0);
    const counts = screen.getByTestId('timeline-counts').querySelectorAll('text');
    expect(Array.from(counts, (t) => t.textContent)).toEqual(['0', '0', '0']);
    expectFinite(container.innerHTML);
    unmount();
    const tiny = run([fixed2], [{ kind: 'manual', timesMs: [0] }], 1);
    const second = draw(tiny, { tMs: 5 });
    expect(screen.getByRole('slider')).toHaveAttribute('aria-valuenow', '1');
    expect(screen.getAllByTestId('timeline-mark')).toHaveLength(1);
    expectFinite(second.container.innerHTML);
  });

  it('snapshot: two lanes, sparse marks', async () => {
    const result = run(
      [fixed2, { kind: 'sliding-log', limit: 2, windowMs: 1000 }],
      [{ kind: 'manual', timesMs: [100, 200, 300, 900, 950, 1000, 1100, 2500] }],
      3000,
    );
    const { svg } = draw(result, { tMs: 1000, width: 480, selected: { lane: 1, row: 5 } });
    await expect(serialize(svg)).toMatchFileSnapshot('./__snapshots__/charts/timeline.svg.snap');
  });
});

describe('the playhead and the marks', () => {
  it('draws the playhead line under the marks, so a request decided at this instant shows', () => {
    const result = sparse();
    // Paused exactly on the request at 1100 ms.
    const { container } = draw(result, { tMs: 1100 });
    const line = container.querySelector('[data-testid="timeline-now"]') as Element;
    const lanes = container.querySelector('.rl-timeline-lanes') as Element;
    expect(line).not.toBeNull();
    expect(line.compareDocumentPosition(lanes) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    // The slider's grip and readout stay above everything.
    const handle = container.querySelector('[data-testid="timeline-handle"]') as Element;
    expect(lanes.compareDocumentPosition(handle) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});

describe('the playhead while playing', () => {
  it('moves the line by its transform (a layer of its own) to where the paused drawing puts it', () => {
    const result = sparse();
    const paused = draw(result, { tMs: 1100 });
    const d = paused.getByTestId('timeline-now').getAttribute('d') as string;
    paused.unmount();
    const [, x, rest] = /^M([\d.]+),(.*)$/.exec(d) as RegExpExecArray;
    expect(Number(x)).toBeGreaterThan(26);
    const playing = draw(result, { tMs: 1100, moving: true });
    const line = playing.getByTestId('timeline-now');
    expect(line).toHaveClass('is-moving');
    expect(line).toHaveAttribute('d', `M0,${rest}`);
    expect(line).toHaveAttribute('transform', `translate(${x},0)`);
  });

  it('draws the line in place, with no transform, when paused', () => {
    const line = draw(sparse(), { tMs: 1100 }).getByTestId('timeline-now');
    expect(line).not.toHaveClass('is-moving');
    expect(line).not.toHaveAttribute('transform');
  });
});

describe('dense lanes coloured per request', () => {
  const even = (_lane: number, row: number) =>
    row % 2 === 0 ? { color: 'rgb(1, 2, 3)', name: 'replica R1' } : null;

  it('splits dense bars by colour: the segments add up to the outcome counts', () => {
    const result = dense();
    render(<Timeline result={result} tMs={0} width={W} onSeek={() => {}} markColor={even} />);
    const lanes = screen.getAllByTestId('timeline-lane');
    lanes.forEach((lane, i) => {
      expect(lane).toHaveAttribute('data-mode', 'columns');
      const bars = within(lane).getAllByTestId('timeline-bars');
      const sum = [0, 0, 0];
      for (const p of bars) {
        const code = ['admit', 'delay', 'reject'].indexOf(p.getAttribute('data-outcome') ?? '');
        sum[code] = (sum[code] as number) + Number(p.getAttribute('data-count'));
      }
      expect(sum).toEqual(countOutcomes(result, i));
      // Both colours appear among the admitted bars.
      const admitted = bars.filter((p) => p.getAttribute('data-outcome') === 'admit');
      expect(admitted.map((p) => p.style.getPropertyValue('fill')).sort()).toEqual([
        '',
        'rgb(1, 2, 3)',
      ]);
    });
  });

  it('without it, draws exactly as before (no inline colour)', () => {
    const result = dense();
    const { container } = render(<Timeline result={result} tMs={0} width={W} onSeek={() => {}} />);
    expect(container.querySelectorAll('[style]')).toHaveLength(0);
  });
});

describe('marks coloured by replica', () => {
  it('each individual mark gets its colour bar and the name as tooltip and data-replica; without markColor none', () => {
    const result = sparse();
    const names = ['R1', 'R2'];
    const markColor = (_lane: number, row: number) => ({
      color: row % 2 === 0 ? '#4e79a7' : '#f28e2b',
      name: `replica ${names[row % 2] ?? ''}`,
    });
    const { container, unmount } = render(
      <Timeline result={result} tMs={0} width={W} onSeek={() => {}} markColor={markColor} />,
    );
    const marks = screen.getAllByTestId('timeline-mark');
    expect(marks).toHaveLength(10);
    marks.forEach((m) => {
      const row = Number(m.getAttribute('data-row'));
      expect(m.getAttribute('data-replica')).toBe(`replica ${names[row % 2] ?? ''}`);
      expect(m.querySelector('title')?.textContent).toBe(`replica ${names[row % 2] ?? ''}`);
      expect(m.querySelector('.rl-timeline-replica')?.getAttribute('fill')).toBe(
        row % 2 === 0 ? '#4e79a7' : '#f28e2b',
      );
    });
    expect(container.querySelectorAll('.rl-timeline-replica')).toHaveLength(10);
    unmount();
    const plain = render(<Timeline result={result} tMs={0} width={W} onSeek={() => {}} />);
    expect(plain.container.querySelectorAll('.rl-timeline-replica')).toHaveLength(0);
    expect(plain.container.querySelector('[data-replica]')).toBeNull();
  });
});
