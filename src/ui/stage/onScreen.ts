import { useEffect, useState, useSyncExternalStore } from 'react';
import type { RefObject } from 'react';

/** The CSS variable on <html> that `ClockBar` keeps at the sticky bar's height. */
const BAR_HEIGHT = '--clock-bar-height';

function readBarHeightPx(): number {
  return parseFloat(document.documentElement.style.getPropertyValue(BAR_HEIGHT)) || 0;
}

/**
 * The height last read, while the observer below watches for changes (null before): every render
 * of every drawing that follows the viewport asks for it (useSyncExternalStore's snapshot), and
 * parsing <html>'s inline style each time showed in an edit's input task.
 */
let barHeightPx: number | null = null;

/** The sticky clock bar's height, px, as `ClockBar` publishes it (0 before it has measured). */
export function clockBarHeightPx(): number {
  return barHeightPx ?? readBarHeightPx();
}

// One MutationObserver on <html>'s style for every hook (the page's lifetime): the bar's height
// changes when it wraps onto more rows (a phone, a narrower window), which is rare.
const listeners = new Set<() => void>();
let styleObserver: MutationObserver | undefined;

function subscribeBarHeight(onChange: () => void): () => void {
  listeners.add(onChange);
  styleObserver ??= new MutationObserver(() => {
    barHeightPx = readBarHeightPx();
    listeners.forEach((listener) => listener());
  });
  styleObserver.observe(document.documentElement, { attributeFilter: ['style'] });
  barHeightPx = readBarHeightPx();
  return () => listeners.delete(onChange);
}

/**
 * Whether `ref`'s element is in the part of the viewport a person sees, or within `marginPx` of
 * it (true until measured, and where there is no IntersectionObserver). The part seen starts
 * below the sticky clock bar: a drawing whose only pixels in the viewport are under the bar does
 * not count (scrolled to lanes 3–4, the last pixels of lane 2 sat under the bar and
 * went on drawing every frame). The observer's top margin is the bar's height (taken from
 * `--clock-bar-height`, re-observed when it changes), less `marginPx`. Where the bar has scrolled
 * away with the end of the stage, a sliver that tall at the top of the viewport is still left
 * out; nothing that draws per frame sits there.
 *
 * The default margin is 0: only what intersects the seen viewport draws every frame while playing
 * (a lane is ~430 px tall, so a 400 px margin kept the lanes just above and below the fold
 * animating too). A drawing scrolled in catches up at once: the observer reports it in the frame
 * it appears, and `useDrawTime` re-renders it at the current time.
 */
export function useOnScreen(ref: RefObject<Element | null>, marginPx = 0): boolean {
  const [onScreen, setOnScreen] = useState(true);
  const barPx = useSyncExternalStore(subscribeBarHeight, clockBarHeightPx, () => 0);
  useEffect(() => {
    const node = ref.current;
    if (node === null || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const entry = entries.at(-1);
        if (entry !== undefined) setOnScreen(entry.isIntersecting);
      },
      { rootMargin: `${marginPx - barPx}px 0px ${marginPx}px 0px` },
    );
    observer.observe(node);
    return () => observer.disconnect();
  }, [ref, marginPx, barPx]);
  return onScreen;
}
