/**
 * Proof for the Envoy global rate limit model: the Redis commands envoyproxy/ratelimit's Redis
 * backend issues (src/redis/fixed_cache_impl.go DoLimit: for every descriptor INCRBY
 * <domain>_<descriptor>_<(now / divider) · divider> <hits> and EXPIRE <divider>; OVER_LIMIT iff the
 * count after the increment > requests_per_unit, src/limiter/base_limiter.go), replayed on a real
 * redis-server, against the calendar-windows core config the system model derives (align epoch,
 * rejected hits counted). Every decision and every counter value is compared.
 *
 * Half the runs set shadow_mode (base_limiter.go: an OVER_LIMIT status becomes OK, its
 * limit_remaining stays 0; the INCRBY happened all the same): the model must admit, report the
 * service's limit_remaining, and keep the very same counters. The x-ratelimit-* headers Envoy's
 * filter builds from those statuses (ratelimit_headers.cc, DRAFT_VERSION_03) are compared too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig, CalendarWindowsInspection } from '../../src/core';
import { UNIT_SECONDS, calendarUnits, createLimiter } from '../../src/core';
import { envoyGlobal } from '../../src/systems/envoy-global';
import { int, seeded } from '../export/gen';
import { findBinary, loudSkip, startRedis } from '../export/servers';
import type { RedisClient } from '../export/servers';
import { responseOf } from '../../src/systems/respond';
import { proofCount } from './proofCounts';

const REDIS = findBinary('redis-server');
if (REDIS === undefined)
  loudSkip(
    'the Envoy global rate limit Redis proof (tests/systems/envoy-global.redis.server.test.ts)',
    'redis-server',
  );

describe.skipIf(REDIS === undefined)(
  'envoyproxy/ratelimit Redis commands on a real redis-server = model',
  () => {
    let redis: { client: RedisClient; stop(): Promise<void> } | undefined;
    let client: RedisClient;

    beforeAll(async () => {
      redis = await startRedis(REDIS as string, 'envoy-global');
      client = redis.client;
    }, 20_000);

    afterAll(async () => {
      await redis?.stop();
    });

    /**
     * Runs seeded traces through Redis and the model and compares every decision. With `edges`,
     * a third of the requests land exactly on a unit's window boundary (a multiple of its divider
     * in whole seconds, 0 ms) or 1 ms either side: the service's `now / divider` changes exactly
     * there.
     */
    async function compareTraces(
      seed: number,
      runs: number,
      prefix: string,
      edges: boolean,
    ): Promise<{ compared: number; rejects: number; shadowed: number; atEdge: number[] }> {
      const rng = seeded(seed);
      let compared = 0;
      let rejects = 0;
      let shadowed = 0;
      // Requests 1 ms before, exactly at, and 1 ms after a window boundary.
      const atEdge = [0, 0, 0];
      for (let run = 0; run < runs; run++) {
        const units = (['second', 'minute', 'hour', 'day'] as const).filter(() => rng() < 0.5);
        if (units.length === 0) units.push('minute');
        let limit = int(rng, 1, 6);
        const user: AlgorithmConfig = { kind: 'calendar-windows' };
        for (const u of units) {
          user[u] = limit;
          limit += int(rng, 0, 10);
        }
        const shadow = run % 2 === 1;
        if (shadow && user.kind === 'calendar-windows') user.shadowMode = true;
        const config = envoyGlobal.derive?.(user) ?? user;
        const model = createLimiter(config);
        expect(config).toMatchObject({ align: 'epoch', countRejected: true });
        expect(config.kind === 'calendar-windows' && config.shadowMode === true).toBe(shadow);
        const list = config.kind === 'calendar-windows' ? calendarUnits(config) : [];
        let sec = [0, 1_700_000_000, int(rng, 1, 2e9)][int(rng, 0, 2)] as number;
        for (let i = 0; i < 60; i++) {
          let nowMs: number;
          if (edges && rng() < 0.35 && list.length > 0) {
            // The next boundary of one of the descriptors' units, −1, 0 or +1 ms.
            const unit = list[int(rng, 0, list.length - 1)];
            const divider = unit === undefined ? 1 : UNIT_SECONDS[unit.unit];
            const off = int(rng, -1, 1);
            // The service reads whole seconds (time.Now().Unix()): the boundary second's start.
            nowMs = (Math.floor(sec / divider) + 1) * divider * 1000 + off;
            atEdge[off + 1] = (atEdge[off + 1] as number) + 1;
            sec = Math.floor(nowMs / 1000);
          } else {
            const r = rng();
            sec +=
              r < 0.5
                ? 0
                : r < 0.8
                  ? int(rng, 1, 3)
                  : r < 0.95
                    ? int(rng, 50, 70)
                    : int(rng, 3000, 90_000);
            nowMs = sec * 1000 + int(rng, 0, 999);
          }
          const key = rng() < 0.8 ? 'alice' : 'bob';
          // fixed_cache_impl.go: every descriptor is incremented, then each is compared.
          let over = false;
          const counts: number[] = [];
          // Per descriptor: limit_remaining and duration_until_reset as the service reports them.
          const statuses: Array<{
            limit: number;
            window: number;
            remaining: number;
            reset: number;
          }> = [];
          for (const u of list) {
            const divider = UNIT_SECONDS[u.unit];
            const redisKey = `${prefix}${run}_${key}_${u.unit}_${Math.floor(sec / divider) * divider}`;
            const n = await client.incrBy(redisKey, 1);
            await client.expire(redisKey, divider);
            counts.push(n);
            if (n > u.limit) over = true;
            statuses.push({
              limit: u.limit,
              window: divider,
              remaining: n > u.limit ? 0 : u.limit - n,
              reset: divider - (sec % divider),
            });
          }
          // ratelimit_headers.cc: the first status with the least limit_remaining.
          const least = statuses.reduce((a, b) => (b.remaining < a.remaining ? b : a));
          const before = model.inspect(nowMs, key);
          const d = model.decide(nowMs, key);
          const ins = model.inspect(nowMs, key) as CalendarWindowsInspection;
          const response = responseOf(envoyGlobal)(config, d, {
            standardHeaders: true,
            nowMs,
            before,
          });
          expect({
            nowMs,
            key,
            outcome: d.outcome,
            remaining: d.remaining,
            counts: ins.windows.map((w) => w.count),
            status: response.status,
            headers: response.headers,
          }).toEqual({
            nowMs,
            key,
            outcome: over && !shadow ? 'reject' : 'admit',
            remaining: least.remaining,
            counts,
            status: over && !shadow ? 429 : 200,
            headers: [
              ...(over && !shadow ? [['x-envoy-ratelimited', 'true']] : []),
              [
                'x-ratelimit-limit',
                `${least.limit}${statuses.map((st) => `, ${st.limit};w=${st.window}`).join('')}`,
              ],
              ['x-ratelimit-remaining', String(least.remaining)],
              ['x-ratelimit-reset', String(least.reset)],
            ],
          });
          compared += 1;
          if (over && !shadow) rejects += 1;
          if (over && shadow) shadowed += 1;
        }
      }
      return { compared, rejects, shadowed, atEdge };
    }

    it('every decision and counter equals the model over seeded traces', async () => {
      const { compared, rejects, shadowed } = await compareTraces(13_005, 40, 'run', false);
      console.info(
        `envoyproxy/ratelimit Redis commands vs model: ${compared} decisions compared (status, remaining, counters, x-ratelimit-* headers), ${rejects} over limit and rejected, ${shadowed} over limit in shadow_mode and passed, 0 disagreements`,
      );
      expect(rejects).toBeGreaterThan(50);
      expect(shadowed).toBeGreaterThan(50);
      // The counts the README's proof table states.
      expect(compared).toBe(proofCount('Envoy global rate limit service', 'decisions'));
      expect(rejects).toBe(proofCount('Envoy global rate limit service', 'rejected'));
      expect(shadowed).toBe(proofCount('Envoy global rate limit service', 'shadowPassed'));
    }, 120_000);

    it('at every window boundary, exactly and 1 ms either side, as the service counts', async () => {
      const { compared, rejects, shadowed, atEdge } = await compareTraces(13_105, 40, 'edge', true);
      console.info(
        `envoyproxy/ratelimit at window boundaries vs model: ${compared} decisions compared, ${atEdge[1]} exactly on a boundary, ${atEdge[0]} 1 ms before, ${atEdge[2]} 1 ms after; ${rejects} rejected, ${shadowed} passed in shadow_mode, 0 disagreements`,
      );
      expect(atEdge.every((n) => n > 100)).toBe(true);
      expect(rejects).toBeGreaterThan(50);
      // The counts the README's proof table states.
      expect(compared).toBe(proofCount('Envoy global rate limit service', 'edges'));
      expect(atEdge).toEqual([
        proofCount('Envoy global rate limit service', 'before'),
        proofCount('Envoy global rate limit service', 'onBoundary'),
        proofCount('Envoy global rate limit service', 'after'),
      ]);
    }, 120_000);
  },
);
