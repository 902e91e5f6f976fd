// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { FixedWindowView } from '../../src/viz';
import { AnimatingContext } from '../../src/viz/animating';
import type { FixedWindowConfig, FixedWindowInspection } from '../../src/core';
import { frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function view(f: Frame<FixedWindowConfig>, animating = false) {
  return (
    <AnimatingContext value={animating}>
      <FixedWindowView
        config={f.config}
        inspection={f.inspection as FixedWindowInspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={false}
      />
    </AnimatingContext>
  );
}

function draw(f: Frame<FixedWindowConfig>) {
  return render(view(f));
}

/** Each window's tank (its rects, as markup), by window start. */
function tanks(): Map<string, string> {
  return new Map(
    screen
      .getAllByTestId('window')
      .map((w) => [
        w.getAttribute('data-window-start') ?? '',
        [...w.querySelectorAll('rect')].map((r) => r.outerHTML).join(''),
      ]),
  );
}

/** Each window's label: its text and where its centre is drawn (px, on screen), by window start. */
function labels(container: HTMLElement): Map<string, string> {
  return new Map(
    [...container.querySelectorAll('[data-testid="window-label"]')].map((l) => {
      const group = l.closest('[data-testid="window"]')?.parentElement;
      const shift = /translate\(([-\d.]+),/.exec(group?.getAttribute('transform') ?? '');
      const x = Number(l.getAttribute('x')) + Number(shift?.[1] ?? 0);
      return [
        l.closest('[data-testid="window"]')?.getAttribute('data-window-start') ?? '',
        `${l.textContent} @ ${x.toFixed(1)}`,
      ];
    }),
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

  it('playing, the tanks and ticks slide in a group: a frame that changes no count leaves them as they were', () => {
    // 1150 → 1180 ms: no arrival in between, so no count changes; only the axis moves. The
    // window of 0 is whole on the axis; those of −1000 and 1000 reach past its ends.
    const arrivals = [100, 200, 300, 400, 1100];
    const { rerender, container } = render(view(frame(config, arrivals, 1150), true));
    const before = tanks();
    const labelsBefore = labels(container);
    const ticks = [...container.querySelectorAll('.rl-axis-tick')].map((t) =>
      t.parentElement?.getAttribute('transform'),
    );
    const group = screen.getAllByTestId('window')[0]?.parentElement;
    const shiftBefore = group?.getAttribute('transform');
    const inner = () =>
      screen
        .getAllByTestId('window')
        .find((w) => w.getAttribute('data-window-start') === '0')
        ?.querySelector('text')?.outerHTML;
    const innerBefore = inner();
    rerender(view(frame(config, arrivals, 1180), true));
    expect(tanks()).toEqual(before);
    // The label of the whole window stays put in the group; those of the cut ones follow their
    // visible part.
    expect(inner()).toBe(innerBefore);
    expect(
      [...container.querySelectorAll('.rl-axis-tick')].map((t) =>
        t.parentElement?.getAttribute('transform'),
      ),
    ).toEqual(ticks);
    // The group moved left by 30 ms of axis.
    expect(group?.getAttribute('transform')).not.toBe(shiftBefore);
    // The tanks are cut at the axis's ends by a clip of their own, not clamped.
    const clip = group?.parentElement?.getAttribute('clip-path') ?? '';
    expect(clip).toMatch(/^url\(#[\w-]+\)$/);
    expect(container.querySelector(`clipPath#${clip.slice(5, -1)}`)).not.toBeNull();
    // The labels say and sit where a still frame at that moment has them (to 0.1 px).
    const playing = labels(container);
    expect(playing).not.toEqual(labelsBefore);
    rerender(view(frame(config, arrivals, 1180)));
    const still = labels(container);
    expect([...playing.keys()]).toEqual([...still.keys()]);
    for (const [start, text] of still) {
      const [words, at] = text.split(' @ ');
      const [playingWords, playingAt] = (playing.get(start) ?? '').split(' @ ');
      expect(playingWords).toBe(words);
      expect(Math.abs(Number(playingAt) - Number(at))).toBeLessThanOrEqual(0.11);
    }
    expect(container.querySelector('clipPath')).toBeNull();
  });

  it('playing, an arrival changes its own tank only', () => {
    const { rerender } = render(view(frame(config, [100, 200, 1100], 1150), true));
    const before = tanks();
    rerender(view(frame(config, [100, 200, 1100, 1160], 1170), true));
    const after = tanks();
    expect(after.get('0')).toBe(before.get('0'));
    expect(after.get('1000')).not.toBe(before.get('1000'));
    expect(screen.getByTestId('window-count')).toHaveTextContent('2 / 3 in this window');
  });
});
