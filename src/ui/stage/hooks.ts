import {
  startTransition,
  useCallback,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import type { PlaygroundStoreApi } from '../../store';
import { afterNextFrame } from '../../store/afterNextFrame';

const REDUCED = '(prefers-reduced-motion: reduce)';

// One query for the page: its snapshot is read on every render of every lane, every frame, and
// window.matchMedia parses the query each time it is called.
let reducedQuery: MediaQueryList | undefined;
function reduced(): MediaQueryList {
  reducedQuery ??= window.matchMedia(REDUCED);
  return reducedQuery;
}

function subscribeReduced(onChange: () => void): () => void {
  const query = reduced();
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** True when the person asked the system for less motion. */
export function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    subscribeReduced,
    () => reduced().matches,
    () => false,
  );
}

// Whether an element is in the part of the viewport below the sticky clock bar.
export { useOnScreen } from './onScreen';

/**
 * The virtual time for a drawing that re-renders every frame while the clock plays, read from the
 * store. Off screen (`onScreen` false) and playing, the clock's ticks do not re-render it: nobody
 * sees those frames, and six lanes below the fold cost more than the one in view. It catches up
 * when it comes on screen and whenever the clock stops, so a paused page draws the exact time.
 */
export function useDrawTime(api: PlaygroundStoreApi, onScreen: boolean): number {
  const subscribe = useCallback(
    (onChange: () => void) =>
      api.subscribe((s, prev) => {
        if (onScreen || !s.playing || !prev.playing) onChange();
      }),
    [api, onScreen],
  );
  return useSyncExternalStore(subscribe, () => api.getState().tMs);
}

/** The content width of an element, kept up to date (0 until measured). */
export function useElementWidth<T extends HTMLElement>(): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const node = ref.current;
    if (node === null) return;
    const observer = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width ?? 0;
      setWidth(Math.round(w));
    });
    observer.observe(node);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/**
 * How long a new value waits, off screen, before it is handed over anyway: edits that follow each
 * other faster than this (typing a number) build the hidden drawing once, after the last of them.
 */
export const OFF_SCREEN_SETTLE_MS = 500;

/**
 * `value`, one frame late: a new value is handed over in a task after the next frame has been
 * painted, and rendered as a transition (interruptible). The first render has it at once, so a
 * page opened paused draws its exact result. For drawings that are costly to build and need not
 * be in the frame that shows an edit (the charts, below the lanes: an edit while
 * playing drew its frame after their ~4 ms render, which `useDeferredValue` ran before the frame).
 *
 * With `offScreen` true (the drawing is scrolled out of view), a new value is handed over only once
 * values have stopped coming for OFF_SCREEN_SETTLE_MS, or at once (after the next frame) when the
 * drawing comes on screen: nobody sees it meanwhile, and on the bench's 1,000,000-arrival page the
 * charts below the fold rebuilt their O(rows) series after every edit, on the main thread, while
 * the worker computed the next one. A page left alone still draws its exact result.
 */
export function useValueAfterFrame<T>(value: T, offScreen = false): T {
  const [shown, setShown] = useState(value);
  useEffect(() => {
    if (Object.is(shown, value)) return;
    const handOver = () => startTransition(() => setShown(() => value));
    if (!offScreen) return afterNextFrame(handOver);
    const timer = setTimeout(handOver, OFF_SCREEN_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [value, shown, offScreen]);
  return shown;
}
