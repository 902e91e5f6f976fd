import { FixedWindowView } from './FixedWindowView';
import { GcraView } from './GcraView';
import { LeakyBucketView } from './LeakyBucketView';
import { RequestFlow } from './RequestFlow';
import { SlidingLogView } from './SlidingLogView';
import { SlidingWindowCounterView } from './SlidingWindowCounterView';
import { TokenBucketView } from './TokenBucketView';
import type { StateSize } from '../core';
import type { CommonViewProps, LimiterViewProps } from './types';

/** The view for `config.kind`, or null when the inspection is of another kind. */
function AlgorithmView(props: LimiterViewProps) {
  const { config, inspection, stateSize } = props;
  // Only the props the views know: showFlow belongs to this wrapper.
  const shared: CommonViewProps & { stateSize?: StateSize } = {
    nowMs: props.nowMs,
    requests: props.requests,
    reducedMotion: props.reducedMotion,
    ...(props.width === undefined ? {} : { width: props.width }),
    ...(props.travelMs === undefined ? {} : { travelMs: props.travelMs }),
    ...(props.requestsFromMs === undefined ? {} : { requestsFromMs: props.requestsFromMs }),
    ...(props.onSelectRequest === undefined ? {} : { onSelectRequest: props.onSelectRequest }),
    ...(stateSize === undefined ? {} : { stateSize }),
  };
  switch (config.kind) {
    case 'token-bucket':
      return inspection.kind === config.kind ? (
        <TokenBucketView config={config} inspection={inspection} {...shared} />
      ) : null;
    case 'leaky-bucket':
      return inspection.kind === config.kind ? (
        <LeakyBucketView config={config} inspection={inspection} {...shared} />
      ) : null;
    case 'fixed-window':
      return inspection.kind === config.kind ? (
        <FixedWindowView config={config} inspection={inspection} {...shared} />
      ) : null;
    case 'sliding-log':
      return inspection.kind === config.kind ? (
        <SlidingLogView config={config} inspection={inspection} {...shared} />
      ) : null;
    case 'sliding-window-counter':
      return inspection.kind === config.kind ? (
        <SlidingWindowCounterView config={config} inspection={inspection} {...shared} />
      ) : null;
    case 'gcra':
      return inspection.kind === config.kind ? (
        <GcraView config={config} inspection={inspection} {...shared} />
      ) : null;
  }
}

/**
 * The animated view of one limiter: the drawing for its kind, then the request-flow strip. Pure:
 * everything comes in through props (the store feeds it), so the same props draw the same SVG.
 */
export function LimiterView(props: LimiterViewProps) {
  const { showFlow = true, config, inspection } = props;
  const view = AlgorithmView(props);
  return (
    <div className={`rl-limiter-view rl-limiter-view--${config.kind}`} data-testid="limiter-view">
      {view ?? (
        <p className="rl-viz-mismatch" role="alert">
          Cannot draw a {inspection.kind} inspection with a {config.kind} config.
        </p>
      )}
      {showFlow && (
        <RequestFlow
          nowMs={props.nowMs}
          requests={props.requests}
          reducedMotion={props.reducedMotion}
          {...(props.width === undefined ? {} : { width: props.width })}
          {...(props.travelMs === undefined ? {} : { travelMs: props.travelMs })}
          {...(props.onSelectRequest === undefined
            ? {}
            : { onSelectRequest: props.onSelectRequest })}
        />
      )}
    </div>
  );
}
