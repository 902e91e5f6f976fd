// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { SlidingLogView } from '../../src/viz';
import type { SlidingLogConfig, SlidingLogInspection } from '../../src/core';
import { every, frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function draw(f: Frame<SlidingLogConfig>) {
  return render(
    <SlidingLogView
      config={f.config}
      inspection={f.inspection as SlidingLogInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
      stateSize={f.stateSize}
    />,
  );
}

describe('SlidingLogView', () => {
  it('one mark per stored timestamp in the window, and the window bracket', () => {
    const f = frame({ kind: 'sliding-log', limit: 3, windowMs: 1000 }, every(0, 100, 6), 550);
    const i = f.inspection as SlidingLogInspection;
    expect(i.entries).toEqual([0, 100, 200]);
    draw(f);
    const marks = screen.getAllByTestId('log-entry');
    expect(marks).toHaveLength(i.entries.length);
    expect(marks.map((m) => Number(m.getAttribute('data-time')))).toEqual([0, 100, 200]);
    expect(screen.getByTestId('window-bracket')).toBeInTheDocument();
    expect(screen.getByTestId('log-count')).toHaveTextContent('3 / 3 in the window');
    expect(screen.getByTestId('log-size')).toHaveTextContent('memory: 3 entries · 24 B');
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Sliding log: 3 of 3 in the last 1 s; 3 entries stored; the oldest leaves the window in 450 ms.',
    );
  });

  it('entries slide out of the bracket as time passes', () => {
    const f = frame({ kind: 'sliding-log', limit: 3, windowMs: 1000 }, every(0, 100, 3), 1150);
    expect((f.inspection as SlidingLogInspection).entries).toEqual([200]);
    draw(f);
    expect(screen.getAllByTestId('log-entry')).toHaveLength(1);
  });

  it('logRejected: the log and its memory grow with every rejected request', () => {
    const f = frame(
      { kind: 'sliding-log', limit: 3, windowMs: 1000, logRejected: true },
      every(0, 100, 6),
      550,
    );
    const i = f.inspection as SlidingLogInspection;
    expect(i.stored).toBe(6);
    draw(f);
    expect(screen.getAllByTestId('log-entry')).toHaveLength(6);
    expect(screen.getByTestId('log-count')).toHaveTextContent('6 / 3 in the window');
    expect(screen.getByTestId('log-size')).toHaveTextContent('memory: 6 entries · 48 B');
    expect(screen.getByTestId('log-size')).toHaveTextContent('logRejected');
    expect(screen.getByTestId('log-size-bar')).toHaveClass('rl-memory-bar--over');
  });

  it('an empty log draws no entries and no NaN', () => {
    const f = frame({ kind: 'sliding-log', limit: 5, windowMs: 1000 }, [], 0);
    const { container } = draw(f);
    expect(screen.queryAllByTestId('log-entry')).toHaveLength(0);
    expect(container.innerHTML).not.toMatch(/NaN|Infinity/);
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Sliding log: 0 of 5 in the last 1 s; 0 entries stored.',
    );
  });
});
