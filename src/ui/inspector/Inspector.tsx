import { useEffect, useMemo, useRef } from 'react';
import { explainDecision } from '../../core/explain';
import { WHY_DOWN_CLOSED, WHY_TEXT, attemptsOf, outageAt, requestAt } from '../../sim';
import type { LaneResult, SimResult } from '../../sim';
import { safeText } from '../../core';
import { seekerFor } from '../../store';
import { usePlaygroundShallow } from '../../store/react';
import { HttpResponseView } from './HttpResponseView';
import { InspectorHint } from './InspectorHint';
import { InspectorLanes } from './InspectorLanes';
import { explainFleetRow } from './fleetExplain';
import { OutcomeBadge } from './OutcomeBadge';
import { systemNameIn, systemOf } from '../../systems';
import { addressKeyNote, emptyKeyRow } from './emptyKeyRow';
import { traefikStoreDownResponse } from '../../systems/respond';
import { rowResponse } from './rowResponse';
import type { SystemResponse } from '../../systems';
import { formatCount, formatTime } from '../common/format';
import { replicaColor, replicaLabel } from '../../viz/replicaColors';

/** Longest key shown, in code points: a log's keys are untrusted text, escaped and cut. */
const KEY_SHOWN = 120;

/** What the store was when a fleet request met it. */
function storeText(result: SimResult, storeMs: number, atMs: number): string {
  const dep = result.scenario.deployment;
  if (dep.state !== 'shared-atomic' && dep.state !== 'layered') return 'none (local limits only)';
  const o = outageAt(dep, atMs);
  if (o !== null) return `down (outage ${formatTime(o.fromMs)} to ${formatTime(o.toMs)})`;
  const timeout = dep.fleet?.store?.timeoutMs;
  if (storeMs < 0) return 'up, not asked';
  if (timeout !== undefined && storeMs > timeout)
    return `up, but the call took ${storeMs} ms > timeout ${timeout} ms (counted as down)`;
  return `up, round trip ${storeMs} ms`;
}

/**
 * A request a fleet rejected because the store was down gets the status the named system sends
 * (Envoy's ratelimit filter: status_on_error, 500 unless set; the istio setup of #12115: 429).
 * Traefik sends its own error, whatever status is chosen: a 500 without its 429's headers.
 */
function fleetResponse(
  result: SimResult,
  lane: LaneResult,
  row: number,
  response: SystemResponse,
  traefik: boolean,
): SystemResponse {
  if (lane.fleet?.why[row] !== WHY_DOWN_CLOSED) return response;
  if (traefik) return traefikStoreDownResponse();
  const status = result.scenario.deployment.fleet?.store?.downStatus ?? 500;
  const statusText = status === 500 ? 'Internal Server Error' : 'Too Many Requests';
  return { ...response, status, statusText, statusLine: `HTTP/1.1 ${status} ${statusText}` };
}

/** One request in depth: the state it met, the rule that decided it, and what the client got. */
export function Inspector({ result }: { result: SimResult }) {
  const { selected, select, seek, compare, setActiveLane, limiters } = usePlaygroundShallow(
    (s) => ({
      limiters: s.limiters,
      selected: s.selected,
      select: s.select,
      seek: s.seek,
      compare: s.mode === 'compare' && s.limiters.length > 1,
      setActiveLane: s.setActiveLane,
    }),
  );
  const ref = useRef<HTMLElement>(null);
  // A new selection (timeline, view, table or keyboard) brings the inspector into view without
  // losing the timeline: the inspector sits right below it, so the page scrolls to put the timeline
  // at the top (under the sticky clock) when the inspector's start is not already on screen.
  useEffect(() => {
    const el = ref.current;
    if (selected === null || el === null) return;
    const box = el.getBoundingClientRect();
    if (box.top >= 0 && box.top < window.innerHeight - 160) return;
    const timeline = el.parentElement?.querySelector<HTMLElement>('.timeline-panel');
    const target = timeline ?? el;
    if (typeof target.scrollIntoView !== 'function') return;
    const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
    target.scrollIntoView({ block: 'start', behavior: reduced ? 'auto' : 'smooth' });
  }, [selected]);
  const details = useMemo(() => {
    if (selected === null) return null;
    const lane = result.lanes[selected.lane];
    if (lane === undefined || selected.row < 0 || selected.row >= lane.columns.rows) return null;
    const info = requestAt(result, selected.lane, selected.row);
    const { stores, store, wallMs } = seekerFor(result).storesBefore(selected.lane, selected.row);
    const before = (stores[store] as NonNullable<(typeof stores)[number]>).inspect(
      wallMs,
      info.key,
    );
    const entry = limiters[selected.lane] ?? { config: lane.config };
    const response = fleetResponse(
      result,
      lane,
      selected.row,
      rowResponse(result, selected.lane, selected.row, entry, {
        decision: info.decision,
        key: info.key,
        wallMs,
        before,
      }),
      systemOf(entry).id === 'traefik',
    );
    // A trace request with an empty key that this lane's system does not limit (or denies).
    const empty = emptyKeyRow(result, lane, selected.row, systemOf(entry), response);
    // Or one whose system counted it under its client address instead (Kong).
    const keyNote = addressKeyNote(result, lane, selected.row, systemOf(entry));
    return {
      lane,
      info,
      wallMs,
      // A fleet row says what really decided it (the store's failure policy, a replica's fallback,
      // the over-limit cache …), with that moment's numbers.
      explanation:
        empty?.explanation ??
        explainFleetRow(result, lane, selected.row, info, explainDecision(before, info.decision)),
      response: empty?.response ?? response,
      emptyLabel: empty?.label ?? null,
      keyNote,
      systemName: systemNameIn(entry, result.scenario.deployment),
      attempts: attemptsOf(result, selected.lane, info.origin),
    };
  }, [result, selected, limiters]);

  if (selected === null || details === null) return <InspectorHint ref={ref} />;
  const { info, lane, explanation, response, attempts, wallMs, systemName, emptyLabel, keyNote } =
    details;
  const rows = lane.columns.rows;
  return (
    <section
      ref={ref}
      className="panel inspector"
      aria-labelledby="inspector-heading"
      data-testid="inspector"
    >
      <header className="inspector-header">
        <h2 id="inspector-heading">
          {/* Numbered as the comparison and the decision log number requests: by first attempt. */}
          Request #{formatCount(info.origin + 1)}
          {info.attempt > 1 ? `, attempt ${info.attempt}` : ''}{' '}
          <span className="muted">· {lane.name}</span>
        </h2>
        <div className="inspector-nav">
          <button
            type="button"
            disabled={info.row === 0}
            onClick={() => select({ lane: info.lane, row: info.row - 1 })}
          >
            ← Previous
          </button>
          <button
            type="button"
            disabled={info.row + 1 >= rows}
            onClick={() => select({ lane: info.lane, row: info.row + 1 })}
          >
            Next →
          </button>
          <button type="button" onClick={() => seek(info.arrivalMs)}>
            Go to {formatTime(info.arrivalMs)}
          </button>
          <button type="button" onClick={() => select(null)} aria-label="Close the inspector">
            ✕
          </button>
        </div>
      </header>
      <dl className="inspector-facts">
        <dt>outcome</dt>
        <dd>
          <OutcomeBadge outcome={info.decision.outcome} />
          {emptyLabel !== null && (
            <span className="muted" data-testid="inspector-empty-key">
              {' '}
              {emptyLabel}
            </span>
          )}
        </dd>
        <dt>arrived</dt>
        <dd className="mono">
          {formatTime(info.arrivalMs)}
          {wallMs !== info.arrivalMs && (
            <span className="muted"> (wall clock {formatTime(wallMs)})</span>
          )}
        </dd>
        <dt>key</dt>
        <dd className="mono">
          {safeText(info.key, KEY_SHOWN)}
          {keyNote !== null && (
            <span className="muted" data-testid="inspector-key-note">
              {' '}
              ({keyNote})
            </span>
          )}
        </dd>
        <dt>client</dt>
        <dd className="mono">client {info.client + 1}</dd>
        {result.instances > 1 && lane.fleet === undefined && (
          <>
            <dt>instance</dt>
            <dd className="mono">#{info.instance + 1}</dd>
          </>
        )}
        {lane.fleet !== undefined && (
          <>
            <dt>replica</dt>
            <dd className="mono" data-testid="inspector-replica">
              <span className="swatch" style={{ background: replicaColor(info.instance) }} />{' '}
              {replicaLabel(info.instance)}
            </dd>
            <dt>decided by</dt>
            <dd data-testid="inspector-why">{WHY_TEXT[lane.fleet.why[selected.row] ?? 0]}</dd>
            <dt>store</dt>
            <dd className="mono" data-testid="inspector-store">
              {storeText(result, lane.fleet.storeMs[selected.row] ?? -1, info.arrivalMs)}
            </dd>
          </>
        )}
        <dt>attempt</dt>
        <dd className="mono">
          {info.attempt}
          {attempts.length > 1 && ` of ${attempts.length}`}
          {info.isRetry && ' (a retry)'}
        </dd>
      </dl>
      <div className="inspector-rule">
        <p className="rule mono" data-testid="rule">
          {explanation.rule}
        </p>
        <ul>
          {explanation.steps.map((step, i) => (
            <li key={i} className="mono">
              {step}
            </li>
          ))}
        </ul>
      </div>
      <HttpResponseView
        response={response}
        delayMs={info.decision.delayMs}
        systemName={systemName}
      />
      {compare && (
        <InspectorLanes
          result={result}
          origin={info.origin}
          attempt={info.attempt}
          selectedLane={info.lane}
          onSelect={(l, row) => {
            setActiveLane(l);
            select({ lane: l, row });
          }}
        />
      )}
    </section>
  );
}
