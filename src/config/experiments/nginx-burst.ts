/** Experiment 4. nginx burst: nodelay, delay=N, neither (the library: ./library.ts). */
import type { AlgorithmConfig } from '../../core';
import { list, n, plural, secs, status } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';
import { pluralNoun } from '../../core';

export const nginx = (burst: number, delay: number | 'nodelay'): AlgorithmConfig => ({
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst,
  delay,
});

/** The directive as written in nginx.conf: "burst=5 nodelay", "burst=5 delay=2", "burst=5". */
function nginxDirective(config: AlgorithmConfig): string | null {
  if (config.kind !== 'leaky-bucket') return null;
  const delay =
    config.delay === 'nodelay' ? ' nodelay' : config.delay > 0 ? ` delay=${config.delay}` : '';
  return `burst=${config.burst}${delay}`;
}

export const nginxBurst: Experiment = {
  id: 'nginx-burst',
  title: 'nginx burst: nodelay, delay, neither',
  question:
    'Seven requests arrive at once at nginx limit_req rate=1r/s burst=5: who passes at once, who waits and how long, who is rejected?',
  lookAt:
    'All three lanes make the same admit-or-reject decisions; only the timing differs. Watch the queue: nodelay sends the burst through now, delay=2 lets 3 through and spaces the rest, no delay spaces all but the first.',
  inputs: inputs(
    [
      { name: 'burst 5 nodelay', config: nginx(5, 'nodelay') },
      { name: 'burst 5 delay 2', config: nginx(5, 2) },
      { name: 'burst 5', config: nginx(5, 0) },
    ],
    scenario({
      sources: [{ kind: 'burst', atMs: 1000, count: 7 }],
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    8000,
  ),
  startAtMs: 1300,
  measure(result) {
    const per = result.lanes.map((lane) => {
      const t = lane.metrics.total;
      return {
        lane,
        passedCount: t.admitted + t.delayed,
        name: nginxDirective(lane.config) ?? lane.name,
      };
    });
    const parts = per.map(({ lane, passedCount, name }) => {
      const t = lane.metrics.total;
      const wait =
        t.delayed > 0
          ? `, ${n(t.delayed)} wait ${secs(lane.metrics.delay.p50Ms)} median, up to ${secs(lane.metrics.delay.maxMs)}`
          : '';
      return `${name} passes ${n(passedCount)} (${n(t.admitted)} at once${wait})`;
    });
    const rejected = per.map(({ lane }) => lane.metrics.total.rejected);
    const statuses = new Set(per.map(({ lane }) => status(lane)));
    const sameReject = new Set(rejected).size === 1 && statuses.size === 1;
    return {
      headline:
        `Of ${n(result.arrivals.count)} at once: ${list(parts)}.` +
        (sameReject
          ? ` In every lane ${plural(rejected[0] ?? 0, 'request')} ${pluralNoun(rejected[0] ?? 0, 'gets', 'get')} ${[...statuses][0] ?? ''}.`
          : ` Rejected: ${list(per.map(({ lane, name }) => `${n(lane.metrics.total.rejected)} (${name})`))}.`),
      facts: per.flatMap(({ lane, name }) => [
        { label: `${name}: admitted at once`, value: n(lane.metrics.total.admitted) },
        {
          label: `${name}: delayed`,
          value:
            lane.metrics.delay.count > 0
              ? `${n(lane.metrics.delay.count)}, ${secs(lane.metrics.delay.p50Ms)} median, ${secs(lane.metrics.delay.maxMs)} max`
              : '0',
        },
        {
          label: `${name}: rejected (${status(lane)})`,
          value: n(lane.metrics.total.rejected),
        },
      ]),
    };
  },
};
