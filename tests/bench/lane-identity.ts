/**
 * Byte-identity check for speed work on the simulator's non-fleet lanes: runs
 * every algorithm (with its options: delays, idle reset, interval refill, logged rejections,
 * entry-anchored windows, blocks, calendar windows) through one instance, local and shared
 * instances (atomic and racy), several clients and keys, retries, a wall clock that jumps back, a
 * lane cut by the decision cap, and an edit through a cache, and prints a hash of each full
 * SimResult (every column and metric), of each lane, and of seeks into it.
 * Usage: `npx tsx tests/bench/lane-identity.ts > after.txt` on two commits, then diff the files.
 */
import type { AlgorithmConfig } from '../../src/core';
import { defaultScenario, simulate, Seeker } from '../../src/sim';
import type { Scenario, SimCache } from '../../src/sim';
import { hashOf } from './hashOf';
import { BENCH_LIMITERS } from './sim';

const EXTRA: AlgorithmConfig[] = [
  { kind: 'token-bucket', maxTokens: 20, tokensPerFill: 5, fillIntervalMs: 100, maxDelayMs: 300 },
  {
    kind: 'token-bucket',
    maxTokens: 30,
    tokensPerFill: 50,
    fillIntervalMs: 250,
    refill: 'interval',
    idleResetS: 2,
  },
  { kind: 'sliding-log', limit: 200, windowMs: 1000, logRejected: true },
  { kind: 'sliding-window-counter', limit: 300, windowMs: 2000, anchor: 'entry', expireMs: 5000 },
  { kind: 'leaky-bucket', rate: 600, rateUnit: 'r/s', burst: 20, delay: 'nodelay' },
  { kind: 'anchored-window', limit: 250, windowMs: 1000, countRejected: true, blockMs: 1500 },
  { kind: 'anchored-window', limit: 250, windowMs: 1000, execEvenly: true },
  { kind: 'calendar-windows', second: 40, minute: 1500 },
];
const GROUPS = [BENCH_LIMITERS, EXTRA];

const base = (extra: Partial<Scenario> = {}): Scenario => ({
  ...defaultScenario(),
  seed: 11,
  sources: [
    { kind: 'poisson', ratePerSec: 500, startMs: 0, endMs: 40_000 },
    { kind: 'burst', atMs: 20_000, count: 2000, spreadMs: 300 },
  ],
  ...extra,
});
const many = { count: 40, keying: 'per-client', assign: 'random' } as const;
const backoff = {
  onReject: 'backoff',
  maxAttempts: 4,
  backoffBaseMs: 100,
  backoffCapMs: 3000,
  turnaroundMs: 0,
} as const;
const dep = (d: Partial<Scenario['deployment']>): Scenario['deployment'] => ({
  ...defaultScenario().deployment,
  ...d,
});
type Variant = [name: string, scenario: Scenario, untilMs: number];
const variants: Variant[] = [
  ['one', base(), 40_000],
  ['one-keys', base({ clients: many }), 40_000],
  ['one-keys-retry', base({ clients: many, retry: { ...backoff } }), 40_000],
  [
    'shared-clients',
    base({ clients: { count: 30, keying: 'shared', assign: 'round-robin' } }),
    40_000,
  ],
  ['retry-after', base({ retry: { ...backoff, onReject: 'retry-after' } }), 40_000],
  [
    'local-rr',
    base({
      clients: many,
      deployment: dep({ instances: 4, state: 'local', balancer: 'round-robin' }),
    }),
    40_000,
  ],
  [
    'local-random-retry',
    base({
      clients: many,
      retry: { ...backoff, onReject: 'immediate', maxAttempts: 3 },
      deployment: dep({ instances: 3, state: 'local', balancer: 'random' }),
    }),
    40_000,
  ],
  [
    'atomic-4',
    base({
      clients: many,
      deployment: dep({ instances: 4, state: 'shared-atomic', balancer: 'random' }),
    }),
    40_000,
  ],
  [
    'racy-one-key',
    base({ deployment: dep({ instances: 4, state: 'shared-racy', roundTripMs: 15 }) }),
    40_000,
  ],
  [
    'racy-keys-retry',
    base({
      clients: many,
      retry: { ...backoff },
      deployment: dep({ instances: 5, state: 'shared-racy', roundTripMs: 25, balancer: 'random' }),
    }),
    40_000,
  ],
  [
    'clock-jumps',
    base({
      clients: many,
      clock: {
        mode: 'wall',
        jumps: [
          { atMs: 10_000, byMs: -3000 },
          { atMs: 25_000, byMs: 2000 },
        ],
      },
    }),
    40_000,
  ],
];
const only = process.argv[2];
for (const [name, sc, until] of variants) {
  if (only !== undefined && only !== name) continue;
  GROUPS.forEach((limiters, g) => {
    const r = simulate(limiters, sc, until);
    const seeker = new Seeker(r);
    const seeks = [0, 1234, Math.floor(until / 3), Math.floor(until / 2) + 17, until - 1].map((t) =>
      seeker.stateAt(t, r.keyNames[Math.min(3, r.keyNames.length - 1)]),
    );
    const { lanes, ...rest } = r;
    console.log(
      `${`${name}/${g}`.padEnd(22)} ${hashOf(r)} rest ${hashOf(rest)} seeks ${hashOf(seeks)} lanes ${lanes.map((l) => hashOf(l)).join(',')}`,
    );
  });
}
// The first-attempt cap (MAX_FIRST_ATTEMPTS) cuts this run; an edit goes through a cache.
if (only === undefined || only === 'cap-cache') {
  const sc = base({
    clients: many,
    sources: [{ kind: 'constant', ratePerSec: 20_000, startMs: 0, endMs: 600_000 }],
  });
  const cache = {} as SimCache;
  const lim = (n: number): AlgorithmConfig[] => [
    { kind: 'token-bucket', maxTokens: n, tokensPerFill: 100, fillIntervalMs: 10 },
  ];
  const a = simulate(lim(50), sc, 600_000, { cache });
  const b = simulate(lim(60), sc, 600_000, { cache });
  const c = simulate(lim(60), sc, 600_000);
  console.log(
    `${'cap-cache'.padEnd(20)} ${hashOf(a)} ${hashOf(b)} ${hashOf(c)} truncated ${a.truncation.join(' | ')}`,
  );
}
