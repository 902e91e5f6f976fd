import { AnchoredWindowView } from './AnchoredWindowView';
import { CalendarWindowsView } from './CalendarWindowsView';
import { FixedWindowView } from './FixedWindowView';
import { GcraView } from './GcraView';
import { LeakyBucketView } from './LeakyBucketView';
import { LimiterFrame } from './LimiterFrame';
import type { AlgorithmViews } from './LimiterFrame';
import { RequestFlow } from './RequestFlow';
import { SlidingLogView } from './SlidingLogView';
import { SlidingWindowCounterView } from './SlidingWindowCounterView';
import { TokenBucketView } from './TokenBucketView';
import type { LimiterViewProps } from './types';

const VIEWS: AlgorithmViews = {
  'token-bucket': TokenBucketView,
  'leaky-bucket': LeakyBucketView,
  'fixed-window': FixedWindowView,
  'sliding-log': SlidingLogView,
  'sliding-window-counter': SlidingWindowCounterView,
  gcra: GcraView,
  'anchored-window': AnchoredWindowView,
  'calendar-windows': CalendarWindowsView,
};

/**
 * The animated view of one limiter: the drawing for its kind, then the request-flow strip. Pure:
 * everything comes in through props (the store feeds it), so the same props draw the same SVG.
 * Every view is bundled with it; the page itself draws through `LimiterFrame` with views fetched
 * per kind (src/ui/stage/views.ts).
 */
export function LimiterView(props: LimiterViewProps) {
  return <LimiterFrame views={VIEWS} flow={RequestFlow} {...props} />;
}
