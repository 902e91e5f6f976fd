/** Experiment 1. The boundary burst (the library: ./library.ts). */
import { quotaOf } from '../../core';
import { list, n, passedIn, secs, times } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';

const window10per2s = { limit: 10, windowMs: 2000 };

export const boundaryBurst: Experiment = {
  id: 'boundary-burst',
  title: 'The boundary burst',
  question:
    'With a limit of 10 requests per 2 s, how many can pass in the two seconds around a window boundary?',
  lookAt:
    'Ten requests arrive in the second before the fixed window resets at 4 s and ten in the second after. ' +
    'Watch the fixed window start counting from zero at 4 s, while the sliding log still remembers the first ten and the counter still weighs them.',
  inputs: inputs(
    [
      { name: 'fixed window', config: { kind: 'fixed-window', ...window10per2s } },
      {
        name: 'sliding log',
        config: { kind: 'sliding-log', ...window10per2s, logRejected: false },
      },
      {
        name: 'sliding-window counter',
        config: { kind: 'sliding-window-counter', ...window10per2s },
      },
    ],
    scenario({
      sources: [{ kind: 'boundary-burst', boundaryMs: 4000, count: 10, spreadMs: 1000 }],
      metrics: { windowMs: 2000, binMs: 100 },
    }),
    8000,
  ),
  startAtMs: 4950,
  measure(result) {
    const source = result.scenario.sources.find((s) => s.kind === 'boundary-burst');
    const per = result.lanes.map((lane) => {
      const limit = quotaOf(lane.config).limit;
      if (source === undefined) return { lane, limit, count: lane.metrics.peakPassed.count };
      const half = Math.max(1, source.spreadMs ?? 0);
      return {
        lane,
        limit,
        count: passedIn(lane, source.boundaryMs - half, source.boundaryMs + half),
      };
    });
    const span =
      source === undefined
        ? `the busiest ${secs(result.scenario.metrics?.windowMs ?? 1000)}`
        : `the ${secs(2 * Math.max(1, source.spreadMs ?? 0))} around the boundary`;
    const parts = per.map(
      ({ lane, limit, count }, i) =>
        `${lane.name} passes ${n(count)}` +
        (i === 0
          ? ` — ${times(count / limit)} its limit of ${n(limit)}`
          : ` (${times(count / limit)})`),
    );
    return {
      headline: `In ${span}, ${list(parts)}.`,
      facts: per.flatMap(({ lane }) => [
        {
          label: `${lane.name}: most passed in any ${secs(lane.metrics.peakPassed.windowMs)}`,
          value:
            lane.metrics.peakPassed.count > 0
              ? `${n(lane.metrics.peakPassed.count)}, from ${secs(lane.metrics.peakPassed.startMs)}`
              : '0',
        },
        {
          label: `${lane.name}: rejected`,
          value: `${n(lane.metrics.total.rejected)} of ${n(lane.metrics.total.offered)}`,
        },
      ]),
    };
  },
};
