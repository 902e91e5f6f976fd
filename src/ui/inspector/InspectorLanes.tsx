import { attemptsOf, requestAt } from '../../sim';
import { seekerFor } from '../../store';
import type { SimResult } from '../../sim';
import { usePlaygroundShallow } from '../../store/react';
import { rowResponse } from './rowResponse';
import { systemOf } from '../../systems';
import { emptyKeyRow } from './emptyKeyRow';
import { OutcomeBadge } from './OutcomeBadge';
import { plural } from '../../core';

/**
 * The selected request in every lane, side by side (compare mode): each limiter's decision on the
 * same attempt of the same request, its status line and headers. A lane where that attempt never
 * happened (the request passed earlier there) says so.
 */
export function InspectorLanes({
  result,
  origin,
  attempt,
  selectedLane,
  onSelect,
}: {
  result: SimResult;
  /** The request (first attempt's index in arrival order). */
  origin: number;
  /** 1 for the first attempt, … */
  attempt: number;
  selectedLane: number;
  onSelect: (lane: number, row: number) => void;
}) {
  const { limiters } = usePlaygroundShallow((s) => ({ limiters: s.limiters }));
  return (
    <div className="inspector-lanes" data-testid="inspector-lanes">
      <h3>This request in every limiter</h3>
      <ul className="inspector-lanes-list">
        {result.lanes.map((lane, i) => {
          const rows = attemptsOf(result, i, origin);
          const row = rows[attempt - 1];
          const name = lane.name;
          if (row === undefined) {
            return (
              <li key={i} className="inspector-lane" data-lane={i}>
                <p className="inspector-lane-name">{name}</p>
                <p className="muted">
                  No attempt {attempt} here: it ended after {plural(rows.length, 'attempt')}.
                </p>
              </li>
            );
          }
          const { decision, key } = requestAt(result, i, row);
          // What this lane's system sends (nginx: 503 and no rate-limit headers; Envoy: 429 with
          // x-envoy-ratelimited …), with headers the person added marked as in the inspector,
          // from the state the request met and at the time the limiter decided it.
          const { stores, store, wallMs } = seekerFor(result).storesBefore(i, row);
          const before = stores[store]?.inspect(wallMs, key);
          const entry = limiters[i] ?? { config: lane.config };
          const sent = rowResponse(result, i, row, entry, { decision, key, wallMs, before });
          // A trace request with an empty key that this lane's system does not limit (or denies).
          const empty = emptyKeyRow(result, lane, row, systemOf(entry), sent);
          const response = empty?.response ?? sent;
          return (
            <li
              key={i}
              className={`inspector-lane${i === selectedLane ? ' is-selected' : ''}`}
              data-lane={i}
            >
              <p className="inspector-lane-name">
                {i === selectedLane ? (
                  <strong>{name}</strong>
                ) : (
                  <button type="button" className="link" onClick={() => onSelect(i, row)}>
                    {name}
                  </button>
                )}{' '}
                <OutcomeBadge outcome={decision.outcome} />
                {empty !== null && <span className="muted"> {empty.label}</span>}
                {decision.delayMs > 0 && <span className="muted"> {decision.delayMs} ms</span>}
              </p>
              <pre className="mono">
                <span className={response.status === 200 ? 'status-ok' : 'status-limited'}>
                  {response.statusLine}
                </span>
                {response.fields
                  .map((f) => `\n${f.name}: ${f.value}${f.added === true ? '  ← added' : ''}`)
                  .join('')}
              </pre>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
