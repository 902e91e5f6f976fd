// The bodies of the Scenario panel's closed sections (initial JavaScript). Each section
// is closed until opened, so what is inside is a chunk of its own, fetched as the page opens; the
// panel and each section's one-line summary stay in the first chunk (ScenarioPanel.tsx).
import { Suspense } from 'react';
import { MAX_UNTIL_MS, isFleet, validateRun } from '../../sim';
import type { ClockJump, Scenario } from '../../sim';
import { simLimiters } from '../../store';
import { usePlaygroundApi, usePlaygroundShallow } from '../../store/react';
import { NumberField, SelectField } from '../common/fields';
import { problemWith, setIn } from './scenarioEdit';
import { lazyPart } from '../common/lazyPart';

// Chunks of their own again: most deployments never open the fleet settings.
const FleetField = lazyPart(() => import('./FleetField').then((m) => m.FleetField), 'fleet field');
const FleetControls = lazyPart(
  () => import('./FleetControls').then((m) => m.FleetControls),
  'fleet controls',
);

/**
 * The scenario from the store, and field makers that edit it at a path. Not the limiters: a limiter
 * edit does not render these sections again (their 22 inputs were a third of the
 * components an edit rendered).
 */
function useEditors() {
  const s = usePlaygroundShallow((st) => ({
    scenario: st.scenario,
    untilMs: st.untilMs,
    setScenario: st.setScenario,
    setUntil: st.setUntil,
  }));
  const { scenario } = s;
  const num = (path: Array<string | number>, label: string, unit?: string, help?: string) => {
    let value: unknown = scenario;
    for (const p of path) value = (value as Record<string | number, unknown>)[p];
    return (
      <NumberField
        label={label}
        value={typeof value === 'number' ? value : 0}
        width="6em"
        {...(unit === undefined ? {} : { unit })}
        {...(help === undefined ? {} : { help })}
        check={(n) => problemWith(scenario, path, n, label)}
        onCommit={(n) => s.setScenario(setIn(scenario, path, n))}
      />
    );
  };
  const choose = <T extends string>(
    path: string[],
    label: string,
    options: Array<{ value: T; label: string; disabled?: boolean }>,
    help?: string,
  ) => {
    let value: unknown = scenario;
    for (const p of path) value = (value as Record<string, unknown>)[p];
    return (
      <SelectField
        label={label}
        value={value as T}
        options={options}
        {...(help === undefined ? {} : { help })}
        onChange={(v) => s.setScenario(setIn(scenario, path, v))}
      />
    );
  };
  return { s, scenario, num, choose };
}

/** Who sends: how many clients, and what the limiter keys on. */
export function ClientsSection() {
  const { num, choose } = useEditors();
  return (
    <>
      {num(['clients', 'count'], 'clients')}
      {choose(
        ['clients', 'keying'],
        'limited by',
        [
          { value: 'per-client', label: 'each client (API key / own IP)' },
          { value: 'shared', label: 'one key for all (users behind one NAT)' },
        ],
        'Limiting by IP puts everyone behind a NAT gateway in one bucket.',
      )}
      {choose(['clients', 'assign'], 'requests go to', [
        { value: 'round-robin', label: 'clients in turn' },
        { value: 'random', label: 'a random client (seeded)' },
      ])}
    </>
  );
}

/** What a rejected client does next. */
export function RetrySection() {
  const { num, choose } = useEditors();
  return (
    <>
      {choose(['retry', 'onReject'], 'the client', [
        { value: 'give-up', label: 'gives up' },
        { value: 'immediate', label: 'retries at once' },
        { value: 'retry-after', label: 'retries after Retry-After' },
        { value: 'backoff', label: 'backs off exponentially (full jitter)' },
      ])}
      {num(['retry', 'maxAttempts'], 'attempts at most', undefined, 'The first attempt included.')}
      {num(['retry', 'backoffBaseMs'], 'backoff base', 'ms')}
      {num(['retry', 'backoffCapMs'], 'backoff cap', 'ms')}
      {num(
        ['retry', 'turnaroundMs'],
        'turnaround',
        'ms',
        "Added to every retry's wait (the client's round trip).",
      )}
    </>
  );
}

/** Replicas, the balancer, where the limiter state lives, and the fleet settings. */
export function DeploymentSection() {
  const { s, scenario, num, choose } = useEditors();
  return (
    <>
      {num(
        ['deployment', 'instances'],
        'replicas',
        undefined,
        'Instances of the service behind the balancer (1 – 64); scale events change it over time.',
      )}
      {choose(['deployment', 'balancer'], 'balancer', [
        { value: 'round-robin', label: 'round robin' },
        { value: 'random', label: 'random (seeded)' },
        { value: 'least-outstanding', label: 'least outstanding (Envoy P2C)' },
        { value: 'hash', label: 'consistent hash on the key' },
        { value: 'weighted', label: 'weighted (fleet weights)' },
      ])}
      {choose(
        ['deployment', 'state'],
        'limiter state',
        [
          { value: 'local', label: 'local to each instance (N× the limit)' },
          { value: 'local-divided', label: 'local, the limit ÷ N per replica' },
          { value: 'shared-atomic', label: 'shared, updated atomically (global)' },
          { value: 'layered', label: 'local ÷ N in front of the global limit' },
          fleetOn(scenario)
            ? {
                value: 'shared-racy',
                label: 'shared, read then write (racy): not with fleet settings',
                disabled: true,
              }
            : { value: 'shared-racy', label: 'shared, read then write (racy)' },
        ],
        fleetOn(scenario)
          ? "Racy read-then-write is modelled for plain instances only: a fleet's store is the atomic global limit, and its after-the-fact counting is batching (sync_rate, below). Clear the fleet settings and pick round robin or random to use it."
          : 'Read-then-write lets two instances that read the same state both admit.',
      )}
      {num(['deployment', 'roundTripMs'], 'read→write round trip', 'ms')}
      <FleetParts scenario={scenario} setScenario={s.setScenario} />
    </>
  );
}

/** The fleet settings, which check themselves against the limiters (and render with them). */
function FleetParts({
  scenario,
  setScenario,
}: {
  scenario: Scenario;
  setScenario: (s: Scenario) => void;
}) {
  const { limiters, untilMs } = usePlaygroundShallow((st) => ({
    limiters: st.limiters,
    untilMs: st.untilMs,
  }));
  return (
    <Suspense fallback={<p className="muted lazy-loading">Loading the fleet controls…</p>}>
      <FleetControls
        scenario={scenario}
        limiters={simLimiters({ limiters })}
        untilMs={untilMs}
        onChange={setScenario}
      />
      <FleetField
        scenario={scenario}
        limiters={simLimiters({ limiters })}
        untilMs={untilMs}
        onCommit={(fleet) => {
          const deployment = { ...scenario.deployment };
          if (fleet === undefined) delete deployment.fleet;
          else deployment.fleet = fleet;
          setScenario({ ...scenario, deployment });
        }}
      />
    </Suspense>
  );
}

/** The clock the limiters read, and its jumps. */
export function ClockSection() {
  const { s, scenario, choose } = useEditors();
  return (
    <>
      {choose(
        ['clock', 'mode'],
        'limiters read',
        [
          { value: 'monotonic', label: 'a monotonic clock' },
          { value: 'wall', label: 'a wall clock that jumps' },
        ],
        'A backward jump stalls refill until the clock catches up; a forward jump hands out a full bucket.',
      )}
      <JumpList scenario={scenario} onChange={s.setScenario} />
    </>
  );
}

/** The run's length and seed. */
export function RunSection() {
  const { s, scenario, num } = useEditors();
  const api = usePlaygroundApi();
  return (
    <>
      <NumberField
        label="length"
        unit="ms"
        value={s.untilMs}
        width="7em"
        check={(n) =>
          // The length's problem does not depend on the limiters (read now, not subscribed to).
          validateRun(simLimiters(api.getState()), scenario, n).find((i) => i.path === 'untilMs')
            ?.message ?? null
        }
        onCommit={s.setUntil}
        help={`Up to ${MAX_UNTIL_MS / 3_600_000} h of virtual time.`}
      />
      {num(
        ['seed'],
        'seed',
        undefined,
        'Seeds every random draw: the same seed gives the same run.',
      )}
    </>
  );
}

/** True when the deployment uses the fleet engine (as the simulator decides: sim/fleet.ts isFleet). */
function fleetOn(scenario: Scenario): boolean {
  return isFleet(scenario.deployment);
}

function JumpList({ scenario, onChange }: { scenario: Scenario; onChange: (s: Scenario) => void }) {
  const jumps = scenario.clock.jumps;
  const setJumps = (next: ClockJump[]) => onChange(setIn(scenario, ['clock', 'jumps'], next));
  return (
    <div className="jump-list">
      {jumps.map((jump, i) => (
        <div key={i} className="jump">
          <NumberField
            label="at"
            unit="ms"
            value={jump.atMs}
            width="6em"
            check={(n) => problemWith(scenario, ['clock', 'jumps', i, 'atMs'], n)}
            onCommit={(n) => onChange(setIn(scenario, ['clock', 'jumps', i, 'atMs'], n))}
          />
          <NumberField
            label="jump by"
            unit="ms"
            value={jump.byMs}
            width="6em"
            check={(n) => problemWith(scenario, ['clock', 'jumps', i, 'byMs'], n)}
            onCommit={(n) => onChange(setIn(scenario, ['clock', 'jumps', i, 'byMs'], n))}
          />
          <button
            type="button"
            aria-label={`Remove jump ${i + 1}`}
            onClick={() => setJumps(jumps.filter((_, j) => j !== i))}
          >
            ✕
          </button>
        </div>
      ))}
      <button type="button" onClick={() => setJumps([...jumps, { atMs: 5000, byMs: -2000 }])}>
        + Add a jump
      </button>
    </div>
  );
}
