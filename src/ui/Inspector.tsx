import { useMemo } from 'react';
import { explainDecision } from '../core';
import { attemptsOf, requestAt } from '../sim';
import type { SimResult } from '../sim';
import { seekerFor } from '../store';
import { usePlaygroundShallow } from '../store/react';
import { HttpResponseView } from './HttpResponseView';
import { OutcomeBadge } from './OutcomeBadge';
import { displayName } from './algorithms';
import { entryResponse, systemOf } from '../systems';
import { formatTime } from './format';

/** One request in depth: the state it met, the rule that decided it, and what the client got. */
export function Inspector({ result }: { result: SimResult }) {
  const { selected, select, seek, limiters } = usePlaygroundShallow((s) => ({
    limiters: s.limiters,
    selected: s.selected,
    select: s.select,
    seek: s.seek,
  }));
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
    return {
      lane,
      info,
      wallMs,
      explanation: explainDecision(before, info.decision),
      response: entryResponse(
        limiters[selected.lane] ?? { config: lane.config },
        info.decision,
        lane.name,
        { nowMs: wallMs, key: info.key, before },
      ),
      systemName: systemOf(limiters[selected.lane] ?? { config: lane.config }).name,
      attempts: attemptsOf(result, selected.lane, info.origin),
    };
  }, [result, selected, limiters]);

  if (selected === null || details === null) {
    return (
      <section className="panel inspector" aria-labelledby="inspector-heading">
        <h2 id="inspector-heading">Decision inspector</h2>
        <p className="muted">
          Click a request (on the timeline or in a view) to see why it was decided so.
        </p>
      </section>
    );
  }
  const { info, lane, explanation, response, attempts, wallMs, systemName } = details;
  const rows = lane.columns.rows;
  return (
    <section
      className="panel inspector"
      aria-labelledby="inspector-heading"
      data-testid="inspector"
    >
      <header className="inspector-header">
        <h2 id="inspector-heading">
          {/* Numbered as the comparison and the decision log number requests: by first attempt. */}
          Request #{info.origin + 1}
          {info.attempt > 1 ? `, attempt ${info.attempt}` : ''}{' '}
          <span className="muted">· {displayName(lane.name, lane.config.kind)}</span>
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
        </dd>
        <dt>arrived</dt>
        <dd className="mono">
          {formatTime(info.arrivalMs)}
          {wallMs !== info.arrivalMs && (
            <span className="muted"> (wall clock {formatTime(wallMs)})</span>
          )}
        </dd>
        <dt>key</dt>
        <dd className="mono">{info.key}</dd>
        <dt>client</dt>
        <dd className="mono">client {info.client + 1}</dd>
        {result.instances > 1 && (
          <>
            <dt>instance</dt>
            <dd className="mono">#{info.instance + 1}</dd>
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
    </section>
  );
}
