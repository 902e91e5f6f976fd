/** Experiment 14. Scaling out lets a burst through (kyma-project/api-gateway #2829) (the library: ./library.ts). */
import type { LaneResult } from '../../sim';
import { dec, n, passedIn, ratePerSec } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, countsAnswer } from './define';
import { bucket } from './page-load';
import { fleetOf, fleetable, passedRate, tryAxes } from './fleet-skew';

// 14. Scaling out lets a burst through (kyma-project/api-gateway #2829)

const SCALE_AXES: readonly Axis[] = [
  {
    id: 'scale-out',
    label: 'Scale out to 8 at 10 s',
    apply: (sc) => {
      const s = fleetable(sc);
      return {
        ...s,
        deployment: { ...s.deployment, fleet: { scale: [{ atMs: 10_000, instances: 8 }] } },
      };
    },
  },
  {
    id: 'stay',
    label: 'Stay at 4',
    apply: (s) => {
      const deployment = { ...s.deployment };
      delete deployment.fleet;
      return { ...s, deployment };
    },
  },
];

const SCALE_AT_MS = 10_000;

const scaleVariants = variantsOf(
  inputs(
    [
      {
        name: 'Envoy 100 per s split over N',
        config: bucket(100, 100),
      },
    ],
    scenario({
      sources: [
        { kind: 'constant', ratePerSec: 150, startMs: 0, endMs: 20_000 },
        { kind: 'burst', atMs: 10_200, count: 200 },
      ],
      clients: { count: 50, keying: 'shared', assign: 'round-robin' },
      deployment: { instances: 4, balancer: 'round-robin', state: 'local-divided', roundTripMs: 5 },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  SCALE_AXES,
);

export const fleetScaleOut: Experiment = {
  id: 'fleet-scale-out',
  title: 'Scaling out lets a burst through',
  question:
    'A global limit of 100 requests/s is spread as 100 ÷ 4 = 25/s on each of 4 replicas, under 150/s of load with a burst of 200 at 10.2 s: what passes when the fleet scales out to 8 replicas at 10 s?',
  lookAt:
    'At 10 s four new replicas appear with full buckets (Envoy starts a token bucket full): the backend chart jumps, and from then on 8 × 25/s lets the whole load through.',
  inputs: (scaleVariants[0] as ExperimentVariant).inputs,
  variants: scaleVariants,
  startAtMs: 10_400,
  measure(result) {
    const at = Math.min(SCALE_AT_MS, result.untilMs);
    const axesRuns = tryAxes(result, SCALE_AXES);
    if (axesRuns === null) return countsAnswer(result);
    const runs = axesRuns.map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const f = fleetOf(lane);
      const burst = passedIn(lane, at, at + 1000);
      return {
        axis,
        lane,
        before: passedRate(lane, at - 5000, at),
        after: passedRate(lane, at + 1000, run.untilMs),
        burst,
        beyond: f?.metrics.beyond.count ?? 0,
        replicas: run.instances,
      };
    });
    const lane0 = result.lanes[0];
    const global = lane0 === undefined ? 0 : ratePerSec(lane0.config);
    const parts = runs.map(
      (r) =>
        `${r.axis.label}: ${n(r.burst)} pass in the second after 10 s and ${dec(r.after, 1)}/s after that (${n(r.beyond)} beyond the global limit)`,
    );
    return {
      headline: `Global limit ${n(global)}/s, ${dec(runs[0]?.before ?? 0, 1)}/s passing before 10 s — ${parts.join('; ')}. New replicas start full, and global ÷ N was computed for N = ${n(result.scenario.deployment.instances)}.`,
      facts: runs.flatMap((r) => [
        { label: `${r.axis.label}: replicas at most`, value: n(r.replicas) },
        { label: `${r.axis.label}: passed in the second after 10 s`, value: n(r.burst) },
        { label: `${r.axis.label}: passed per second after 11 s`, value: dec(r.after, 1) },
        { label: `${r.axis.label}: beyond the global limit`, value: n(r.beyond) },
        {
          label: `${r.axis.label}: worst burst at the backend in any 1 s`,
          value: n(r.lane.metrics.peakBackend.count),
        },
      ]),
    };
  },
};
