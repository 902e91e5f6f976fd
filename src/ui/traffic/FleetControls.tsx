import { useId, useState } from 'react';
import { isTraefikBucket } from '../../core';
import { DEFAULT_STORE, validateRun } from '../../sim';
import type { Fleet, Scenario, SimLimiter, StoreModel } from '../../sim';
import { NumberField, SelectField } from '../common/fields';
import { setIn } from './scenarioEdit';

type Path = ReadonlyArray<string | number>;

/**
 * The fleet's own controls: weights or service time for the balancer, scale events,
 * the autoscaler, and the shared store (round trip, jitter, timeout, outages, what replicas do
 * when it is down, batching, the over-limit cache). Every field checks its candidate run with the
 * simulator and names itself in the message ("outage 1 until must be from 8001 to 28000 …"); an
 * invalid value stays in its field and never reaches the run, so the last valid run keeps drawing.
 */
export function FleetControls({
  scenario,
  limiters,
  untilMs,
  onChange,
}: {
  scenario: Scenario;
  limiters: SimLimiter[];
  untilMs: number;
  onChange: (scenario: Scenario) => void;
}) {
  const d = scenario.deployment;
  const fleet: Fleet = d.fleet ?? {};
  const store: StoreModel = fleet.store ?? DEFAULT_STORE;
  const usesStore = d.state === 'shared-atomic' || d.state === 'layered';
  const fleetPath = ['deployment', 'fleet'];

  /** The scenario with `value` at `path` inside the fleet (an empty fleet is no fleet). */
  const withFleet = (path: Path, value: unknown): Scenario => {
    const base = path[0] === 'store' && fleet.store === undefined ? { ...fleet, store } : fleet;
    const next = setIn(base, path, value) as Record<string, unknown>;
    for (const k of Object.keys(next)) if (next[k] === undefined) delete next[k];
    const deployment = { ...d };
    if (Object.keys(next).length === 0) delete deployment.fleet;
    else deployment.fleet = next;
    return { ...scenario, deployment };
  };
  // Problems the scenario has already (none, normally) are not this field's to report.
  const before = new Set(validateRun(limiters, scenario, untilMs).map((i) => i.message));
  const fresh = (candidate: Scenario) =>
    validateRun(limiters, candidate, untilMs).filter((i) => !before.has(i.message));
  /** The candidate's first new problem, said with `label` in place of the config path. */
  const problem = (candidate: Scenario, label: string): string | null => {
    const issue = fresh(candidate)[0];
    if (issue === undefined) return null;
    return issue.message.startsWith(issue.path)
      ? `${label}${issue.message.slice(issue.path.length)}`
      : `${label}: ${issue.message}`;
  };
  const commit = (candidate: Scenario): void => {
    if (fresh(candidate).length === 0) onChange(candidate);
  };
  const num = (path: Path, label: string, value: number, unit?: string, help?: string) => (
    <NumberField
      key={[...fleetPath, ...path].join('.')}
      label={label}
      value={value}
      width="6em"
      {...(unit === undefined ? {} : { unit })}
      {...(help === undefined ? {} : { help })}
      check={(n) => problem(withFleet(path, n), label)}
      onCommit={(n) => commit(withFleet(path, n))}
    />
  );

  const scale = fleet.scale ?? [];
  const a = fleet.autoscale;
  return (
    <fieldset className="fleet-controls" data-testid="fleet-controls">
      <legend>Fleet</legend>
      {d.balancer === 'weighted' && (
        <WeightsField
          weights={fleet.weights}
          check={(w) => problem(withFleet(['weights'], w), 'weights')}
          onCommit={(w) => commit(withFleet(['weights'], w))}
        />
      )}
      {d.balancer === 'least-outstanding' && (
        <>
          <SelectField
            label="service time"
            value={fleet.service?.kind ?? 'fixed'}
            options={[
              { value: 'fixed', label: 'fixed' },
              { value: 'uniform', label: 'uniform from 0 to twice the mean' },
              { value: 'exponential', label: 'exponential' },
            ]}
            help="How long a passed request holds its replica (least outstanding counts these)."
            onChange={(kind) =>
              commit(withFleet(['service'], { kind, meanMs: fleet.service?.meanMs ?? 50 }))
            }
          />
          <NumberField
            label="mean service time"
            value={fleet.service?.meanMs ?? 50}
            unit="ms"
            width="6em"
            check={(n) =>
              problem(
                withFleet(['service'], { kind: fleet.service?.kind ?? 'fixed', meanMs: n }),
                'mean service time',
              )
            }
            onCommit={(n) =>
              commit(withFleet(['service'], { kind: fleet.service?.kind ?? 'fixed', meanMs: n }))
            }
          />
        </>
      )}

      <div className="fleet-list" role="group" aria-label="Scale events">
        <p className="fleet-list-title">Scale events</p>
        {scale.map((e, i) => (
          <div key={i} className="jump">
            {num(['scale', i, 'atMs'], `scale event ${i + 1} at`, e.atMs, 'ms')}
            {num(['scale', i, 'instances'], `scale event ${i + 1} replicas`, e.instances)}
            <button
              type="button"
              aria-label={`Remove scale event ${i + 1}`}
              onClick={() =>
                commit(
                  withFleet(
                    ['scale'],
                    scale.length === 1 ? undefined : scale.filter((_, j) => j !== i),
                  ),
                )
              }
            >
              ✕
            </button>
          </div>
        ))}
        <button
          type="button"
          onClick={() =>
            commit(
              withFleet(
                ['scale'],
                [
                  ...scale,
                  {
                    atMs: Math.min(untilMs - 1, Math.floor(untilMs / 2)),
                    instances: Math.min(64, d.instances * 2),
                  },
                ],
              ),
            )
          }
        >
          + Add a scale event
        </button>
      </div>

      <Check
        label="autoscaler"
        checked={a !== undefined}
        help="Every period, sets the replicas to ⌈load ÷ target⌉ within min – max."
        onChange={(on) =>
          commit(
            withFleet(
              ['autoscale'],
              on ? { perReplicaRps: 20, everyMs: 1000, min: 1, max: 8 } : undefined,
            ),
          )
        }
      />
      {a !== undefined && (
        <>
          {num(['autoscale', 'perReplicaRps'], 'target per replica', a.perReplicaRps, 'r/s')}
          {num(['autoscale', 'everyMs'], 'autoscaler period', a.everyMs, 'ms')}
          {num(['autoscale', 'min'], 'min replicas', a.min)}
          {num(['autoscale', 'max'], 'max replicas', a.max)}
          <SelectField
            label="load counted"
            value={a.on ?? 'passed'}
            options={[
              { value: 'passed', label: 'passed requests (a limit hides load)' },
              { value: 'offered', label: 'offered requests' },
            ]}
            onChange={(on) => commit(withFleet(['autoscale', 'on'], on))}
          />
        </>
      )}

      {usesStore ? (
        <div className="fleet-store" role="group" aria-label="Shared store">
          <p className="fleet-list-title">Shared store</p>
          {num(['store', 'rttMs'], 'store round trip', store.rttMs, 'ms')}
          {num(['store', 'jitterMs'], 'store jitter', store.jitterMs, 'ms')}
          <Check
            label="store timeout"
            checked={store.timeoutMs !== undefined}
            help="A call slower than this counts as failed (Envoy's ratelimit filter: 20 ms)."
            onChange={(on) => commit(withFleet(['store', 'timeoutMs'], on ? 20 : undefined))}
          />
          {store.timeoutMs !== undefined &&
            num(['store', 'timeoutMs'], 'timeout after', store.timeoutMs, 'ms')}
          {store.outages.map((o, i) => (
            <div key={i} className="jump">
              {num(['store', 'outages', i, 'fromMs'], `outage ${i + 1} from`, o.fromMs, 'ms')}
              {num(['store', 'outages', i, 'toMs'], `outage ${i + 1} until`, o.toMs, 'ms')}
              <button
                type="button"
                aria-label={`Remove outage ${i + 1}`}
                onClick={() =>
                  commit(
                    withFleet(
                      ['store', 'outages'],
                      store.outages.filter((_, j) => j !== i),
                    ),
                  )
                }
              >
                ✕
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() => {
              const from = Math.floor(untilMs / 2);
              commit(
                withFleet(
                  ['store', 'outages'],
                  [...store.outages, { fromMs: from, toMs: Math.min(untilMs, from + 2000) }],
                ),
              );
            }}
          >
            + Add an outage
          </button>
          <SelectField
            label="when the store is down"
            value={store.onDown}
            options={[
              { value: 'open', label: 'fail open (let it through)' },
              { value: 'closed', label: 'fail closed (reject)' },
              { value: 'local', label: "fall back to the replica's limit ÷ N" },
            ]}
            {...(limiters.some((l) => isTraefikBucket('config' in l ? l.config : l))
              ? {
                  help: 'Traefik has no such choice: when Redis cannot be reached it answers 500 "Could not insert/update bucket" (rate_limiter.go), so Traefik lanes fail closed with 500 whatever is chosen here.',
                }
              : {})}
            onChange={(onDown) => commit(withFleet(['store', 'onDown'], onDown))}
          />
          {store.onDown === 'closed' && (
            <SelectField
              label="status when down"
              value={String(store.downStatus ?? 500) as '429' | '500'}
              options={[
                { value: '500', label: '500 (Envoy status_on_error)' },
                { value: '429', label: '429 (istio #12115)' },
              ]}
              onChange={(s) => commit(withFleet(['store', 'downStatus'], Number(s)))}
            />
          )}
          <SelectField
            label="store policy"
            value={store.kong ?? 'atomic'}
            options={[
              { value: 'atomic', label: 'atomic' },
              { value: 'cluster', label: 'Kong cluster' },
              { value: 'redis', label: 'Kong redis' },
            ]}
            help="Kong nodes as replicas. cluster: a pass is counted a round trip after its read, so requests in between pass beyond the limit. redis (sync_rate −1): INCR before comparing, rejected requests count."
            onChange={(p) => {
              // Kong's sync_rate batching is not modelled: a Kong policy drops the batching.
              const { syncMs: _sync, kong: _kong, ...rest } = store;
              void _sync;
              void _kong;
              commit(withFleet(['store'], p === 'atomic' ? rest : { ...rest, kong: p }));
            }}
          />
          {store.kong === undefined && (
            <Check
              label="batch increments (sync_rate)"
              checked={store.syncMs !== undefined}
              help="Replicas decide on their own copy and write back every period (Kong sync_rate)."
              onChange={(on) => commit(withFleet(['store', 'syncMs'], on ? 1000 : undefined))}
            />
          )}
          {store.syncMs !== undefined && num(['store', 'syncMs'], 'sync every', store.syncMs, 'ms')}
          <Check
            label="cache over-limit keys"
            checked={store.cacheOverLimit === true}
            help="A key the store rejected is rejected locally until its retry-after (envoyproxy/ratelimit)."
            onChange={(on) => commit(withFleet(['store', 'cacheOverLimit'], on ? true : undefined))}
          />
        </div>
      ) : (
        <p className="param-help">
          The shared store (round trip, outages, fail policy) applies when the limiter state is
          shared (global) or layered.
        </p>
      )}
    </fieldset>
  );
}

/** A labelled checkbox. */
function Check({
  label,
  checked,
  help,
  onChange,
}: {
  label: string;
  checked: boolean;
  help?: string;
  onChange: (checked: boolean) => void;
}) {
  const id = useId();
  return (
    <div className="field field-check">
      <input
        id={id}
        type="checkbox"
        checked={checked}
        aria-describedby={help === undefined ? undefined : `${id}-help`}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id}>{label}</label>
      {help !== undefined && (
        <p id={`${id}-help`} className="param-help">
          {help}
        </p>
      )}
    </div>
  );
}

/** Reads "4 3 3", "4;3;3" or "4,3,3": whole weights, or the text that is not one. */
function parseWeights(text: string): number[] | string {
  const items = text.trim() === '' ? [] : text.trim().split(/[\s,;]+/);
  const out: number[] = [];
  for (const item of items) {
    if (!/^\d+$/.test(item)) return item;
    out.push(Number(item));
  }
  return out;
}

/** The weighted balancer's weights, one per replica in order, as a line of numbers. */
function WeightsField({
  weights,
  check,
  onCommit,
}: {
  weights: number[] | undefined;
  check: (weights: number[] | undefined) => string | null;
  onCommit: (weights: number[] | undefined) => void;
}) {
  const id = useId();
  const current = (weights ?? []).join(' ');
  const [text, setText] = useState(current);
  const [shown, setShown] = useState(current);
  if (shown !== current) {
    setShown(current);
    setText(current);
  }
  const parsed = parseWeights(text);
  const value = typeof parsed === 'string' || parsed.length === 0 ? undefined : parsed;
  const error =
    typeof parsed === 'string'
      ? `weights must be whole numbers from 0 to 1000, one per replica, got "${parsed.slice(0, 20)}"`
      : check(value);
  return (
    <div className={`field${error !== null ? ' is-invalid' : ''}`}>
      <label htmlFor={id}>weights</label>
      <span className="field-control">
        <input
          id={id}
          value={text}
          spellCheck={false}
          placeholder="4 3 3"
          style={{ width: '10em' }}
          aria-invalid={error !== null}
          aria-describedby={`${id}-${error !== null ? 'error' : 'help'}`}
          onChange={(e) => {
            const next = e.target.value;
            setText(next);
            const p = parseWeights(next);
            if (typeof p === 'string') return;
            const w = p.length === 0 ? undefined : p;
            if (check(w) === null && (w?.join(' ') ?? '') !== current) onCommit(w);
          }}
        />
      </span>
      {error !== null ? (
        <p id={`${id}-error`} className="param-error" role="alert">
          {error}
        </p>
      ) : (
        <p id={`${id}-help`} className="param-help">
          One per replica in order (replicas past the list weigh 1), e.g. 4 3 3.
        </p>
      )}
    </div>
  );
}
