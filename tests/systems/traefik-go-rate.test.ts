/**
 * Traefik's delay from x/time/rate's own float64 bucket (src/systems/respond/goRate.ts): known
 * answers from the real library, the 429's headers, and the key history the inspector replays.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter, createSharedLimiter } from '../../src/core';
import type { TokenBucketConfig } from '../../src/core';
import { Seeker, WHY_DOWN_CLOSED, decisionAt, simulate } from '../../src/sim';
import type { Deployment } from '../../src/sim';
import { deriveConfig, systemById } from '../../src/systems';
import { goDelaysNs, goSeconds } from '../../src/systems/respond/goRate';
import { traefikDelayNs, traefikResponse } from '../../src/systems/respond/traefik';
import { scenario } from '../sim/helpers';

/** 50 requests at 0 ms, then two every 3 ms from 1 ms to 40 ms: one key. */
const TIMES = [...Array.from({ length: 50 }, () => 0)];
for (let t = 1; t <= 40; t += 3) TIMES.push(t, t);

/**
 * Printed by Go 1.19 with Debian's golang.org/x/time 0.3.0 for TIMES at rate 100/s (Traefik's
 * rtl for average 100 per 1 s), burst 50, maxDelay 5 ms: ReserveN(now, 1), DelayFrom(now), and
 * CancelAt(now) when the delay exceeds maxDelay (request index → delay in ns).
 */
const GO_DELAYS: ReadonlyArray<[index: number, ns: number, sent: string]> = [
  [50, 9_000_000, '9ms'],
  [52, 6_000_000, '6ms'],
  [54, 3_000_000, ''],
  [55, 13_000_000, '13ms'],
  [58, 6_999_999, '6.999999ms'],
  [60, 3_999_999, ''],
  [61, 13_999_999, '13.999999ms'],
  [62, 11_000_000, '11ms'],
  [64, 7_999_999, '7.999999ms'],
  [67, 14_999_999, '14.999999ms'],
  [74, 2_999_999, ''],
  [76, 9_999_999, '9.999999ms'],
  [77, 9_999_999, '9.999999ms'],
];

const traefik = systemById('traefik');
if (traefik === undefined) throw new Error('traefik is registered');
const config = deriveConfig(traefik, {
  kind: 'token-bucket',
  maxTokens: 50,
  tokensPerFill: 100,
  fillIntervalMs: 1000,
}) as TokenBucketConfig;

describe('x/time/rate float64 bucket (Traefik)', () => {
  it('gives the real library’s delays to the ns, 1 ns under the exact wait where Go’s does', () => {
    const delays = goDelaysNs(100, 50, 5_000_000, TIMES);
    expect(delays.slice(0, 50).every((d) => d === 0)).toBe(true);
    for (const [i, ns] of GO_DELAYS) expect(delays[i], `request ${i}`).toBe(ns);
  });

  it('writes each 429’s Retry-After and X-Retry-In from the replayed delay', () => {
    const { idleResetS, ...bucket } = config;
    expect(idleResetS).toBe(2);
    const limiter = createLimiter(bucket);
    const sent = new Map<
      number,
      { after: string | undefined; retryIn: string | undefined; exact: number }
    >();
    TIMES.forEach((ms, i) => {
      const before = limiter.inspect(ms, 'k');
      const d = limiter.decide(ms, 'k');
      if (d.outcome !== 'reject') return;
      const fields = traefikResponse(bucket, d, {
        before,
        keyHistoryMs: TIMES.slice(0, i + 1),
      }).fields;
      sent.set(i, {
        after: fields.find((f) => f.name === 'Retry-After')?.value,
        retryIn: fields.find((f) => f.name === 'X-Retry-In')?.value,
        exact: traefikDelayNs(bucket, d, before),
      });
    });
    for (const [i, ns, string] of GO_DELAYS) {
      if (string === '') {
        expect(sent.has(i), `request ${i} waits`).toBe(false);
        continue;
      }
      expect(sent.get(i), `request ${i}`).toEqual({
        after: '1',
        retryIn: string,
        exact: ns % 1_000_000 === 0 ? ns : ns + 1,
      });
    }
  });

  it('starts a source again full after Traefik’s ttl, as its ttlmap drops the bucket', () => {
    // Burst 3 at 1/s, rejecting every wait: the fourth request at 0 ms is refused (1 s, its token
    // restored). At 1.5 s with ttl 1 the bucket was dropped: a new one, full.
    expect(goDelaysNs(1, 3, 0, [0, 0, 0, 0, 1500, 1500, 1500], 1)).toEqual([0, 0, 0, 1e9, 0, 0, 0]);
    // Without it the old bucket has 1.5 tokens: one passes, then 0.5 short each time.
    expect(goDelaysNs(1, 3, 0, [0, 0, 0, 0, 1500, 1500, 1500])).toEqual([
      0, 0, 0, 1e9, 0, 5e8, 5e8,
    ]);
  });

  it('converts as Go’s Duration.Seconds does and refuses spans a double cannot hold to the ns', () => {
    expect(goSeconds(1_500_000_000)).toBe(1.5);
    expect(goSeconds(13_999_999)).toBe(0.013999999);
    expect(Math.ceil(goSeconds(1_000_000_000))).toBe(1);
    expect(Math.ceil(goSeconds(1_000_000_001))).toBe(2);
    expect(() => goDelaysNs(1, 1, 0, [0, 200 * 86_400_000])).toThrow(/2\^53 ns/);
  });
});

describe('a key’s history for the inspector (Seeker.keyTimesUpTo)', () => {
  const deployments: Deployment[] = [
    { instances: 2, balancer: 'random', state: 'local', roundTripMs: 5 },
    { instances: 2, balancer: 'random', state: 'shared-atomic', roundTripMs: 5 },
  ];
  for (const deployment of deployments) {
    it(`replays to the row's own decision (${deployment.state})`, () => {
      const sc = scenario({
        seed: 7,
        sources: [{ kind: 'poisson', ratePerSec: 300, startMs: 0, endMs: 4000 }],
        clients: { count: 3, keying: 'per-client', assign: 'round-robin' },
        deployment,
        clock: { mode: 'wall', jumps: [{ atMs: 2000, byMs: -700 }] },
      });
      // Traefik at 10 per 1 s, burst 3: most requests of a key wait or are refused.
      const slow = deriveConfig(traefik, {
        kind: 'token-bucket',
        maxTokens: 3,
        tokensPerFill: 10,
        fillIntervalMs: 1000,
      });
      const result = simulate([slow], sc, 4000);
      const seeker = new Seeker(result);
      const rows = result.lanes[0]?.columns.rows ?? 0;
      let rejects = 0;
      for (let row = 0; row < rows; row += 17) {
        const history = seeker.keyHistoryUpTo(0, row);
        if (history === undefined) throw new Error('local and atomic stores have a history');
        const times = history.timesMs;
        // The key's history alone, through a fresh limiter, decides the row as the lane did: the
        // shared store's is Traefik's Redis limiter.
        expect(history.shared).toBe(deployment.state === 'shared-atomic');
        const limiter = history.shared ? createSharedLimiter(slow) : createLimiter(slow);
        let last = limiter.decide(times[0] as number, 'k');
        for (const t of times.slice(1)) last = limiter.decide(t, 'k');
        const lane = decisionAt(result, 0, row);
        expect(last.outcome, `row ${row}`).toBe(lane.outcome);
        if (lane.outcome === 'reject') rejects += 1;
      }
      expect(rejects).toBeGreaterThan(20);
    });
  }

  // Fleets: replicas that scale in (losing their state) and back out; divided and layered limits,
  // and a store that is down for a while, set to fall back to the replicas: Traefik has no such
  // setting, so its rows then fail closed with 500 (rate_limiter.go) and no limiter decides them.
  const scale = [
    { atMs: 1200, instances: 1 },
    { atMs: 2100, instances: 3 },
  ];
  const fleets: Deployment[] = [
    { instances: 3, balancer: 'weighted', state: 'local', roundTripMs: 5, fleet: { scale } },
    { instances: 2, balancer: 'least-outstanding', state: 'local-divided', roundTripMs: 5 },
    { instances: 3, balancer: 'hash', state: 'layered', roundTripMs: 5, fleet: { scale } },
    {
      instances: 2,
      balancer: 'least-outstanding',
      state: 'shared-atomic',
      roundTripMs: 5,
      fleet: {
        store: { rttMs: 1, jitterMs: 0, outages: [{ fromMs: 1000, toMs: 2500 }], onDown: 'local' },
      },
    },
  ];
  for (const deployment of fleets) {
    it(`replays a fleet row's own store to its decision (${deployment.state}, ${deployment.balancer})`, () => {
      const sc = scenario({
        seed: 11,
        sources: [{ kind: 'poisson', ratePerSec: 300, startMs: 0, endMs: 4000 }],
        clients: { count: 3, keying: 'per-client', assign: 'round-robin' },
        deployment,
      });
      // 2 per 1 s, burst 4: a replica scaled in and out again starts full, as the old one
      // would not have been.
      const slow = deriveConfig(traefik, {
        kind: 'token-bucket',
        maxTokens: 4,
        tokensPerFill: 2,
        fillIntervalMs: 1000,
      });
      const result = simulate([slow], sc, 4000);
      const seeker = new Seeker(result);
      const lane = result.lanes[0];
      const rows = lane?.columns.rows ?? 0;
      let rejects = 0;
      let replayed = 0;
      let closed = 0;
      for (let row = 0; row < rows; row += 7) {
        const history = seeker.keyHistoryUpTo(0, row);
        const lane = decisionAt(result, 0, row);
        if (history === undefined) {
          // Only rows no limiter decided (the store down: Traefik fails closed) have none.
          expect(deployment.state, `row ${row}`).toBe('shared-atomic');
          expect(result.lanes[0]?.fleet?.why[row], `row ${row}`).toBe(WHY_DOWN_CLOSED);
          expect(lane.outcome, `row ${row}`).toBe('reject');
          closed += 1;
          continue;
        }
        const limiter = history.shared
          ? createSharedLimiter(history.config)
          : createLimiter(history.config);
        let last = limiter.decide(history.timesMs[0] as number, 'k');
        for (const t of history.timesMs.slice(1)) last = limiter.decide(t, 'k');
        expect(last.outcome, `row ${row}`).toBe(lane.outcome);
        replayed += 1;
        if (lane.outcome === 'reject') rejects += 1;
      }
      // About 1,200 requests, every 7th looked at; a store down for 1.5 s of 4 s takes its share.
      expect(replayed).toBeGreaterThan(deployment.state === 'shared-atomic' ? 80 : 100);
      expect(closed > 0).toBe(deployment.state === 'shared-atomic');
      expect(rejects).toBeGreaterThan(20);
    });
  }

  it('has none where the store a row met is not fixed by its instance', () => {
    const result = simulate(
      [config],
      scenario({
        deployment: { instances: 2, balancer: 'round-robin', state: 'shared-racy', roundTripMs: 5 },
      }),
      1000,
    );
    expect(new Seeker(result).keyTimesUpTo(0, 0)).toBeUndefined();
  });
});
