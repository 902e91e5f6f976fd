import { Suspense } from 'react';
import type { ComponentType, ReactNode } from 'react';
import type { RequestFlowProps } from './RequestFlow';
import { AnimatingContext } from './animating';
import type { AlgorithmKind, StateSize } from '../core';
import type { AlgorithmViewProps, CommonViewProps, LimiterViewProps } from './types';

/**
 * The drawing for each algorithm kind. `LimiterView` passes the views themselves; the page passes
 * views that are chunks of their own (only the kinds in use are fetched before the first
 * paint), so the frame takes them as a parameter rather than importing them.
 */
export type AlgorithmViews = { [K in DrawnKind]: ComponentType<AlgorithmViewProps<K>> };

/** The kinds that have a drawing of their own (every kind; a mismatched inspection shows a notice). */
export type DrawnKind = Extract<
  AlgorithmKind,
  | 'token-bucket'
  | 'leaky-bucket'
  | 'fixed-window'
  | 'sliding-log'
  | 'sliding-window-counter'
  | 'gcra'
  | 'anchored-window'
  | 'calendar-windows'
>;

/** Props of `<LimiterFrame>`: `<LimiterView>`'s, and the views to draw with. */
export interface LimiterFrameProps extends LimiterViewProps {
  views: AlgorithmViews;
  /**
   * The request-flow strip (`RequestFlow`). The page passes it as a chunk of its own, fetched
   * with the views before the first paint (initial JavaScript).
   */
  flow: ComponentType<RequestFlowProps>;
  /** Shown while a view that is a chunk of its own arrives. Default: nothing. */
  loading?: ReactNode;
}

/** The view for `config.kind`, or null when the inspection is of another kind. */
function AlgorithmView(props: LimiterFrameProps) {
  const { config, inspection, stateSize, views } = props;
  // Only the props the views know: showFlow belongs to this wrapper.
  const shared: CommonViewProps & { stateSize?: StateSize } = {
    nowMs: props.nowMs,
    requests: props.requests,
    reducedMotion: props.reducedMotion,
    ...(props.width === undefined ? {} : { width: props.width }),
    ...(props.travelMs === undefined ? {} : { travelMs: props.travelMs }),
    ...(props.requestsFromMs === undefined ? {} : { requestsFromMs: props.requestsFromMs }),
    ...(props.countRequests === undefined ? {} : { countRequests: props.countRequests }),
    ...(props.onSelectRequest === undefined ? {} : { onSelectRequest: props.onSelectRequest }),
    ...(stateSize === undefined ? {} : { stateSize }),
  };
  // Every kind has a view (`AlgorithmViews`), and this check pairs the inspection with the
  // config: one lookup instead of a case per kind (initial JavaScript).
  if (inspection.kind !== config.kind) return null;
  const View = views[config.kind] as ComponentType<AlgorithmViewProps<DrawnKind>>;
  return <View config={config} inspection={inspection} {...shared} />;
}

/**
 * The animated view of one limiter: the drawing for its kind (from `views`), then the request-flow
 * strip. Pure: everything comes in through props, so the same props draw the same SVG.
 */
export function LimiterFrame(props: LimiterFrameProps) {
  const { showFlow = true, config, inspection, loading = null, flow: Flow } = props;
  const view = AlgorithmView(props);
  return (
    <div className={`rl-limiter-view rl-limiter-view--${config.kind}`} data-testid="limiter-view">
      {view === null ? (
        <p className="rl-viz-mismatch" role="alert">
          Cannot draw a {inspection.kind} inspection with a {config.kind} config.
        </p>
      ) : (
        <AnimatingContext value={props.animating === true}>
          <Suspense fallback={loading}>{view}</Suspense>
        </AnimatingContext>
      )}
      {showFlow && (
        <Suspense fallback={loading}>
          <Flow
            nowMs={props.nowMs}
            requests={props.requests}
            reducedMotion={props.reducedMotion}
            animating={props.animating === true}
            {...(props.width === undefined ? {} : { width: props.width })}
            {...(props.travelMs === undefined ? {} : { travelMs: props.travelMs })}
            {...(props.flowCounts === undefined ? {} : { counts: props.flowCounts })}
            {...(props.onSelectRequest === undefined
              ? {}
              : { onSelectRequest: props.onSelectRequest })}
          />
        </Suspense>
      )}
    </div>
  );
}
