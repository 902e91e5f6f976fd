/**
 * Proof for Kong's rate-limiting plugin (local policy) at its window boundaries: requests exactly
 * at a period's UTC start (second … year, calendar months and leap years) and 1 ms either side,
 * and exactly when a counter's TTL runs out (and 1 ms either side). Three answers are compared per
 * request: a reference written here from Kong's source (3.10, master 22246ef), the core model the
 * kong system derives, and that model's Redis Lua export on a real redis-server.
 *
 * The reference, from the source:
 * - kong/tools/timestamp.lua get_timestamps: the UTC start of the second, minute, hour, day, month
 *   and year of `now` (ms), each a counter's key.
 * - kong/plugins/rate-limiting/handler.lua get_usage: per configured period, remaining =
 *   limit − usage; any remaining ≤ 0 stops the request (429); a passed request is then counted.
 * - policies/init.lua, local policy: usage = shm:get(key) or 0; increment = shm:incr(key, 1, 0,
 *   EXPIRATION[period]) — a counter made by its first increment lives EXPIRATION[period] seconds
 *   (expiration.lua: 1, 60, 3600, 86400, 2592000, 31536000).
 * - lua-nginx-module ngx_http_lua_shdict.c lookup: an entry with expires − now ≤ 0 is gone, so a
 *   counter is gone exactly at its creation + TTL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig, CalendarUnit } from '../../src/core';
import { calendarUnits, createLimiter } from '../../src/core';
import { toRedisLua } from '../../src/export';
import { kong } from '../../src/systems/kong';
import { int, seeded } from '../export/gen';
import type { Rng } from '../export/gen';
import { findBinary, loudSkip, startRedis } from '../export/servers';
import type { RedisClient } from '../export/servers';
import { proofCount } from './proofCounts';

const REDIS = findBinary('redis-server');
if (REDIS === undefined)
  loudSkip(
    'the Kong window-boundary proof (tests/systems/kong.redis.server.test.ts)',
    'redis-server',
  );

/** expiration.lua: each period's counter TTL, in seconds. */
const EXPIRATION: Record<CalendarUnit, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  month: 2_592_000,
  year: 31_536_000,
};

/** timestamp.lua get_timestamps: the UTC start of `unit` containing `nowMs`. */
function periodStart(unit: CalendarUnit, nowMs: number): number {
  const d = new Date(nowMs);
  const y = d.getUTCFullYear();
  const mo = d.getUTCMonth();
  const day = d.getUTCDate();
  switch (unit) {
    case 'second':
      return Math.floor(nowMs / 1000) * 1000;
    case 'minute':
      return Math.floor(nowMs / 60_000) * 60_000;
    case 'hour':
      return Math.floor(nowMs / 3_600_000) * 3_600_000;
    case 'day':
      return Date.UTC(y, mo, day);
    case 'month':
      return Date.UTC(y, mo, 1);
    case 'year':
      return Date.UTC(y, 0, 1);
  }
}

/** The next period start of `unit` after `nowMs`. */
function nextStart(unit: CalendarUnit, nowMs: number): number {
  const s = periodStart(unit, nowMs);
  const d = new Date(s);
  if (unit === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  if (unit === 'year') return Date.UTC(d.getUTCFullYear() + 1, 0, 1);
  return s + EXPIRATION[unit] * 1000;
}

/** Kong's local policy on one node, requests one at a time (see the file's comment). */
class KongLocal {
  private readonly counters = new Map<string, { value: number; expiresAtMs: number }>();
  /** Creation times of counters, for traces that aim at their expiry. */
  readonly created: Array<{ unit: CalendarUnit; atMs: number }> = [];

  constructor(private readonly limits: ReadonlyArray<{ unit: CalendarUnit; limit: number }>) {}

  private live(key: string, nowMs: number): { value: number; expiresAtMs: number } | undefined {
    const c = this.counters.get(key);
    return c !== undefined && c.expiresAtMs - nowMs > 0 ? c : undefined;
  }

  decide(nowMs: number, id: string): 'admit' | 'reject' {
    const keyOf = (unit: CalendarUnit) => `${id}:${unit}:${periodStart(unit, nowMs)}`;
    let stop = false;
    for (const { unit, limit } of this.limits) {
      if (limit - (this.live(keyOf(unit), nowMs)?.value ?? 0) <= 0) stop = true;
    }
    if (stop) return 'reject';
    for (const { unit } of this.limits) {
      const key = keyOf(unit);
      const c = this.live(key, nowMs);
      if (c !== undefined) c.value += 1;
      else {
        this.counters.set(key, { value: 1, expiresAtMs: nowMs + EXPIRATION[unit] * 1000 });
        this.created.push({ unit, atMs: nowMs });
      }
    }
    return 'admit';
  }
}

const ALL: CalendarUnit[] = ['second', 'minute', 'hour', 'day', 'month', 'year'];

function randomKong(rng: Rng): AlgorithmConfig {
  const units = ALL.filter(() => rng() < 0.45);
  if (units.length === 0) units.push(ALL[int(rng, 0, 5)] as CalendarUnit);
  const user: AlgorithmConfig = { kind: 'calendar-windows', counterTtl: true };
  let limit = int(rng, 1, 4);
  for (const u of units) {
    user[u] = limit;
    limit += int(rng, 0, 6);
  }
  return kong.derive?.(user) ?? user;
}

describe.skipIf(REDIS === undefined)('Kong rate-limiting (local) at window boundaries', () => {
  let redis: { client: RedisClient; stop(): Promise<void> } | undefined;
  let client: RedisClient;

  beforeAll(async () => {
    redis = await startRedis(REDIS as string, 'kong');
    client = redis.client;
  }, 20_000);

  afterAll(async () => {
    await redis?.stop();
  });

  it('Kong source = model = Lua on redis-server, exactly at period starts and counter expiries, ± 1 ms', async () => {
    const rng = seeded(41_041);
    let compared = 0;
    const atEdge = [0, 0, 0];
    const atExpiry = [0, 0, 0];
    let rejects = 0;
    for (let run = 0; run < 60; run++) {
      const config = randomKong(rng);
      expect(config).toMatchObject({ kind: 'calendar-windows', counterTtl: true });
      if (config.kind !== 'calendar-windows') throw new Error('Kong derives calendar windows');
      const units = calendarUnits(config).map((u) => ({ unit: u.unit, limit: u.limit }));
      const ref = new KongLocal(units);
      const model = createLimiter(config);
      // Redis expires keys by its own clock while the trace runs on virtual time: the slack keeps
      // a key from vanishing between two virtual instants (as tests/export/redis.server.test.ts).
      const sha = await client.scriptLoad(toRedisLua(config, { expirySlackMs: 600_000 }).script);
      // 2024 (a leap year) to 2028: 31-day months and 366-day years, where the TTL runs out first.
      let t =
        Date.UTC(2024 + int(rng, 0, 4), int(rng, 0, 11), int(rng, 1, 28)) + int(rng, 0, 86_399_999);
      for (let i = 0; i < 80; i++) {
        const r = rng();
        const off = int(rng, -1, 1);
        if (r < 0.25) {
          // a tie
        } else if (r < 0.6) {
          const unit = (units[int(rng, 0, units.length - 1)] as { unit: CalendarUnit }).unit;
          const edge = nextStart(unit, t) + off;
          if (edge >= t) {
            t = edge;
            atEdge[off + 1] = (atEdge[off + 1] as number) + 1;
          }
        } else if (r < 0.8 && ref.created.length > 0) {
          const c = ref.created[int(rng, 0, ref.created.length - 1)] as {
            unit: CalendarUnit;
            atMs: number;
          };
          const end = c.atMs + EXPIRATION[c.unit] * 1000 + off;
          if (end >= t) {
            t = end;
            atExpiry[off + 1] = (atExpiry[off + 1] as number) + 1;
          }
        } else {
          t += int(rng, 1, 1500);
        }
        const want = ref.decide(t, 'client');
        const d = model.decide(t, 'client');
        const reply = (await client.evalSha(sha, {
          keys: [`kong:${run}`],
          arguments: [String(t)],
        })) as number[];
        const lua = (['admit', 'delay', 'reject'] as const)[reply[0] as number];
        expect({ run, t, model: d.outcome, lua }).toEqual({ run, t, model: want, lua: want });
        compared += 1;
        if (want === 'reject') rejects += 1;
      }
    }
    console.info(
      `Kong (source) vs model vs Lua on redis-server at window boundaries: ${compared} decisions compared; period starts: ${atEdge[1]} exactly, ${atEdge[0]} 1 ms before, ${atEdge[2]} 1 ms after; counter TTL ends: ${atExpiry[1]} exactly, ${atExpiry[0]} 1 ms before, ${atExpiry[2]} 1 ms after; ${rejects} rejected; 0 disagreements`,
    );
    expect(Math.min(...atEdge)).toBeGreaterThan(100);
    expect(Math.min(...atExpiry)).toBeGreaterThan(30);
    expect(rejects).toBeGreaterThan(200);
    // The counts the README's proof table states.
    expect(compared).toBe(proofCount('Kong `rate-limiting`', 'edges'));
    expect(atEdge[1]).toBe(proofCount('Kong `rate-limiting`', 'atPeriodStart'));
    expect((atEdge[0] as number) + (atEdge[2] as number)).toBe(
      proofCount('Kong `rate-limiting`', 'besidePeriodStart'),
    );
    expect(atExpiry[1]).toBe(proofCount('Kong `rate-limiting`', 'atTtlEnd'));
    expect((atExpiry[0] as number) + (atExpiry[2] as number)).toBe(
      proofCount('Kong `rate-limiting`', 'besideTtlEnd'),
    );
    expect(rejects).toBe(proofCount('Kong `rate-limiting`', 'rejected'));
  }, 120_000);
});
