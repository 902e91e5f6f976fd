/** Experiment 9. Limiting by IP behind a NAT (the library: ./library.ts). */
import type { LaneResult } from '../../sim';
import { dec, n, pct, plural, ratePerSec, shareRange, status } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, runAxes } from './define';

// Keying is one setting per run: "behind one NAT address" and "an address each" are variants.
const NAT_AXES: readonly Axis[] = [
  {
    id: 'nat',
    label: 'One NAT address',
    apply: (s) => ({ ...s, clients: { ...s.clients, keying: 'shared' } }),
  },
  {
    id: 'own-address',
    label: 'An address each',
    apply: (s) => ({ ...s, clients: { ...s.clients, keying: 'per-client' } }),
  },
];

const natVariants = variantsOf(
  inputs(
    [
      {
        name: 'limit_req 5r/s burst 10',
        config: { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 10, delay: 'nodelay' },
      },
    ],
    scenario({
      sources: [{ kind: 'poisson', ratePerSec: 20, startMs: 0, endMs: 20_000 }],
      clients: { count: 20, keying: 'shared', assign: 'random' },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  NAT_AXES,
);

/** Over the clients that sent anything: the smallest and largest share of their requests passed. */
function clientShares(lane: LaneResult): { min: number; max: number; clients: number } {
  const { offered, passed: ok } = lane.metrics.perClient;
  let min = 1;
  let max = 0;
  let clients = 0;
  for (let c = 0; c < offered.length; c += 1) {
    const o = offered[c] as number;
    if (o === 0) continue;
    clients += 1;
    const share = (ok[c] as number) / o;
    min = Math.min(min, share);
    max = Math.max(max, share);
  }
  return clients === 0 ? { min: 0, max: 0, clients } : { min, max, clients };
}

export const natKey: Experiment = {
  id: 'nat-one-key',
  title: 'Limiting by IP behind a NAT',
  question:
    '20 people behind one office NAT each make about one request a second; the limit per IP address is 5 a second: how much does each get through?',
  lookAt:
    'Every request carries the key nat-gateway: one bucket for twenty people. Switch to "An address each" to see the same people with a key each.',
  inputs: (natVariants[0] as ExperimentVariant).inputs,
  variants: natVariants,
  startAtMs: 5000,
  measure(result) {
    const runs = runAxes(result, NAT_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      return { axis, run, lane, shares: clientShares(lane) };
    });
    const users = result.scenario.clients.count;
    const perUser = (result.arrivals.count * 1000) / result.untilMs / users;
    const limit = ratePerSec((result.lanes[0] as LaneResult).config);
    const parts = runs.map(({ axis, lane, shares }) => {
      const t = lane.metrics.total;
      return (
        `${axis.label}: ${pct(t.rejected, t.offered)} get ${status(lane)}, ` +
        `each person gets ${shareRange(shares.min, shares.max)} of their requests through`
      );
    });
    return {
      headline: `${plural(users, 'person', 'people')} sending ${dec(perUser, 1)} requests/s each against ${dec(limit)}/s per key — ${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, run, lane, shares }) => [
        { label: `${axis.label}: keys`, value: n(run.keyNames.length) },
        {
          label: `${axis.label}: rejected (${status(lane)})`,
          value: `${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)}`,
        },
        {
          label: `${axis.label}: share passed per person`,
          value: shareRange(shares.min, shares.max),
        },
      ]),
    };
  },
};
