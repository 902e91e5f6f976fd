/** Experiment 10. N instances: local, shared, racy (the library: ./library.ts). */
import type { LaneResult, Scenario } from '../../sim';
import { dec, n, plural, ratePerSec, times } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, runAxes } from './define';

// The deployment is one setting per run, so its three kinds are variants simulated in `measure`.
export const deployment =
  (state: 'local' | 'shared-atomic' | 'shared-racy') =>
  (s: Scenario): Scenario => {
    if (state !== 'shared-racy') return { ...s, deployment: { ...s.deployment, state } };
    // Read-then-write is modelled without fleet settings: a fleet run drops them here.
    const deployment = { ...s.deployment, state };
    delete deployment.fleet;
    if (deployment.balancer !== 'random') deployment.balancer = 'round-robin';
    return { ...s, deployment };
  };
const DEPLOY_AXES: readonly Axis[] = [
  { id: 'local', label: 'Local state', apply: deployment('local') },
  { id: 'shared', label: 'Shared store', apply: deployment('shared-atomic') },
  { id: 'racy', label: 'Racy read-then-write', apply: deployment('shared-racy') },
];

const deployVariants = variantsOf(
  inputs(
    [{ name: 'fixed window 10/s', config: { kind: 'fixed-window', limit: 10, windowMs: 1000 } }],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 10_000 }],
      deployment: { instances: 4, balancer: 'round-robin', state: 'local', roundTripMs: 20 },
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    10_000,
  ),
  DEPLOY_AXES,
);

export const instances: Experiment = {
  id: 'instances',
  title: 'Four instances, one limit',
  question:
    'Four instances behind a round-robin balancer each run the limiter (10 a second): what passes when each keeps its own count, when they share one store atomically, and when they read, decide and write back 20 ms later?',
  lookAt:
    'Each request is marked with the instance that decided it. Switch the variants and watch the passes per second against the limit.',
  inputs: (deployVariants[0] as ExperimentVariant).inputs,
  variants: deployVariants,
  startAtMs: 1000,
  measure(result) {
    const seconds = result.untilMs / 1000;
    const runs = runAxes(result, DEPLOY_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const rate = (lane.metrics.total.admitted + lane.metrics.total.delayed) / seconds;
      return { axis, lane, rate, limit: ratePerSec(lane.config) };
    });
    const limit = runs[0]?.limit ?? 0;
    const parts = runs.map(
      ({ axis, rate }) =>
        `${axis.label}: ${dec(rate, 1)}/s (${times(limit > 0 ? rate / limit : 0)})`,
    );
    return {
      headline: `${plural(result.instances, 'instance')}, a limit of ${dec(limit)}/s, passed: ${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, lane, rate }) => [
        { label: `${axis.label}: passed per second`, value: dec(rate, 1) },
        { label: `${axis.label}: most passed in any 1 s`, value: n(lane.metrics.peakPassed.count) },
      ]),
    };
  },
};
