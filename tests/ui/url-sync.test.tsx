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
  useUrlSync(startFrom('', null, null, null), null);
  return null;
}

/** The hook, mounted on `store`. */
function sync(store: PlaygroundStoreApi) {
  return render(
    <PlaygroundProvider store={store}>
      <Sync />
    </PlaygroundProvider>,
  );
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

describe('the address bar follows the clock (no writes while it plays)', () => {
  it('while playing, not at all; when the clock stops, within 300 ms, at the time it stopped', () => {
    const store = stillStore();
    sync(store);
    act(() => store.getState().play());
    // Pressing Play is written (the link then plays), once.
    play(store, 400);
    expect(replaced).toHaveLength(1);
    const playedFrom = replaced[0];
    play(store, 3000);
    expect(replaced).toHaveLength(1);
    // Paused: the write comes within 300 ms, with the paused time.
    act(() => store.getState().pause());
    const stoppedAt = store.getState().tMs;
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(replaced).toHaveLength(2);
    expect(replaced.at(-1)).not.toBe(playedFrom);
    expect(replaced.at(-1)).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
    expect(store.getState().tMs).toBe(stoppedAt);
    // Nothing more while it stands still.
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(replaced).toHaveLength(2);
  });

  it('a playing page that is hidden or left writes its time at once', () => {
    const store = stillStore();
    sync(store);
    act(() => store.getState().play());
    play(store, 2000);
    expect(replaced).toHaveLength(1);
    const hidden = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    hidden.mockRestore();
    expect(replaced).toHaveLength(2);
    expect(replaced[1]).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
    play(store, 500);
    act(() => {
      window.dispatchEvent(new Event('pagehide'));
    });
    expect(replaced).toHaveLength(3);
    expect(replaced[2]).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
  });

  it('a page hidden, shown or left with nothing waiting writes nothing (a link opened stays as it came)', () => {
    const store = stillStore();
    const { unmount } = sync(store);
    const state = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
      state.mockReturnValue('visible');
      document.dispatchEvent(new Event('visibilitychange'));
      window.dispatchEvent(new Event('pagehide'));
    });
    expect(replaced).toHaveLength(0);
    // Unmounted while playing: its listeners are gone.
    act(() => store.getState().play());
    unmount();
    state.mockReturnValue('hidden');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
      window.dispatchEvent(new Event('pagehide'));
    });
    state.mockRestore();
    expect(replaced).toHaveLength(0);
  });

  it('an edit while playing leaves its entry at the moment of the edit; hidden, the edit is pushed, left, replaced', () => {
    const pushed: string[] = [];
    const push = vi.spyOn(window.history, 'pushState').mockImplementation((_d, _u, url) => {
      pushed.push(String(url));
    });
    const store = stillStore();
    sync(store);
    act(() => store.getState().play());
    play(store, 2000);
    expect(replaced).toHaveLength(1);
    const before = store.getState();
    act(() => store.getState().setLimiterKind(0, 'fixed-window'));
    // The entry the edit leaves: the limiter before it, at the time of the edit.
    expect(replaced).toHaveLength(2);
    expect(replaced[1]).toBe(`?${queryFor(configOf(before), null, false)}`);
    expect(replaced[1]).not.toBe(replaced[0]);
    // Hidden before the edit's entry is pushed: pushed at once.
    const state = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    act(() => {
      document.dispatchEvent(new Event('visibilitychange'));
    });
    expect(pushed).toEqual([`?${queryFor(configOf(store.getState()), null, false)}`]);
    // Another edit, then the page is left before its push: its entry is replaced instead.
    act(() => store.getState().setLimiterKind(0, 'sliding-log'));
    act(() => {
      window.dispatchEvent(new Event('pagehide'));
    });
    state.mockRestore();
    push.mockRestore();
    expect(pushed).toHaveLength(1);
    expect(replaced.at(-1)).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
  });

  it('a seek while paused is written within 300 ms', () => {
    const store = stillStore();
    sync(store);
    act(() => store.getState().seek(1234));
    act(() => {
      vi.advanceTimersByTime(300);
    });
    expect(replaced).toHaveLength(1);
    expect(replaced[0]).toBe(`?${queryFor(configOf(store.getState()), null, false)}`);
  });
});

describe('the saved settings', () => {
  /** A Storage that records what is set (jsdom's own is shared between tests). */
  function memoryStorage(): Storage & { sets: string[] } {
    const items = new Map<string, string>();
    const sets: string[] = [];
    return {
      sets,
      get length() {
        return items.size;
      },
      clear: () => items.clear(),
      getItem: (k: string) => items.get(k) ?? null,
      key: (i: number) => [...items.keys()][i] ?? null,
      removeItem: (k: string) => void items.delete(k),
      setItem: (k: string, v: string) => {
        sets.push(v);
        items.set(k, v);
      },
    };
  }

  it('follow an edit at once, before its history entry is pushed: a browser closed then keeps it', async () => {
    const store = stillStore();
    const storage = memoryStorage();
    function SyncSaving() {
      useUrlSync(startFrom('', null, null, null), storage);
      return null;
    }
    render(
      <PlaygroundProvider store={store}>
        <SyncSaving />
      </PlaygroundProvider>,
    );
    expect(storage.sets).toHaveLength(0);
    // Three changes in one task (the traffic's length, the limiter, the clock): one save.
    await act(async () => {
      store.getState().setLimiterKind(0, 'sliding-log');
      store.getState().setUntil(7000);
      store.getState().seek(0);
      await Promise.resolve();
    });
    expect(storage.sets).toHaveLength(1);
    const saved = JSON.parse(storage.sets[0] ?? 'null') as { config: unknown };
    expect(saved.config).toEqual(JSON.parse(JSON.stringify(configOf(store.getState()))));
    expect(JSON.stringify(saved.config)).toContain('"sliding-log"');
  });
});
