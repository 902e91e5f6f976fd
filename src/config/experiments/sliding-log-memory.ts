/** Experiment 8. The sliding log as a memory attack surface (the library: ./library.ts). */
import { dec, n, plural, secs } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';

/** Bytes in SI units, as the views label memory: "80 B", "8 kB". */
function bytes(b: number): string {
  if (b < 1000) return `${n(b)} B`;
  return `${dec(b / 1000, 1)} kB`;
}

export const slidingLogMemory: Experiment = {
  id: 'sliding-log-memory',
  title: 'The sliding log under a flood',
  question:
    'One client floods a sliding log (10 per 10 s) with 100 requests a second: how much memory does its key take when rejected requests are logged too (logRejected), and when they are not?',
  lookAt:
    "Watch the log of each lane: the plain log holds the 10 it admitted; with logRejected every request goes in, so the log grows with the attacker's rate and the flooding key never gets through again.",
  inputs: inputs(
    [
      {
        name: 'sliding log',
        config: { kind: 'sliding-log', limit: 10, windowMs: 10_000, logRejected: false },
      },
      {
        name: 'logRejected',
        config: { kind: 'sliding-log', limit: 10, windowMs: 10_000, logRejected: true },
      },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 20_000 }],
      metrics: { windowMs: 10_000, binMs: 500 },
    }),
    20_000,
  ),
  startAtMs: 12_000,
  measure(result) {
    const offeredRate = (result.arrivals.count * 1000) / result.untilMs;
    const parts = result.lanes.map(
      (lane) =>
        `${lane.name} holds up to ${plural(lane.metrics.state.peakEntries, 'entry', 'entries')} (${bytes(lane.metrics.state.peakBytes)}) and admits ${n(lane.metrics.total.admitted)}`,
    );
    return {
      headline: `Under ${dec(offeredRate, 1)} requests/s from one key, ${parts.join('; ')}.`,
      facts: result.lanes.flatMap((lane) => [
        {
          label: `${lane.name}: peak memory`,
          value: `${bytes(lane.metrics.state.peakBytes)} at ${secs(lane.metrics.state.peakAtMs)}`,
        },
        { label: `${lane.name}: peak log entries`, value: n(lane.metrics.state.peakEntries) },
        {
          label: `${lane.name}: admitted`,
          value: `${n(lane.metrics.total.admitted)} of ${n(lane.metrics.total.offered)}`,
        },
      ]),
    };
  },
};
