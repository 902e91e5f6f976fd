// @vitest-environment jsdom
/**
 * The anchored-window view (express-rate-limit, rate-limiter-flexible) and the calendar-windows view
 * (Kong, Envoy's global service), drawn from real limiter states; and every system's default drawn
 * by `LimiterView` without the "cannot draw" notice (four systems showed it before these views).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { AnchoredWindowView, CalendarWindowsView, LimiterView } from '../../src/viz';
import type {
  AnchoredWindowConfig,
  AnchoredWindowInspection,
  CalendarWindowsConfig,
  CalendarWindowsInspection,
} from '../../src/core';
import { SYSTEMS } from '../../src/systems';
import { frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function drawAnchored(config: AnchoredWindowConfig, f: Frame) {
  return render(
    <AnchoredWindowView
      config={config}
      inspection={f.inspection as AnchoredWindowInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
    />,
  );
}

function drawCalendar(config: CalendarWindowsConfig, f: Frame) {
  return render(
    <CalendarWindowsView
      config={config}
      inspection={f.inspection as CalendarWindowsInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
    />,
  );
}

describe('AnchoredWindowView', () => {
  const config: AnchoredWindowConfig = {
    kind: 'anchored-window',
    limit: 3,
    windowMs: 1000,
    countRejected: true,
  };

  it("opens the key's window at its first request and counts rejected hits too", () => {
    // The window opens at 250 (the first request), not at 0: it ends at 1250.
    const f = frame(config, [250, 300, 400, 500, 600], 700);
    drawAnchored(config, f);
    expect(screen.getByTestId('window-count')).toHaveTextContent('5 / 3 in this window');
    expect(screen.getByTestId('window-reset')).toHaveTextContent('resets in 550 ms');
    expect(screen.getByTestId('window')).toHaveAttribute('data-window-start', '250');
    expect(screen.getByTestId('window-label')).toHaveTextContent('5/3 · 2 over');
    expect(screen.getByTestId('request-4')).toHaveAttribute('data-outcome', 'reject');
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Anchored window: 5 of 3 since the window opened at 250 ms; full, rejecting; resets in 550 ms.',
    );
  });

  it('a key with no live window says the next request opens one', () => {
    const f = frame(config, [100], 1500);
    drawAnchored(config, f);
    expect(screen.queryByTestId('window')).toBeNull();
    expect(screen.getByTestId('window-reset')).toHaveTextContent('opens at the next request');
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Anchored window: no window yet; the next request opens one of 1 s.',
    );
  });

  it('a rate-limiter-flexible block keeps the window until the block ends', () => {
    const blocking: AnchoredWindowConfig = { ...config, blockMs: 5000 };
    // The 4th request (t = 400) is the first rejected: the record now expires at 5400.
    const f = frame(blocking, [100, 200, 300, 400], 600);
    drawAnchored(blocking, f);
    expect(screen.getByTestId('window-reset')).toHaveTextContent('blocked, ends in 4.8 s');
    expect(screen.getByTestId('window')).toHaveClass('rl-window--blocked');
  });
});

describe('CalendarWindowsView', () => {
  it('one row per period, shortest first, each with its count and reset', () => {
    const config: CalendarWindowsConfig = { kind: 'calendar-windows', second: 2, minute: 10 };
    const f = frame(config, [100, 200, 300, 1100], 1400);
    drawCalendar(config, f);
    const rows = screen.getAllByTestId('calendar-window');
    expect(rows.map((r) => r.getAttribute('data-unit'))).toEqual(['second', 'minute']);
    // Kong counts passed requests only: 3 in the first minute (the request at 300 was rejected).
    expect(rows[0]).toHaveTextContent('second 1 / 2');
    expect(rows[0]).toHaveTextContent('resets in 600 ms');
    expect(rows[1]).toHaveTextContent('minute 3 / 10');
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Calendar windows: second 1 of 2, resets in 600 ms; minute 3 of 10, resets in 58.6 s.',
    );
  });

  it('a full period says it is rejecting; in shadow_mode it is answered OK', () => {
    const config: CalendarWindowsConfig = {
      kind: 'calendar-windows',
      second: 2,
      align: 'epoch',
      countRejected: true,
    };
    const f = frame(config, [100, 200, 300], 400);
    const { unmount } = drawCalendar(config, f);
    expect(screen.getByTestId('calendar-window-count')).toHaveTextContent(
      'second 3 / 2 (1 over) · full, rejecting',
    );
    expect(screen.getByTestId('calendar-window')).toHaveClass('rl-window--full');
    unmount();
    const shadow = { ...config, shadowMode: true };
    const g = frame(shadow, [100, 200, 300], 400);
    drawCalendar(shadow, g);
    expect(screen.getByTestId('calendar-window-count')).toHaveTextContent(
      'over, answered OK (shadow_mode)',
    );
  });
});

describe('LimiterView', () => {
  it.each(SYSTEMS.map((s) => [s.id, s] as const))(
    '%s: its default is drawn, with no "cannot draw" notice',
    (_id, system) => {
      const config =
        system.derive === undefined ? system.defaultConfig : system.derive(system.defaultConfig);
      const f = frame(config, [100, 200, 300, 400, 500, 600, 700], 800);
      render(
        <LimiterView
          config={config}
          inspection={f.inspection}
          nowMs={f.nowMs}
          requests={f.requests}
          reducedMotion={false}
        />,
      );
      expect(screen.queryByRole('alert')).toBeNull();
      expect(screen.getByTestId('limiter-view').querySelector('svg.rl-viz')).not.toBeNull();
    },
  );
});
