/** Experiment 7. A bucket that starts empty vs full (the library: ./library.ts). */
import { quotaOf } from '../../core';
import { firstAttemptsOf, n, secs, who } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs, countsAnswer } from './define';
import { bucket } from './page-load';

// The core's token bucket starts full for a new key, as Envoy's, nginx's and redis-cell's do. An
// implementation that starts a key empty (tokens = 0 on creation) is in exactly the state of a full
// bucket drained at its creation: so client 2's key is drained by `max_tokens` priming requests at
// t = 0, and from then on it is the empty-start bucket. Client 1's key is new at 3 s and starts full.
const PRIME_SOURCE = 0;
const FULL_START_SOURCE = 1;
const EMPTY_START_SOURCE = 2;

export const emptyVsFull: Experiment = {
  id: 'empty-vs-full',
  title: 'A bucket that starts empty',
  question:
    'A new client sends 10 requests at once: does a bucket that starts full pass them, and one that starts empty?',
  lookAt:
    "Envoy's token bucket starts full. To show an empty start, client-2's bucket is drained at 0 s (the priming burst), which is exactly where a bucket created empty begins; inspect each key at 3 s, when both clients send 10.",
  inputs: inputs(
    [{ name: 'token bucket', config: bucket(10, 2) }],
    scenario({
      sources: [
        { kind: 'burst', atMs: 0, count: 10, client: 1 },
        { kind: 'burst', atMs: 3000, count: 10, client: 0 },
        { kind: 'burst', atMs: 3000, count: 10, client: 1 },
      ],
      clients: { count: 2, keying: 'per-client', assign: 'round-robin' },
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    10_000,
  ),
  startAtMs: 3300,
  measure(result) {
    const sources = result.scenario.sources;
    const full = sources[FULL_START_SOURCE];
    const empty = sources[EMPTY_START_SOURCE];
    const prime = sources[PRIME_SOURCE];
    if (full?.kind !== 'burst' || empty?.kind !== 'burst' || prime?.kind !== 'burst')
      return countsAnswer(result);
    const per = result.lanes.map((lane) => ({
      lane,
      full: firstAttemptsOf(result, lane, (s) => s === FULL_START_SOURCE),
      empty: firstAttemptsOf(result, lane, (s) => s === EMPTY_START_SOURCE),
      fillMs: quotaOf(lane.config).windowMs,
    }));
    const sinceMs = empty.atMs - prime.atMs;
    const parts = per.map(
      (p) =>
        `${who(result, p.lane)}the key that starts full passes ${n(p.full.passed)} of ${n(p.full.offered)}; ` +
        `the one that started empty ${secs(sinceMs)} earlier passes ${n(p.empty.passed)} of ${n(p.empty.offered)}, ` +
        `and an empty bucket takes ${secs(p.fillMs)} to fill`,
    );
    return {
      headline: `${parts.map((x) => x.charAt(0).toUpperCase() + x.slice(1)).join('. ')}.`,
      facts: per.flatMap((p) => [
        {
          label: `${p.lane.name}: new key, starts full`,
          value: `${n(p.full.passed)} of ${n(p.full.offered)} passed`,
        },
        {
          label: `${p.lane.name}: key emptied ${secs(sinceMs)} before`,
          value: `${n(p.empty.passed)} of ${n(p.empty.offered)} passed`,
        },
        { label: `${p.lane.name}: empty to full`, value: secs(p.fillMs) },
      ]),
    };
  },
};
