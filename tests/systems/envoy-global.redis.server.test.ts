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

    it('every decision and counter equals the model over seeded traces', async () => {
      const rng = seeded(13_005);
      let compared = 0;
      let rejects = 0;
      let shadowed = 0;
      for (let run = 0; run < 40; run++) {
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
          const r = rng();
          sec +=
            r < 0.5
              ? 0
              : r < 0.8
                ? int(rng, 1, 3)
                : r < 0.95
                  ? int(rng, 50, 70)
                  : int(rng, 3000, 90_000);
          const nowMs = sec * 1000 + int(rng, 0, 999);
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
            const redisKey = `run${run}_${key}_${u.unit}_${Math.floor(sec / divider) * divider}`;
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
      console.info(
        `envoyproxy/ratelimit Redis commands vs model: ${compared} decisions compared (status, remaining, counters, x-ratelimit-* headers), ${rejects} over limit and rejected, ${shadowed} over limit in shadow_mode and passed, 0 disagreements`,
      );
      expect(rejects).toBeGreaterThan(50);
      expect(shadowed).toBeGreaterThan(50);
    }, 120_000);
  },
);
