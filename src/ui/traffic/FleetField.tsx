import { useId, useState } from 'react';
import { decodeFleet, encodeFleet } from '../../config/url-fleet';
import { validateRun } from '../../sim';
import type { Fleet, Scenario, SimLimiter } from '../../sim';

/**
 * The fleet settings as one line in the link's own grammar (`scale=8@10s,outage=8s-14s,down=closed`,
 * see src/config/url-fleet.ts). A value the simulator refuses stays in the field with the message
 * that names the field and the accepted range, and never reaches the run: the last valid run keeps
 * drawing.
 */
export function FleetField({
  scenario,
  limiters,
  untilMs,
  onCommit,
}: {
  scenario: Scenario;
  limiters: SimLimiter[];
  untilMs: number;
  onCommit: (fleet: Fleet | undefined) => void;
}) {
  const id = useId();
  const current =
    scenario.deployment.fleet === undefined ? '' : encodeFleet(scenario.deployment.fleet);
  const [text, setText] = useState(current);
  const [shown, setShown] = useState(current);
  if (shown !== current) {
    setShown(current);
    setText(current);
  }
  const check = (value: string): { fleet: Fleet | undefined; error: string | null } => {
    if (value.trim() === '') return { fleet: undefined, error: null };
    const { fleet, unknown } = decodeFleet(value.trim());
    if (unknown.length > 0)
      return {
        fleet: undefined,
        error: `fleet has no option ${JSON.stringify(unknown[0])} (options: weights, service, scale, autoscale, store_rtt, jitter, timeout, outage, down, status, sync, cache)`,
      };
    const candidate = {
      ...scenario,
      deployment: { ...scenario.deployment, fleet: fleet as Fleet },
    };
    const issue = validateRun(limiters, candidate, untilMs)[0];
    return { fleet: fleet, error: issue?.message ?? null };
  };
  const { error } = check(text);
  const commit = (): void => {
    const r = check(text);
    if (r.error === null && text !== current) onCommit(r.fleet);
  };
  return (
    <div className={`field fleet-field${error !== null ? ' is-invalid' : ''}`}>
      <label htmlFor={id}>fleet as link text</label>
      <span className="field-control">
        <input
          id={id}
          value={text}
          spellCheck={false}
          placeholder="scale=8@10s,outage=8s-14s,down=closed"
          aria-invalid={error !== null}
          aria-describedby={`${id}-${error !== null ? 'error' : 'help'}`}
          onChange={(e) => setText(e.target.value)}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit();
          }}
        />
      </span>
      {error !== null ? (
        <p id={`${id}-error`} className="param-error" role="alert">
          {error}
        </p>
      ) : (
        <p id={`${id}-help`} className="param-help">
          weights=4;3;3 · service=exponential:40ms · scale=8@10s · autoscale=20r/s:1s:1-8 ·
          store_rtt=2ms, jitter=3ms, timeout=20ms · outage=8s-14s · down=open|closed|local ·
          status=429|500 · sync=1s · cache
        </p>
      )}
    </div>
  );
}
