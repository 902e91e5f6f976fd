// @vitest-environment jsdom
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { configOf, createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { queryFor, startFrom } from '../../src/ui/share/session';
import { useUrlSync } from '../../src/ui/share/useUrlSync';

afterEach(cleanup);

let replaced: string[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  replaced = [];
  const spy = vi.spyOn(window.history, 'replaceState').mockImplementation((_data, _unused, url) => {
    replaced.push(String(url));
  });
  return () => {
    spy.mockRestore();
    vi.useRealTimers();
  };
});

/** A store standing still at t = 0 (before the hook subscribes: that is not a change it sees). */
function stillStore(): PlaygroundStoreApi {
  const store = createPlaygroundStore(defaultInputs());
  store.getState().pause();
  store.getState().seek(0);
  return store;
}

function Sync() {
  useUrlSync(startFrom('', null, null), null);
  return null;
}

/** Plays `ms` of real time in 16 ms frames, as the clock loop does. */
function play(store: PlaygroundStoreApi, ms: number): void {
  for (let t = 0; t < ms; t += 16) {
    act(() => {
      store.getState().tick(16);
      vi.advanceTimersByTime(16);
    });
  }
}

describe('the address bar follows the clock (issue 11: fewer writes while it plays)', () => {
  it('while playing, at most once a second; when the clock stops, within 300 ms, at the time it stopped', () => {
    const store = stillStore();
    render(
      <PlaygroundProvider store={store}>
        <Sync />
      </PlaygroundProvider>,
    );
    act(() => store.getState().play());
    play(store, 900);
    expect(replaced).toHaveLength(0);
    play(store, 200);
    expect(replaced).toHaveLength(1);
    play(store, 1000);
    expect(replaced).toHaveLength(2);
    // Paused 400 ms into the next second: the write comes within 300 ms, with the paused time.
    play(store, 400);
    act(() => store.getState().pause());
    const stoppedAt = store.getState().tMs;
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(replaced).toHaveLength(3);
    expect(replaced.at(-1)).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
    expect(store.getState().tMs).toBe(stoppedAt);
    // Nothing more while it stands still.
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(replaced).toHaveLength(3);
  });

  it('a seek while paused is written within 300 ms', () => {
    const store = stillStore();
    render(
      <PlaygroundProvider store={store}>
        <Sync />
      </PlaygroundProvider>,
    );
    act(() => store.getState().seek(1234));
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
  });
});
