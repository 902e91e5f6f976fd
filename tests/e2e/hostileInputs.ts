/**
 * Hostile inputs the browser tests open and the bench measures (`BENCH=decode`, "hostile runs"
 * and "hostile storage, text and pastes"): each with what the same page looks like without the
 * hostile part, to compare the main thread's longest task with.
 */
import type { AlgorithmConfig } from '../../src/core';
import { defaultConfig } from '../../src/config/defaults';
import type { PlaygroundConfig } from '../../src/config/schema';
import type { Deployment } from '../../src/sim';

const SIX =
  'l=nginx:rate=2r/s,burst=5&l=envoy:max_tokens=10,tokens_per_fill=5,fill_interval=1s&l=gcra:max_burst=4,count=5,period=1s&l=fixed-window:limit=5,window=1s&l=sliding-log:limit=5,window=1s&l=sliding-window-counter:limit=5,window=1s';

/** A run built to freeze the page when it is computed where it is opened. */
export interface RunAttack {
  name: string;
  /** The hostile link (a query string without `?`). */
  link: string;
  /** The same page without the hostile part. */
  plain: string;
  /** Compare mode, six lanes. */
  compare?: boolean;
  /** Its run is over the main thread's budget: computed in the worker, even the first time. */
  worker?: boolean;
  /**
   * The config the link opens (what saved settings of it hold; the browser tests do not load the
   * link decoder, whose lz-string is a CommonJS module: tests/config/hostile-inputs.test.ts checks that
   * the link decodes to exactly this).
   */
  config: PlaygroundConfig;
}

const SIX_CONFIGS: AlgorithmConfig[] = [
  { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 0 },
  { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 },
  { kind: 'gcra', count: 5, periodMs: 1000, burst: 4 },
  { kind: 'fixed-window', limit: 5, windowMs: 1000 },
  { kind: 'sliding-log', limit: 5, windowMs: 1000 },
  { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
];

/** The default config with these parts replaced. */
function configWith(
  untilMs: number,
  scenario: Partial<PlaygroundConfig['scenario']>,
  more: { limiters?: AlgorithmConfig[]; compare?: boolean } = {},
): PlaygroundConfig {
  const base = defaultConfig();
  return {
    ...base,
    limiters: more.limiters?.map((config) => ({ config })) ?? base.limiters,
    scenario: { ...base.scenario, ...scenario },
    view: { ...base.view, untilMs, mode: more.compare === true ? 'compare' : 'single' },
  };
}

const SYNCED: Deployment = {
  instances: 64,
  balancer: 'round-robin',
  state: 'shared-atomic',
  roundTripMs: 5,
  fleet: { store: { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open', syncMs: 1 } },
};

export const RUN_ATTACKS: readonly RunAttack[] = [
  {
    name: 'a day of 1 ms store syncs, 64 replicas',
    link: 'v=1&until=24h&deploy=64:state=shared-atomic&fleet=store_rtt=1ms,down=open,sync=1ms',
    plain: 'v=1&until=24h',
    config: configWith(86_400_000, { deployment: SYNCED }),
  },
  {
    name: 'a day of 1 ms store syncs and autoscaler ticks, six lanes compared',
    link: `v=1&until=24h&deploy=64:state=shared-atomic&fleet=store_rtt=1ms,down=open,sync=1ms,autoscale=1r/s:1ms:1-64&mode=compare&${SIX}`,
    plain: `v=1&until=24h&mode=compare&${SIX}`,
    compare: true,
    config: configWith(
      86_400_000,
      {
        deployment: {
          ...SYNCED,
          fleet: {
            ...SYNCED.fleet,
            autoscale: { perReplicaRps: 1, everyMs: 1, min: 1, max: 64 },
          },
        },
      },
      { limiters: SIX_CONFIGS, compare: true },
    ),
  },
  {
    name: '10,000 requests from 10,000 clients, a key each',
    link: 'v=1&until=10s&src=poisson:rate=1000r/s,from=0,to=10s&clients=10000',
    plain: 'v=1&until=10s&src=poisson:rate=100r/s,from=0,to=10s',
    worker: true,
    config: configWith(10_000, {
      sources: [{ kind: 'poisson', ratePerSec: 1000, startMs: 0, endMs: 10_000 }],
      clients: { count: 10_000, keying: 'per-client', assign: 'round-robin' },
    }),
  },
];

/** The saved-settings record (localStorage) the page writes for `config`. */
export function savedRecordOf(config: PlaygroundConfig): string {
  return JSON.stringify({ config, experiment: null });
}
