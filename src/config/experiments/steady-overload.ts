/** Experiment 2. Steady load slightly above the rate (the library: ./library.ts). */
import { rowRange } from '../../sim';
import {
  dec,
  n,
  outcomeFacts,
  pct,
  plural,
  ratePerSec,
  rejectTimes,
  secs,
  status,
  who,
} from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';

export const steadyOverload: Experiment = {
  id: 'steady-overload',
  title: 'Steady load just above the rate',
  question:
    'Clients send 11 requests a second, evenly, to an Envoy token bucket refilled at 10 a second: what share gets 429, and from when?',
  lookAt:
    'The bucket starts full, so nothing is rejected at first: watch the tokens drain by one a second, then the first 429, then a steady trickle of them.',
  inputs: inputs(
    [
      {
        name: 'token bucket 10/s',
        config: {
          kind: 'token-bucket',
          maxTokens: 10,
          tokensPerFill: 10,
          fillIntervalMs: 1000,
          refill: 'continuous',
        },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 11, startMs: 0, endMs: 30_000 }],
      metrics: { windowMs: 1000, binMs: 500 },
    }),
    30_000,
  ),
  startAtMs: 9200,
  measure(result) {
    const per = result.lanes.map((lane) => {
      const t = lane.metrics.total;
      const rejects = rejectTimes(lane);
      const firstMs = rejects[0];
      let after = 0;
      if (firstMs !== undefined) {
        const [start, end] = rowRange(lane.columns, firstMs, Number.POSITIVE_INFINITY);
        after = end - start;
      }
      return { lane, t, firstMs, after, rejectedAfter: rejects.length };
    });
    const offeredRate = (result.arrivals.count * 1000) / result.untilMs;
    const parts = per.map(({ lane, t, firstMs, after, rejectedAfter }) => {
      const share = `${who(result, lane)}${pct(t.rejected, t.offered)} of ${plural(t.offered, 'request')} get ${status(lane)}`;
      if (firstMs === undefined) return `${share}`;
      return (
        `${share} — none until ${secs(firstMs)}, then ${pct(rejectedAfter, after)}` +
        ` (about 1 in ${n(after / rejectedAfter)})`
      );
    });
    return {
      headline: `Offered ${dec(offeredRate, 1)} requests/s, ${parts.join('; ')}.`,
      facts: per.flatMap(({ lane, firstMs, after, rejectedAfter }) => [
        { label: `${lane.name}: allowed rate`, value: `${dec(ratePerSec(lane.config))}/s` },
        {
          label: `${lane.name}: first ${status(lane)}`,
          value: firstMs === undefined ? 'none' : secs(firstMs),
        },
        {
          label: `${lane.name}: rejected from then on`,
          value: `${n(rejectedAfter)} of ${n(after)}`,
        },
        ...outcomeFacts(lane).slice(0, 1),
      ]),
    };
  },
};
