// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { FixedWindowView } from '../../src/viz';
import type { FixedWindowConfig, FixedWindowInspection } from '../../src/core';
import { frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function draw(f: Frame<FixedWindowConfig>) {
  return render(
    <FixedWindowView
      config={f.config}
      inspection={f.inspection as FixedWindowInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
    />,
  );
}

const config: FixedWindowConfig = { kind: 'fixed-window', limit: 3, windowMs: 1000 };

describe('FixedWindowView', () => {
  it('counts the current window, marks each request, and resets at the boundary', () => {
    // Window [0, 1000): 3 admitted, the 4th rejected. Window [1000, 2000): 1 so far.
    const f = frame(config, [100, 200, 300, 400, 1100], 1150);
    draw(f);
    expect(screen.getByTestId('window-count')).toHaveTextContent('1 / 3 in this window');
    expect(screen.getByTestId('window-reset')).toHaveTextContent('resets in 850 ms');
    const windows = screen.getAllByTestId('window');
    const starts = windows.map((w) => Number(w.getAttribute('data-window-start')));
    expect(starts).toContain(0);
    expect(starts).toContain(1000);
    const previous = windows.find((w) => w.getAttribute('data-window-start') === '0');
    expect(previous).toHaveTextContent('3/3 · ✕1');
    expect(screen.getByTestId('request-4')).toHaveAttribute('data-outcome', 'reject');
    expect(screen.getByTestId('request-5')).toHaveAttribute('data-outcome', 'admit');
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Fixed window: 1 of 3 in this window; resets in 850 ms.',
    );
  });

  it('a full window says it is rejecting; the next window starts empty', () => {
    const full = frame(config, [100, 200, 300], 999);
    const { unmount } = draw(full);
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Fixed window: 3 of 3 in this window; full, rejecting; resets in 1 ms.',
    );
    unmount();
    const next = frame(config, [100, 200, 300], 1000);
    draw(next);
    expect(screen.getByTestId('window-count')).toHaveTextContent('0 / 3 in this window');
    const current = screen
      .getAllByTestId('window')
      .find((w) => w.getAttribute('data-window-start') === '1000');
    expect(current?.querySelector('[data-testid="window-fill"]')).toBeNull();
  });

  it('draws a bounded number of windows for a 1 ms window', () => {
    const f = frame({ kind: 'fixed-window', limit: 1, windowMs: 1 }, [5, 5, 6], 6);
    draw(f);
    expect(screen.getAllByTestId('window').length).toBeLessThanOrEqual(25);
  });
});
