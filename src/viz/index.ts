/**
 * The algorithm views, the timeline scrubber, the charts and the compare summary: pure, props-driven
 * React components. Their styles (viz.css) take every colour from the design tokens in
 * src/ui/app/styles.css, so light and dark themes follow `data-theme`.
 */
import './viz.css';

export { LimiterView } from './LimiterView';
export { TokenBucketView, describeTokenBucket } from './TokenBucketView';
export { LeakyBucketView, describeLeakyBucket } from './LeakyBucketView';
export { FixedWindowView, describeFixedWindow } from './FixedWindowView';
export { SlidingLogView, describeSlidingLog } from './SlidingLogView';
export {
  SlidingWindowCounterView,
  describeSlidingWindowCounter,
  swcFormula,
} from './SlidingWindowCounterView';
export type { SwcFormula } from './SlidingWindowCounterView';
export { GcraView, describeGcra, gcraAdmits } from './GcraView';
export { AnchoredWindowView, describeAnchoredWindow } from './AnchoredWindowView';
export { CalendarWindowsView, describeCalendarWindows } from './CalendarWindowsView';
export { RequestFlow } from './RequestFlow';
export type { RequestFlowProps } from './RequestFlow';
export { RequestMark, describeRequest, requestName } from './RequestMark';
export type { RequestMarkProps } from './RequestMark';
export { OutcomeMark } from './OutcomeMark';
export type { OutcomeMarkProps } from './OutcomeMark';
export { TimeAxis } from './TimeAxis';
export type { TimeAxisProps } from './TimeAxis';
export { VizSvg } from './VizSvg';
export type { VizSvgProps } from './VizSvg';
export {
  flowPhase,
  laneOf,
  matchReleases,
  requestsOfKey,
  responseLabel,
  retryAfterSeconds,
  stackColumns,
} from './requests';
export type { FlowPhase, QueuedRelease } from './requests';
export {
  Timeline,
  TIMELINE_STEP_MS,
  TIMELINE_SHIFT_STEP_MS,
  TIMELINE_PAGE_STEP_MS,
} from './Timeline';
export type { MarkColor, TimelineProps, LaneRow } from './Timeline';
// The charts have their own entry, src/viz/charts (loaded as a chunk of their own by the page).
export { CompareTable, describeDivergence, requestNumber } from './CompareTable';
export type { CompareTableProps } from './CompareTable';
export {
  columnOf,
  firstAttemptOutcome,
  firstAttemptRow,
  lastRowAtOrBefore,
  nearestRow,
  outcomeColumns,
} from './laneSeries';
export {
  backendTimes,
  canDelay,
  delaysOf,
  nominalLimit,
  passedTimes,
  rollingMax,
} from './charts/series';
export type { OutcomeColumns } from './laneSeries';
export { formatInstant, formatSeconds, timeTicks } from './timeTicks';
export type { TimeTicks } from './timeTicks';
export * from './format';
export type * from './types';
