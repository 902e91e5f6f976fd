/** Experiment 6. Retrying clients at a fixed window's reset (the library: ./library.ts). */
import type { LaneResult, RetryPolicy, Scenario } from '../../sim';
import { n, passed, plural, secs, status } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, runAxes } from './define';

// One run has one retry policy (a scenario-wide setting), and three limiter lanes would all retry
// the same way, so the policies are variants: `measure` simulates all three from the run it is
// given, changing only `scenario.retry`.
/** Only the policy changes between variants: attempts, backoff and round trip are the run's own. */
const onReject =
  (policy: RetryPolicy['onReject']) =>
  (s: Scenario): Scenario => ({ ...s, retry: { ...s.retry, onReject: policy } });
const RETRY_AXES: readonly Axis[] = [
  {
    id: 'immediate',
    label: 'Retry at once',
    apply: onReject('immediate'),
  },
  {
    id: 'retry-after',
    label: 'Wait for Retry-After',
    apply: onReject('retry-after'),
  },
  {
    id: 'backoff',
    label: 'Backoff with jitter',
    apply: onReject('backoff'),
  },
];

const retryBaseInputs = inputs(
  [{ name: 'fixed window 10/s', config: { kind: 'fixed-window', limit: 10, windowMs: 1000 } }],
  scenario({
    sources: [{ kind: 'burst', atMs: 200, count: 30 }],
    retry: {
      onReject: 'immediate',
      maxAttempts: 10,
      backoffBaseMs: 100,
      backoffCapMs: 10_000,
      turnaroundMs: 100,
    },
    clients: { count: 30, keying: 'shared', assign: 'round-robin' },
    metrics: { windowMs: 1000, binMs: 100 },
  }),
  10_000,
);
const retryVariants = variantsOf(retryBaseInputs, RETRY_AXES);

/** When the last request that passed got through (its passing attempt's arrival), or −1. */
function lastPassMs(lane: LaneResult): number {
  const c = lane.columns;
  for (let r = c.rows - 1; r >= 0; r -= 1)
    if (passed(c.outcome[r] as number)) return c.arrivalMs[r] as number;
  return -1;
}

export const retryStorm: Experiment = {
  id: 'retry-storm',
  title: 'Retries at the window reset',
  question:
    '30 clients share one API key limited to 10 a second by a fixed window, and 20 of them are rejected: should they retry at once, wait for Retry-After, or back off with jitter?',
  lookAt:
    'Switch between the variants and watch the retries (attempt numbers) pile up before the window resets at 1 s, 2 s, 3 s. Every client tries at most 10 times, 100 ms round trip.',
  inputs: (retryVariants[0] as ExperimentVariant).inputs,
  variants: retryVariants,
  startAtMs: 1000,
  measure(result) {
    const runs = runAxes(result, RETRY_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const m = lane.metrics;
      return {
        axis,
        lane,
        attempts: m.total.offered,
        rejected: m.total.rejected,
        gaveUp: m.gaveUp,
        doneMs: lastPassMs(lane),
        requests: run.arrivals.count,
      };
    });
    const parts = runs.map(
      (r) =>
        `${r.axis.label}: ${plural(r.attempts, 'attempt')} (${n(r.rejected)} × ${status(r.lane)})` +
        (r.gaveUp > 0 ? `, ${n(r.gaveUp)} give up` : ', none gives up') +
        (r.doneMs >= 0 ? `, last through at ${secs(r.doneMs)}` : ''),
    );
    return {
      headline: `For ${plural(runs[0]?.requests ?? 0, 'request')}: ${parts.join('; ')}.`,
      facts: runs.flatMap((r) => [
        { label: `${r.axis.label}: attempts`, value: n(r.attempts) },
        { label: `${r.axis.label}: rejected attempts`, value: n(r.rejected) },
        { label: `${r.axis.label}: gave up`, value: n(r.gaveUp) },
        {
          label: `${r.axis.label}: last request through`,
          value: r.doneMs >= 0 ? secs(r.doneMs) : 'none',
        },
      ]),
    };
  },
};
