// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { DENSE_MARKS, DenseMarks } from '../../src/viz/DenseMarks';
import { FixedWindowView } from '../../src/viz';
import { every, frame } from './fixtures';

afterEach(cleanup);

/** Subpaths of a path: each shape starts with one M. */
const shapes = (d: string | null) => (d ?? '').split('M').length - 1;

describe('DenseMarks', () => {
  it('draws each mark as its outcome’s shape, one path per outcome', () => {
    const { container } = render(
      <svg>
        <DenseMarks
          marks={[
            { outcome: 'admit', x: 10, y: 5 },
            { outcome: 'admit', x: 20, y: 5 },
            { outcome: 'delay', x: 30, y: 5 },
            { outcome: 'reject', x: 40, y: 5 },
            { outcome: 'reject', x: 50, y: 5 },
            { outcome: 'reject', x: 60, y: 5 },
          ]}
        />
      </svg>,
    );
    const path = (o: string) =>
      container.querySelector(`.rl-mark--${o}`)?.getAttribute('d') ?? null;
    expect(shapes(path('admit'))).toBe(2);
    expect(shapes(path('delay'))).toBe(1);
    expect(shapes(path('reject'))).toBe(3);
    expect(path('admit')).toContain('a3.5,3.5 0 1,0 7,0');
  });

  it('writes the same paths from its kept segments as it wrote first, also across a clearing', () => {
    const outcomes = ['admit', 'delay', 'reject'] as const;
    // More marks than it keeps segments for (20,000): the second half clears them on the way.
    const marks = Array.from({ length: 24_000 }, (_, i) => ({
      outcome: outcomes[i % 3] as (typeof outcomes)[number],
      x: ((i * 37) % 9001) / 10 - 100.05,
      y: ((i * 11) % 401) / 10 + 0.04,
    }));
    const paths = (list: typeof marks, size?: number) => {
      const { container, unmount } = render(
        <svg>
          <DenseMarks marks={list} {...(size === undefined ? {} : { size })} />
        </svg>,
      );
      const d = outcomes.map(
        (o) => container.querySelector(`.rl-mark--${o}`)?.getAttribute('d') ?? '',
      );
      unmount();
      return d;
    };
    const first = paths(marks);
    expect(first.map(shapes)).toEqual([8000, 8000, 8000]);
    // Again (from kept segments, the first ones cleared by the time the last are written), the
    // same marks in another order, and one mark alone: each shape as written the first time.
    expect(paths(marks)).toEqual(first);
    const reversed = paths([...marks].reverse());
    outcomes.forEach((_, k) => {
      const split = (d: string) => d.split('M').filter(Boolean).sort();
      expect(split(reversed[k] as string)).toEqual(split(first[k] as string));
    });
    const lone = paths([marks[4] as (typeof marks)[number]]);
    expect(first[1]?.startsWith(lone[1] as string)).toBe(false);
    expect(first[1]).toContain(lone[1] as string);
    // Another size is another shape, not a kept one.
    expect(paths(marks.slice(0, 3), 9)[0]).toContain('a4.5,4.5 0 1,0 9,0');
  });

  it('takes over in a fixed window view when a fast stream puts many marks on the axis', () => {
    // 200 requests/s for 3 s against 100 per 1 s: hundreds of marks in the 2.5 windows shown.
    const f = frame({ kind: 'fixed-window', limit: 100, windowMs: 1000 }, every(0, 5, 600), 3000);
    render(
      <FixedWindowView
        config={f.config as never}
        inspection={f.inspection as never}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={false}
      />,
    );
    const dense = screen.getByTestId('dense-marks');
    expect(Number(dense.dataset.count)).toBeGreaterThan(DENSE_MARKS);
    expect(screen.queryAllByTestId(/^request-\d+$/)).toHaveLength(0);
  });

  it('leaves a slow stream as single, clickable marks', () => {
    const f = frame({ kind: 'fixed-window', limit: 5, windowMs: 1000 }, every(0, 200, 15), 3000);
    render(
      <FixedWindowView
        config={f.config as never}
        inspection={f.inspection as never}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={false}
      />,
    );
    expect(screen.queryByTestId('dense-marks')).toBeNull();
    expect(screen.queryAllByTestId(/^request-\d+$/).length).toBeGreaterThan(0);
  });
});

describe('a fixed window counted from a cut list of requests', () => {
  it('shows a window that starts before the list as a lower bound', () => {
    const f = frame({ kind: 'fixed-window', limit: 100, windowMs: 1000 }, every(0, 5, 600), 2500);
    render(
      <FixedWindowView
        config={f.config as never}
        inspection={f.inspection as never}
        nowMs={f.nowMs}
        requests={f.requests.filter((r) => r.arrivalMs >= 1200)}
        requestsFromMs={1200}
        reducedMotion={false}
      />,
    );
    const labels = screen.getAllByTestId('window-label').map((l) => l.textContent);
    // The window [1 s, 2 s) lost its first 200 ms of requests: "≥", not a made-up exact count.
    expect(labels).toContain('≥60/100 · ✕≥100');
    expect(labels).toContain('100/100 · ✕1'); // the current window: the limiter's own count
  });
});
