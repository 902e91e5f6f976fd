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
