/** Experiment 13. Twelve replicas at 600 r/s each (istio #54759) (the library: ./library.ts). */
import type { LaneFleet, LaneResult, Scenario, SimResult } from '../../sim';
import { n, passedIn, plural, ratePerSec, rejectTimes, secs, share, status } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, runAxes, countsAnswer } from './define';

// ---------------------------------------------------------------------------------------------
// 13 – 15. Fleets
// ---------------------------------------------------------------------------------------------

/** The fleet part of a lane, or null for a run without one (the person may have edited it out). */
export function fleetOf(lane: LaneResult | undefined): LaneFleet | null {
  return lane?.fleet ?? null;
}

/** Passed rows of `lane` with arrival in [fromMs, toMs), per second. */
export function passedRate(lane: LaneResult, fromMs: number, toMs: number): number {
  return toMs > fromMs ? (passedIn(lane, fromMs, toMs) * 1000) / (toMs - fromMs) : 0;
}

/** The busiest replica's share of a lane's attempts (from the instance column). */
function maxShare(lane: LaneResult): { slot: number; share: number } {
  const c = lane.columns;
  const counts = new Map<number, number>();
  const one = c.instance.length < c.rows;
  for (let r = 0; r < c.rows; r += 1) {
    const i = one ? 0 : (c.instance[r] as number);
    counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  let slot = 0;
  let most = 0;
  for (const [i, k] of counts) if (k > most || (k === most && i < slot)) [slot, most] = [i, k];
  return { slot, share: c.rows > 0 ? most / c.rows : 0 };
}

/** A fleet axis's scenario: 'shared-racy' has no fleet model, so the store takes its place. */
export function fleetable(s: Scenario): Scenario {
  return s.deployment.state === 'shared-racy'
    ? { ...s, deployment: { ...s.deployment, state: 'shared-atomic' } }
    : s;
}

/**
 * The axes simulated, or null when the person's edits make an axis invalid (an outage longer than
 * a shortened run, say): the answer then falls back to plain counts.
 */
export function tryAxes(
  result: SimResult,
  axes: readonly Axis[],
): Array<{ axis: Axis; run: SimResult }> | null {
  try {
    return runAxes(result, axes);
  } catch {
    return null;
  }
}

// 13. Twelve replicas at 600 r/s each (istio #54759)

const BALANCE_AXES: readonly Axis[] = [
  {
    id: 'skewed',
    label: 'Skewed balancer',
    apply: (sc) => {
      const s = fleetable(sc);
      return {
        ...s,
        deployment: {
          ...s.deployment,
          balancer: 'weighted',
          fleet: { ...s.deployment.fleet, weights: [11, ...Array<number>(11).fill(8)] },
        },
      };
    },
  },
  {
    id: 'even',
    label: 'Round-robin',
    apply: (s) => ({ ...s, deployment: { ...s.deployment, balancer: 'round-robin' } }),
  },
];

const skewVariants = variantsOf(
  inputs(
    [
      {
        name: 'Envoy 600 per s per replica',
        config: { kind: 'token-bucket', maxTokens: 60, tokensPerFill: 600, fillIntervalMs: 1000 },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 6000, startMs: 0, endMs: 2000 }],
      clients: { count: 1000, keying: 'shared', assign: 'round-robin' },
      deployment: { instances: 12, balancer: 'round-robin', state: 'local', roundTripMs: 5 },
      metrics: { windowMs: 1000, binMs: 50 },
    }),
    2000,
  ),
  BALANCE_AXES,
);

export const fleetSkew: Experiment = {
  id: 'fleet-skew',
  title: 'Twelve replicas at 600 r/s each: why the limit bites early',
  question:
    'Twelve replicas each run an Envoy local limit of 600 requests/s, so the fleet should take 7,200/s: why do clients get 429s at 6,000/s when the balancer gives one replica a little more than its share?',
  lookAt:
    'The replica strip: replica 1 (the first colour) takes more than 1/12 of the traffic, empties its bucket and rejects while the other eleven still have tokens.',
  inputs: (skewVariants[0] as ExperimentVariant).inputs,
  variants: skewVariants,
  startAtMs: 1200,
  measure(result) {
    const seconds = result.untilMs / 1000;
    const axesRuns = tryAxes(result, BALANCE_AXES);
    if (axesRuns === null) return countsAnswer(result);
    const runs = axesRuns.map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      return { axis, lane, top: maxShare(lane), replicas: run.instances };
    });
    const lane0 = result.lanes[0];
    const perReplica = lane0 === undefined ? 0 : ratePerSec(lane0.config);
    const replicas = result.scenario.deployment.instances;
    const promised = perReplica * replicas;
    const offered = (lane0?.metrics.total.offered ?? 0) / seconds;
    const parts = runs.map(({ axis, lane, top }) => {
      const bites = top.share > 0 ? perReplica / top.share : 0;
      return `${axis.label}: the busiest replica (replica ${top.slot + 1}) takes ${share(top.share)}, so the limit bites at ${n(bites)}/s (${share(promised > 0 ? bites / promised : 0)} of ${n(promised)}/s); ${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)} rejected`;
    });
    return {
      headline: `${plural(replicas, 'replica')} × ${n(perReplica)}/s promise ${n(promised)}/s; at ${n(offered)}/s offered — ${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, lane, top }) => {
        const first = rejectTimes(lane)[0];
        return [
          { label: `${axis.label}: busiest replica's share`, value: share(top.share) },
          {
            label: `${axis.label}: the per-replica limit bites at`,
            value: `${n(top.share > 0 ? perReplica / top.share : 0)}/s`,
          },
          {
            label: `${axis.label}: rejected (${status(lane)})`,
            value: `${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)}`,
          },
          { label: `${axis.label}: first 429`, value: first === undefined ? 'none' : secs(first) },
        ];
      }),
    };
  },
};
