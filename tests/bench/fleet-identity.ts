/**
 * Byte-identity check for speed work on the simulator: runs the fleet bench scenario and
 * 17 fleet variants (every balancer; local, shared, racy, divided and layered state; store outages
 * failing open, closed and to a local limit; sync batching; the over-limit cache; scale events; the
 * autoscaler; retries; Kong cluster and redis; wall-clock jumps) and prints a hash of each full
 * SimResult (every column, metric and fleet metric), of each lane, and of seeks into it.
 * Usage: `npx tsx tests/bench/fleet-identity.ts > after.txt` on two commits, then diff the files.
 */
import type { AlgorithmConfig } from '../../src/core';
import { defaultScenario, simulate, Seeker } from '../../src/sim';
import type { Scenario } from '../../src/sim';
import { hashOf } from './hashOf';
import { BENCH_LIMITERS, fleetBenchScenario } from './sim';

const base = (): Scenario => ({
  ...defaultScenario(),
  seed: 7,
  sources: [
    { kind: 'poisson', ratePerSec: 400, startMs: 0, endMs: 60_000 },
    { kind: 'burst', atMs: 30_000, count: 3000, spreadMs: 500 },
  ],
  clients: { count: 50, keying: 'per-client', assign: 'random' },
});
const fleet = (d: Partial<Scenario['deployment']>, extra: Partial<Scenario> = {}): Scenario => ({
  ...base(),
  ...extra,
  deployment: {
    instances: 8,
    balancer: 'round-robin',
    state: 'shared-atomic',
    roundTripMs: 5,
    ...d,
  },
});
const out = { fromMs: 20_000, toMs: 35_000 };
const KONGS: AlgorithmConfig[] = [
  { kind: 'calendar-windows', second: 30, minute: 900 },
  { kind: 'calendar-windows', second: 5 },
];
type Variant = [name: string, scenario: Scenario, untilMs: number, limiters?: AlgorithmConfig[]];
const variants: Variant[] = [
  ['bench', fleetBenchScenario(), 600_000],
  ['rr-local', fleet({ state: 'local' }), 60_000],
  ['random-racy', fleet({ balancer: 'random', state: 'shared-racy', roundTripMs: 20 }), 60_000],
  [
    'lor-divided',
    fleet({
      balancer: 'least-outstanding',
      state: 'local-divided',
      fleet: { service: { kind: 'exponential', meanMs: 40 } },
    }),
    60_000,
  ],
  [
    'weighted-layered-out-local',
    fleet({
      balancer: 'weighted',
      state: 'layered',
      fleet: {
        weights: [5, 1, 1, 0, 2],
        store: { rttMs: 3, jitterMs: 2, outages: [out], onDown: 'local' },
      },
    }),
    60_000,
  ],
  [
    'hash-closed',
    fleet({
      balancer: 'hash',
      fleet: {
        store: {
          rttMs: 2,
          jitterMs: 4,
          timeoutMs: 4,
          outages: [out],
          onDown: 'closed',
          downStatus: 429,
        },
      },
    }),
    60_000,
  ],
  [
    'hash-open-retry',
    fleet(
      {
        balancer: 'hash',
        fleet: { store: { rttMs: 1, jitterMs: 0, outages: [out], onDown: 'open' } },
      },
      {
        retry: {
          onReject: 'backoff',
          maxAttempts: 4,
          backoffBaseMs: 100,
          backoffCapMs: 5000,
          turnaroundMs: 0,
        },
      },
    ),
    60_000,
  ],
  [
    'sync-batching',
    fleet({
      balancer: 'random',
      fleet: { store: { rttMs: 1, jitterMs: 0, outages: [out], onDown: 'open', syncMs: 250 } },
    }),
    60_000,
  ],
  [
    'cache-overlimit',
    fleet(
      {
        balancer: 'hash',
        fleet: {
          store: { rttMs: 1, jitterMs: 1, outages: [], onDown: 'open', cacheOverLimit: true },
        },
      },
      {
        retry: {
          onReject: 'retry-after',
          maxAttempts: 3,
          backoffBaseMs: 100,
          backoffCapMs: 5000,
          turnaroundMs: 0,
        },
      },
    ),
    60_000,
  ],
  [
    'scale-out-in',
    fleet({
      balancer: 'hash',
      state: 'local-divided',
      instances: 4,
      fleet: {
        scale: [
          { atMs: 10_000, instances: 16 },
          { atMs: 40_000, instances: 2 },
        ],
      },
    }),
    60_000,
  ],
  [
    'autoscale',
    fleet({
      balancer: 'round-robin',
      state: 'layered',
      instances: 2,
      fleet: {
        autoscale: { perReplicaRps: 60, everyMs: 5000, min: 1, max: 20 },
        store: { rttMs: 2, jitterMs: 1, outages: [out], onDown: 'local' },
      },
    }),
    60_000,
  ],
  [
    'kong-cluster',
    fleet({
      balancer: 'random',
      fleet: { store: { rttMs: 4, jitterMs: 0, outages: [out], onDown: 'open', kong: 'cluster' } },
    }),
    60_000,
    KONGS,
  ],
  [
    'kong-redis',
    fleet({
      balancer: 'round-robin',
      fleet: { store: { rttMs: 2, jitterMs: 1, outages: [out], onDown: 'closed', kong: 'redis' } },
    }),
    60_000,
    KONGS,
  ],
  [
    'clock-jumps-hash-local',
    fleet(
      {
        balancer: 'hash',
        state: 'layered',
        fleet: { store: { rttMs: 1, jitterMs: 2, outages: [out], onDown: 'local' } },
      },
      {
        clock: {
          mode: 'wall',
          jumps: [
            { atMs: 15_000, byMs: -4000 },
            { atMs: 40_000, byMs: 2500 },
            { atMs: 41_000, byMs: -700 },
          ],
        },
      },
    ),
    60_000,
  ],
  [
    'clock-jumps-racy',
    fleet(
      { balancer: 'random', state: 'shared-racy', roundTripMs: 30 },
      {
        clock: {
          mode: 'wall',
          jumps: [
            { atMs: 15_000, byMs: -4000 },
            { atMs: 41_000, byMs: -700 },
          ],
        },
      },
    ),
    60_000,
  ],
  ['nonfleet-local-rr', fleet({ state: 'local', instances: 3 }), 60_000],
  [
    'nonfleet-atomic',
    fleet(
      { state: 'shared-atomic', instances: 1, balancer: 'round-robin' },
      { clock: { mode: 'wall', jumps: [{ atMs: 10_000, byMs: -3000 }] } },
    ),
    60_000,
  ],
  [
    'one-replica-store',
    fleet({
      instances: 1,
      balancer: 'hash',
      fleet: { store: { rttMs: 1, jitterMs: 0, outages: [out], onDown: 'local' } },
    }),
    60_000,
  ],
];
const only = process.argv[2];
const lines: string[] = [];
for (const [name, sc, until, lims] of variants) {
  if (only !== undefined && only !== name) continue;
  const r = simulate(lims ?? BENCH_LIMITERS, sc, until);
  const seeker = new Seeker(r);
  const seeks = [0, 1234, Math.floor(until / 3), Math.floor(until / 2) + 17, until - 1].map((t) =>
    seeker.stateAt(t, r.keyNames[Math.min(3, r.keyNames.length - 1)]),
  );
  const { lanes, ...rest } = r;
  const parts = [hashOf(rest), ...lanes.map((l) => hashOf(l)), hashOf(seeks)];
  lines.push(
    `${name.padEnd(28)} ${hashOf(r)} seeks ${parts[parts.length - 1]} lanes ${parts.slice(1, -1).join(',')}`,
  );
  console.log(lines[lines.length - 1]);
}
