/** Experiment 15. The store is down (istio #12115: 429; envoyproxy/ratelimit #333: 500; failure_mode_deny) (the library: ./library.ts). */
import { rowRange } from '../../sim';
import type { LaneResult, Scenario, StoreModel } from '../../sim';
import { dec, n, passed, ratePerSec, secs } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, countsAnswer } from './define';
import { fleetOf, fleetable, passedRate, tryAxes } from './fleet-skew';

// 15. The store is down (istio #12115: 429; envoyproxy/ratelimit #333: 500; failure_mode_deny)

const OUTAGE = { fromMs: 8000, toMs: 14_000 };
const STORE_BASE: StoreModel = { rttMs: 2, jitterMs: 3, outages: [OUTAGE], onDown: 'closed' };
const storePolicy =
  (onDown: StoreModel['onDown']) =>
  (sc: Scenario): Scenario => {
    const s = fleetable(sc);
    const store = s.deployment.fleet?.store ?? STORE_BASE;
    return {
      ...s,
      deployment: {
        ...s.deployment,
        fleet: {
          ...s.deployment.fleet,
          store: { ...store, onDown, ...(onDown === 'closed' ? { downStatus: 429 } : {}) },
        },
      },
    };
  };
const STORE_AXES: readonly Axis[] = [
  { id: 'closed', label: 'Fail closed (429)', apply: storePolicy('closed') },
  { id: 'open', label: 'Fail open', apply: storePolicy('open') },
  { id: 'local', label: 'Local fallback', apply: storePolicy('local') },
];

const storeVariants = variantsOf(
  inputs(
    [
      {
        name: 'ratelimit service 100 per s',
        config: { kind: 'fixed-window', limit: 100, windowMs: 1000 },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 150, startMs: 0, endMs: 20_000 }],
      clients: { count: 50, keying: 'shared', assign: 'round-robin' },
      deployment: {
        instances: 4,
        balancer: 'round-robin',
        state: 'shared-atomic',
        roundTripMs: 5,
        fleet: { store: { ...STORE_BASE, downStatus: 429 } },
      },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  STORE_AXES,
);

export const fleetStoreDown: Experiment = {
  id: 'fleet-store-down',
  title: 'The store is down: 429 for everyone, or nobody limited',
  question:
    'Four replicas share a global limit of 100 requests/s in a store, under 150/s of load, and the store is unreachable from 8 s to 14 s: what do clients get if the replicas fail closed, fail open, or fall back to a local limit of 100 ÷ 4?',
  lookAt:
    'Inside the outage the inspector says "store unreachable" and which policy decided; switch the variants and watch passes per second against the limit.',
  inputs: (storeVariants[0] as ExperimentVariant).inputs,
  variants: storeVariants,
  startAtMs: 9000,
  measure(result) {
    const outage = result.scenario.deployment.fleet?.store?.outages[0] ?? OUTAGE;
    const to = Math.min(outage.toMs, result.untilMs);
    const from = Math.min(outage.fromMs, to);
    const axesRuns = tryAxes(result, STORE_AXES);
    if (axesRuns === null) return countsAnswer(result);
    const runs = axesRuns.map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const f = fleetOf(lane);
      const c = lane.columns;
      const [start, end] = rowRange(c, from, to);
      let rejected = 0;
      for (let r = start; r < end; r += 1) if (!passed(c.outcome[r] as number)) rejected += 1;
      return {
        axis,
        lane,
        rate: passedRate(lane, from, to),
        rejected,
        offered: end - start,
        beyond: f?.metrics.beyond.count ?? 0,
        status: run.scenario.deployment.fleet?.store?.downStatus ?? 500,
      };
    });
    const lane0 = result.lanes[0];
    const limit = lane0 === undefined ? 0 : ratePerSec(lane0.config);
    const parts = runs.map(
      (r) =>
        `${r.axis.label}: ${dec(r.rate, 1)}/s pass, ${n(r.rejected)} of ${n(r.offered)} rejected, ${n(r.beyond)} beyond the limit`,
    );
    return {
      headline: `While the store is down (from ${secs(from)} to ${secs(to)}), against a limit of ${n(limit)}/s: ${parts.join('; ')}.`,
      facts: runs.flatMap((r) => [
        { label: `${r.axis.label}: passed per second in the outage`, value: dec(r.rate, 1) },
        {
          label: `${r.axis.label}: rejected in the outage`,
          value: `${n(r.rejected)} of ${n(r.offered)}${r.axis.id === 'closed' ? ` (${r.status})` : ''}`,
        },
        { label: `${r.axis.label}: beyond the global limit`, value: n(r.beyond) },
      ]),
    };
  },
};
