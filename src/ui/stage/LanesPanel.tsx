import { ALGORITHM_NAMES } from '../../viz/format';
import { memo, useCallback, useMemo, useRef, useState } from 'react';
import type { SimResult } from '../../sim';
import { laneStateAtTime } from '../../store';
import { usePlayground, usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { LimiterFrame } from '../../viz/LimiterFrame';
import { LAZY_FLOW, LAZY_VIEWS } from './views';
import { systemNameIn } from '../../systems';
import { ALGORITHMS } from '../limiter/algorithms';
import { useDrawTime, useElementWidth, useOnScreen, usePrefersReducedMotion } from './hooks';
import { flowCounts, requestCounter, requestsCompleteFromMs, requestsNear } from './requests';

/** Virtual ms a request takes per leg of the request-flow strip. */
const TRAVEL_MS = 400;

/**
 * The animated limiters at the current time: the active one, or every one in compare mode, all on
 * the same clock. Each lane re-renders every frame while playing and on screen: this is what draws
 * per frame.
 */
export function LanesPanel({ result }: { result: SimResult }) {
  const { mode, activeLane, inspectKey } = usePlaygroundShallow((s) => ({
    mode: s.mode,
    activeLane: s.activeLane,
    inspectKey: s.inspectKey,
  }));
  const key =
    inspectKey !== null && result.keyNames.includes(inspectKey)
      ? inspectKey
      : (result.keyNames[0] as string);
  const lanes =
    mode === 'compare'
      ? result.lanes.map((_, i) => i)
      : [Math.min(activeLane, result.lanes.length - 1)];
  return (
    <section className="lanes" aria-label="Limiters at the current time">
      {lanes.map((lane) => (
        <LaneView
          key={lane}
          result={result}
          lane={lane}
          stateKey={key}
          compact={lanes.length > 1}
        />
      ))}
    </section>
  );
}

/**
 * One lane, memoised on what it draws from: its own lane result (simulate's cache hands an
 * unchanged lane back as the same object), the arrivals and keys. An edit to another limiter does
 * not render it again; it goes on drawing from the result it has, whose lane is the same.
 */
const LaneView = memo(
  LaneViewImpl,
  (a, b) =>
    a.lane === b.lane &&
    a.stateKey === b.stateKey &&
    a.compact === b.compact &&
    a.result.lanes[a.lane] === b.result.lanes[b.lane] &&
    // The same arrivals object: the same traffic, keys and clients (simulate's cache).
    a.result.arrivals === b.result.arrivals,
);

function LaneViewImpl({
  result,
  lane,
  stateKey,
  compact,
}: {
  result: SimResult;
  lane: number;
  /** The key whose state is drawn. */
  stateKey: string;
  compact: boolean;
}) {
  const api = usePlaygroundApi();
  const select = usePlayground((s) => s.select);
  const playing = usePlayground((s) => s.playing);
  // The lane's own system (HAProxy, Traefik …), not only its algorithm's default one.
  const systemName = usePlayground((s) => {
    const entry = s.limiters[lane];
    return entry === undefined ? undefined : systemNameIn(entry, result.scenario.deployment);
  });
  const onSelectRequest = useCallback((row: number) => select({ lane, row }), [select, lane]);
  const reducedMotion = usePrefersReducedMotion();
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const articleRef = useRef<HTMLElement>(null);
  const onScreen = useOnScreen(articleRef);
  const tMs = useDrawTime(api, onScreen);
  const [store, setStore] = useState(0);
  const laneResult = result.lanes[lane];
  const laneState = laneStateAtTime(result, lane, tMs, stateKey);
  // The limiter reasons in wall-clock time (which differs from virtual time after a clock jump):
  // requests are drawn on the same clock as its state.
  const offsetMs = laneState === undefined ? 0 : laneState.wallMs - Math.floor(tMs);
  const wholeLane = laneState === undefined || laneState.stores.length === 1;
  // Exact counts for the views where their rows were cut (one function per lane and clock offset).
  const countRequests = useMemo(
    () => requestCounter(result, lane, offsetMs, wholeLane),
    [result, lane, offsetMs, wholeLane],
  );
  // The lane's name, the same every frame: made once, so a playing lane does not render it again.
  const name = laneResult?.name ?? '';
  const system =
    systemName ?? (laneResult === undefined ? '' : ALGORITHMS[laneResult.config.kind].system);
  // The lane is called by its system (config's laneNames); the muted part says which product
  // module and which algorithm, as the names no longer do.
  const algorithm = laneResult === undefined ? '' : ALGORITHM_NAMES[laneResult.config.kind];
  const title = useMemo(
    () => (
      <h3>
        {name}{' '}
        <span className="muted">
          · {system} · {algorithm}
        </span>
      </h3>
    ),
    [name, system, algorithm],
  );
  if (laneResult === undefined || laneState === undefined) return null;
  const stores = laneState.stores;
  const shown = stores[Math.min(store, stores.length - 1)];
  if (shown === undefined) return null;
  const info = { system: systemName ?? ALGORITHMS[laneResult.config.kind].system };
  // The strip draws at most MAX_INCOMING requests on their way in: the rows go to the past, and
  // the strip's counts come from the whole lane (flowCounts), at the time the strip draws
  // (laneState.wallMs − offsetMs).
  const near = requestsNear(result, lane, tMs, TRAVEL_MS);
  // One store on virtual time (the usual case): the rows as they are, not two copies per frame.
  const requests =
    stores.length === 1 && offsetMs === 0
      ? near
      : near
          .filter((r) => stores.length === 1 || (laneResult.columns.instance[r.id] ?? 0) === store)
          .map((r) =>
            offsetMs === 0
              ? r
              : { ...r, arrivalMs: r.arrivalMs + offsetMs, releaseMs: r.releaseMs + offsetMs },
          );
  return (
    <article
      ref={articleRef}
      className={`lane${compact ? ' is-compact' : ''}${playing ? ' is-playing' : ''}`}
      aria-label={`${name}: ${info.system}`}
      // Whether the lane is seen and so follows a playing clock every frame (useOnScreen): set in
      // the render that starts or stops it, what a browser test waits for after a scroll.
      data-on-screen={onScreen}
    >
      <header className="lane-header">
        {title}
        {stores.length > 1 && (
          <label className="lane-instance">
            instance{' '}
            <select value={store} onChange={(e) => setStore(Number(e.target.value))}>
              {stores.map((s, i) => (
                <option key={i} value={i}>
                  {s.instance === null ? 'shared' : `#${i + 1}`}
                </option>
              ))}
            </select>
          </label>
        )}
        {laneState.wallMs !== Math.floor(tMs) && (
          <span
            className="lane-wall"
            title="The wall clock the limiter sees differs from virtual time"
          >
            wall clock {laneState.wallMs} ms
          </span>
        )}
      </header>
      <div ref={ref} className="lane-view">
        {width > 0 && (
          <LimiterFrame
            views={LAZY_VIEWS}
            flow={LAZY_FLOW}
            loading={<p className="muted lazy-loading">Loading the view…</p>}
            config={laneResult.config}
            inspection={shown.inspection}
            stateSize={shown.stateSize}
            nowMs={laneState.wallMs}
            requests={requests}
            reducedMotion={reducedMotion}
            animating={playing}
            width={Math.min(width, 900)}
            travelMs={TRAVEL_MS}
            requestsFromMs={requestsCompleteFromMs(result, lane, tMs, TRAVEL_MS) + offsetMs}
            {...(countRequests === undefined ? {} : { countRequests })}
            flowCounts={flowCounts(
              result,
              lane,
              Math.floor(tMs),
              TRAVEL_MS,
              undefined,
              stores.length === 1 ? undefined : store,
            )}
            onSelectRequest={onSelectRequest}
          />
        )}
      </div>
    </article>
  );
}
