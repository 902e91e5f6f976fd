/**
 * The algorithm views as chunks of their own (initial JavaScript ≤ 160 kB gzip). A page
 * draws one to six limiters, often of one kind: `main.tsx` fetches the views of the kinds the start
 * uses before the first render (so the first paint is whole and exact), and the rest are fetched
 * when the page is idle, so switching a limiter's kind rarely waits.
 */
import type { AlgorithmKind } from '../../core';
import type { AlgorithmViews, DrawnKind } from '../../viz/LimiterFrame';
import type { RequestFlowProps } from '../../viz/RequestFlow';
import { lazyPart } from '../common/lazyPart';

export const LAZY_VIEWS = {
  'token-bucket': lazyPart(
    () => import('../../viz/TokenBucketView').then((m) => m.TokenBucketView),
    'token bucket view',
  ),
  'leaky-bucket': lazyPart(
    () => import('../../viz/LeakyBucketView').then((m) => m.LeakyBucketView),
    'leaky bucket view',
  ),
  'fixed-window': lazyPart(
    () => import('../../viz/FixedWindowView').then((m) => m.FixedWindowView),
    'fixed window view',
  ),
  'sliding-log': lazyPart(
    () => import('../../viz/SlidingLogView').then((m) => m.SlidingLogView),
    'sliding log view',
  ),
  'sliding-window-counter': lazyPart(
    () => import('../../viz/SlidingWindowCounterView').then((m) => m.SlidingWindowCounterView),
    'sliding window counter view',
  ),
  gcra: lazyPart(() => import('../../viz/GcraView').then((m) => m.GcraView), 'GCRA view'),
  'anchored-window': lazyPart(
    () => import('../../viz/AnchoredWindowView').then((m) => m.AnchoredWindowView),
    'anchored window view',
  ),
  'calendar-windows': lazyPart(
    () => import('../../viz/CalendarWindowsView').then((m) => m.CalendarWindowsView),
    'calendar windows view',
  ),
} satisfies AlgorithmViews;

/** The request-flow strip under every view: a chunk of its own too, fetched with the views. */
export const LAZY_FLOW = lazyPart<RequestFlowProps>(
  () => import('../../viz/RequestFlow').then((m) => m.RequestFlow),
  'request flow',
);

function drawn(kind: AlgorithmKind): kind is DrawnKind {
  return Object.hasOwn(LAZY_VIEWS, kind);
}

/**
 * Fetches the views of `kinds` (every view by default; kinds without a view are skipped) and the
 * request-flow strip; resolves when they have all arrived.
 */
export function preloadViews(
  kinds: Iterable<AlgorithmKind> = Object.keys(LAZY_VIEWS) as DrawnKind[],
): Promise<void> {
  const wanted = [...new Set(kinds)].filter(drawn);
  return Promise.all([LAZY_FLOW.preload(), ...wanted.map((k) => LAZY_VIEWS[k].preload())]).then(
    () => undefined,
  );
}
