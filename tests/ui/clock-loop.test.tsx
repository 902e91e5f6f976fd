// @vitest-environment jsdom
/**
 * The clock loop (input first): while playing, each frame advances the virtual clock by
 * the real time since the last frame; the frame right after an edit leaves the clock where the
 * edit drew it, and the next frame advances it by the real time of both, so no virtual time is
 * lost; two frames in a row are never held, so a slider dragged while playing still moves it.
 */
import { cleanup, render } from '@testing-library/react';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { useClockLoop } from '../../src/ui/clock/useClockLoop';

let frames: FrameRequestCallback[] = [];
beforeEach(() => {
  frames = [];
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal('cancelAnimationFrame', () => undefined);
  return () => vi.unstubAllGlobals();
});
afterEach(cleanup);

/** Runs the queued frame callbacks at real time `now` (ms). */
function frameAt(now: number): void {
  const queued = frames;
  frames = [];
  act(() => queued.forEach((cb) => cb(now)));
}

function Loop() {
  useClockLoop();
  return null;
}

function playing() {
  const store = createPlaygroundStore();
  store.setState({ tMs: 0, untilMs: 60_000, speed: 1, playing: true });
  render(
    <PlaygroundProvider store={store}>
      <Loop />
    </PlaygroundProvider>,
  );
  return store;
}

/** An edit of what is simulated: the run's length, one ms longer each time. */
function edit(store: ReturnType<typeof createPlaygroundStore>): void {
  const s = store.getState();
  act(() => s.setUntil(s.untilMs + 1));
}

describe('useClockLoop', () => {
  it('advances the clock by the real time between frames', () => {
    const store = playing();
    frameAt(1000);
    frameAt(1016);
    frameAt(1032);
    expect(store.getState().tMs).toBe(32);
  });

  it('holds the clock for the frame after an edit and catches up in the next one', () => {
    const store = playing();
    frameAt(1000);
    frameAt(1016);
    edit(store);
    frameAt(1032);
    expect(store.getState().tMs).toBe(16);
    frameAt(1048);
    expect(store.getState().tMs).toBe(48);
  });

  it('never holds two frames in a row', () => {
    const store = playing();
    frameAt(1000);
    const seen: number[] = [];
    for (let k = 1; k <= 6; k += 1) {
      edit(store);
      frameAt(1000 + 16 * k);
      seen.push(store.getState().tMs);
    }
    expect(seen).toEqual([0, 32, 32, 64, 64, 96]);
  });

  it('does not hold a frame when nothing simulated changed', () => {
    const store = playing();
    frameAt(1000);
    act(() => store.getState().setActiveLane(0));
    act(() => store.getState().select(null));
    frameAt(1016);
    expect(store.getState().tMs).toBe(16);
  });
});
