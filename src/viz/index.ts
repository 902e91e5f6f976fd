/**
 * The algorithm views: pure, props-driven React SVG components. Their styles (viz.css) take every
 * colour from the design tokens in src/ui/styles.css, so light and dark themes follow `data-theme`.
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
export { RequestFlow } from './RequestFlow';
export type { RequestFlowProps } from './RequestFlow';
export { RequestMark, describeRequest } from './RequestMark';
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
export * from './format';
export type * from './types';
