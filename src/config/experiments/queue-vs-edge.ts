/** Experiment 5. A queue in front of the backend vs a fast 429 at the edge (the library: ./library.ts). */
import { peakWindow } from '../../sim';
import { backendTimes, n, outcomeFacts, pct, plural, secs, status } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';
import { bucket } from './page-load';

export const queueVsEdge: Experiment = {
  id: 'queue-vs-edge',
  title: 'Queue in front of the backend, or 429 at the edge',
  question:
    'Traffic comes in bursts of 20 a second, one second in four: what does a delaying nginx queue cost the clients, and what does answering 429 at once cost them, for the same 5 requests a second?',
  lookAt:
    'Watch the backend line: the nginx queue (rate=5r/s burst=20, no nodelay) holds the burst and releases it steadily; the Envoy bucket at the edge passes what it has tokens for at once and rejects the rest.',
  inputs: inputs(
    [
      {
        name: 'nginx queue',
        config: { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 20, delay: 0 },
      },
      { name: 'edge bucket', config: bucket(5, 5) },
    ],
    scenario({
      sources: [
        { kind: 'on-off', ratePerSec: 20, onMs: 1000, offMs: 3000, startMs: 0, endMs: 20_000 },
      ],
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    20_000,
  ),
  startAtMs: 1000,
  measure(result) {
    const per = result.lanes.map((lane) => ({
      lane,
      peak: peakWindow(
        backendTimes(lane),
        lane.metrics.total.admitted + lane.metrics.total.delayed,
        1000,
      ).count,
      // The one p95 of the page (README, "p95 delay"): over the delayed requests, nearest rank,
      // as the compare table and the delay chart give it.
      delayed: lane.metrics.delay.count,
      p50: lane.metrics.delay.p50Ms,
      p95: lane.metrics.delay.p95Ms,
      max: lane.metrics.delay.maxMs,
    }));
    const parts = per.map(({ lane, peak, delayed, p95, max }) => {
      const t = lane.metrics.total;
      const waits =
        delayed === 0
          ? 'answers every client at once'
          : `makes ${plural(delayed, 'client')} wait, up to ${secs(max)} (p95 delay ${secs(p95)})`;
      return (
        `${lane.name} ${waits}, ${t.rejected === 0 ? 'rejects none' : `rejects ${n(t.rejected)} of ${n(t.offered)} (${pct(t.rejected, t.offered)}) with ${status(lane)}`}` +
        ` and sends the backend at most ${n(peak)} in a second`
      );
    });
    return {
      headline: `${parts.join('; ')}.`,
      facts: per.flatMap(({ lane, peak, delayed, p50, p95 }) => [
        ...outcomeFacts(lane),
        { label: `${lane.name}: most at the backend in any 1 s`, value: n(peak) },
        {
          label: `${lane.name}: delay of a delayed request, median / p95`,
          value: delayed === 0 ? 'none delayed' : `${secs(p50)} / ${secs(p95)}`,
        },
      ]),
    };
  },
};
