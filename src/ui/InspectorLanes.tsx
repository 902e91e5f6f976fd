import { attemptsOf, decisionAt, responseAt } from '../sim';
import type { SimResult } from '../sim';
import { OutcomeBadge } from './OutcomeBadge';
import { displayName } from './algorithms';

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
  return (
    <div className="inspector-lanes" data-testid="inspector-lanes">
      <h3>This request in every limiter</h3>
      <ul className="inspector-lanes-list">
        {result.lanes.map((lane, i) => {
          const rows = attemptsOf(result, i, origin);
          const row = rows[attempt - 1];
          const name = displayName(lane.name, lane.config.kind);
          if (row === undefined) {
            return (
              <li key={i} className="inspector-lane" data-lane={i}>
                <p className="inspector-lane-name">{name}</p>
                <p className="muted">
                  No attempt {attempt} here: it ended after {rows.length}{' '}
                  {rows.length === 1 ? 'attempt' : 'attempts'}.
                </p>
              </li>
            );
          }
          const decision = decisionAt(result, i, row);
          const response = responseAt(result, i, row);
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
                {decision.delayMs > 0 && <span className="muted"> {decision.delayMs} ms</span>}
              </p>
              <pre className="mono">
                <span className={response.status === 200 ? 'status-ok' : 'status-limited'}>
                  {response.statusLine}
                </span>
                {response.headers.map(([h, v]) => `\n${h}: ${v}`).join('')}
              </pre>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
