/**
 * The proof for Traefik's Redis limiter (the `redis:` option, how Traefik instances share a
 * bucket): a Lua script that does what traefik v3.7.9's does (pkg/middlewares/ratelimiter/lua.go,
 * its arguments as redis_limiter.go passes them) runs in a real redis-server with EVALSHA over
 * generated arrivals for several keys and configs, arrivals exactly at the maxDelay boundary, 1 ms
 * either side and at the key's expiry. Every wait string the script returns, the tokens it stores
 * and the decision Traefik makes from the wait (rate_limiter.go) must equal the lab's replay
 * (src/systems/respond/traefikRedis.ts); then the lab's own shared-store Traefik runs (a fleet's
 * store, shared atomic state) must decide every row and write every 429 as the script says.
 *
 * The script takes the time as an argument (Traefik's t, µs), so Redis's own clock is not the
 * trace's: the script's EXPIRE gets a long slack and the harness deletes a key when the trace's
 * clock passes its expiry by Redis's rule (db.c keyIsExpired: now > when, ms), as Redis would have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../src/core';
import { Seeker, decisionAt, simulate } from '../../src/sim';
import type { Deployment, SimResult } from '../../src/sim';
import { deriveConfig, systemById } from '../../src/systems';
import { SCENARIO_EPOCH_MS } from '../../src/systems/response';
import { traefikResponse } from '../../src/systems/respond/traefik';
import { traefikRedisParams, traefikRedisStep } from '../../src/core/algorithms/traefik-redis';
import { luaNumberString } from '../../src/systems/respond/traefikRedis';
import type { TraefikRedisKey, TraefikRedisParams } from '../../src/core/algorithms/traefik-redis';
import { scenario } from '../sim/helpers';
import { seeded } from './gen';
import type { RedisClient } from './servers';
import { findBinary, loudSkip, startRedis } from './servers';
import { proofCount } from '../systems/proofCounts';

const REDIS = findBinary('redis-server');
if (REDIS === undefined)
  loudSkip("Traefik's Redis limiter (tests/export/traefik-redis.server.test.ts)", 'redis-server');

/** Seconds added to the script's EXPIRE so that Redis's real clock never drops a key mid-trace. */
const SLACK_S = 3600;

/**
 * Traefik v3.7.9's token bucket script (lua.go), restated: the same double operations in the same
 * order. ARGV: limit (tokens per µs), burst, ttl (s), t (µs), max delay (whole µs), slack (s).
 * Returns the wait and the stored tokens as tostring writes them.
 */
const SCRIPT = `
local perUs, cap, ttl = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local now, maxWait = tonumber(ARGV[4]), tonumber(ARGV[5])
local held, since = 0, 0
local stored = redis.call('HMGET', KEYS[1], 'last', 'tokens')
if stored[1] and stored[2] then
  since = tonumber(stored[1])
  held = tonumber(stored[2])
end
if now < since then since = now end
local gained = perUs * (now - since)
local level = math.min(held + gained, cap) - 1
local wait = 0
if level < 0 then
  wait = (level * -1) / perUs
  if wait > maxWait then level = math.min(level + 1, cap) end
end
redis.call('HSET', KEYS[1], 'last', now, 'tokens', level)
redis.call('EXPIRE', KEYS[1], ttl + tonumber(ARGV[6]))
return {tostring(wait), tostring(level)}
`;

/** rate_limiter.go: 429 when the wait, as a Duration, is above maxDelay; else wait and pass. */
function goOutcome(p: TraefikRedisParams, wait: string): 'admit' | 'delay' | 'reject' {
  const ns = Math.trunc(Number(wait) * 1000);
  return ns > p.maxDelayNs ? 'reject' : ns > 0 ? 'delay' : 'admit';
}

const traefik = systemById('traefik');
if (traefik === undefined) throw new Error('traefik is registered');

function traefikConfig(average: number, periodMs: number, burst: number): TokenBucketConfig {
  return deriveConfig(traefik as NonNullable<typeof traefik>, {
    kind: 'token-bucket',
    maxTokens: burst,
    tokensPerFill: average,
    fillIntervalMs: periodMs,
  }) as TokenBucketConfig;
}

/** Configs: whole-µs and fractional maxDelay, rates below 1/s (500 ms, ttl > 2 s), bursts 1 – 20. */
const FIXED: ReadonlyArray<readonly [number, number, number]> = [
  [5, 1000, 10],
  [3, 1000, 1],
  [6, 1000, 4],
  [7, 1000, 3],
  [1, 3000, 2],
  [1, 99_000, 1],
  [100, 60_000, 5],
  [50, 1000, 20],
  [13, 1000, 2],
  [2, 250, 3],
  [9, 7000, 2],
  [1000, 1000, 7],
];

describe.skipIf(REDIS === undefined)(
  "Traefik's Redis limiter script on a real redis-server",
  () => {
    let redis: { client: RedisClient; stop(): Promise<void> } | undefined;
    let client: RedisClient;
    let sha = '';
    let prefix = 0;

    beforeAll(async () => {
      redis = await startRedis(REDIS as string, 'traefik');
      client = redis.client;
      sha = await client.scriptLoad(SCRIPT);
    }, 20_000);

    afterAll(async () => {
      await redis?.stop();
    });

    /**
     * Runs requests (Unix ms, key) through the script in order and returns its replies, deleting a
     * key first where Redis would have dropped it by the requests' clock.
     */
    async function runScript(
      p: TraefikRedisParams,
      requests: ReadonlyArray<{ nowMs: number; key: string }>,
    ): Promise<Array<[string, string]>> {
      prefix += 1;
      const expiresAt = new Map<string, number>();
      const pending: Array<Promise<unknown>> = [];
      const replies: Array<Promise<unknown>> = [];
      for (const { nowMs, key } of requests) {
        const redisKey = `rate:${prefix}:${key}`;
        const at = expiresAt.get(key);
        if (at !== undefined && nowMs > at) pending.push(client.del(redisKey));
        expiresAt.set(key, nowMs + p.ttl * 1000);
        const call = client.evalSha(sha, {
          keys: [redisKey],
          arguments: [
            String(p.limit),
            String(p.burst),
            String(p.ttl),
            String(nowMs * 1000),
            String(p.maxDelayUs),
            String(SLACK_S),
          ],
        });
        pending.push(call);
        replies.push(call);
      }
      await Promise.all(pending);
      return (await Promise.all(replies)) as Array<[string, string]>;
    }

    it('returns the wait and tokens the lab replays, and Traefik decides the same, over generated arrivals', async () => {
      const rng = seeded(4141);
      const configs: Array<readonly [number, number, number]> = [...FIXED];
      for (let i = 0; i < 12; i += 1) {
        const average = 1 + Math.floor(rng() * (rng() < 0.5 ? 20 : 400));
        const periodMs = [1000, 1000, 60_000, 250, 3000, 1234, 10_000][
          Math.floor(rng() * 7)
        ] as number;
        configs.push([average, periodMs, 1 + Math.floor(rng() * 12)]);
      }
      let compared = 0;
      let atMaxDelay = 0;
      let passedUntaken = 0;
      let atExpiry = 0;
      let rejected = 0;
      const disagreements: string[] = [];
      for (const [average, periodMs, burst] of configs) {
        const config = traefikConfig(average, periodMs, burst);
        const p = traefikRedisParams(config);
        const keys = ['a', 'b', 'c'];
        // The lab's own state per key, to aim arrivals at the maxDelay boundary and the expiry.
        const state = new Map<string, TraefikRedisKey | undefined>();
        const lastMs = new Map<string, number>();
        const requests: Array<{ nowMs: number; key: string }> = [];
        const expected: Array<
          ReturnType<typeof traefikRedisStep>['step'] & { wait: string; tokens: string }
        > = [];
        let nowMs = SCENARIO_EPOCH_MS + Math.floor(rng() * 1000);
        const intervalMs = periodMs / average;
        for (let i = 0; i < 400; i += 1) {
          const key = keys[Math.floor(rng() * keys.length)] as string;
          const s = state.get(key);
          const pick = rng();
          let at: number;
          if (s !== undefined && pick < 0.3) {
            // When the wait would be exactly max delay (in the script's µs), whole ms, ±1 ms.
            const needUs = (1 - s.tokens) / p.limit - p.maxDelayNs / 1000;
            const base = Math.round((s.lastUs + needUs) / 1000);
            at = Math.max(base + Math.floor(rng() * 3) - 1, (lastMs.get(key) as number) - 2);
          } else if (s !== undefined && pick < 0.38) {
            // At the key's expiry, or 1 ms either side.
            at = s.expiresAtMs + Math.floor(rng() * 3) - 1;
            atExpiry += 1;
          } else if (pick < 0.42) {
            // A step back in time (a wall clock set back).
            at = nowMs - Math.floor(rng() * 50);
          } else {
            at = nowMs + Math.floor(rng() * rng() * 3 * intervalMs);
          }
          nowMs = Math.max(nowMs, at);
          lastMs.set(key, at);
          const r = traefikRedisStep(p, s, at);
          state.set(key, r.key);
          if (Math.abs(r.step.delayNs - p.maxDelayNs) <= 1000) atMaxDelay += 1;
          if (r.step.outcome !== 'reject' && r.step.waitUs > p.maxDelayUs) passedUntaken += 1;
          if (r.step.outcome === 'reject') rejected += 1;
          requests.push({ nowMs: at, key });
          expected.push({
            ...r.step,
            wait: luaNumberString(r.step.waitUs),
            tokens: luaNumberString(r.key.tokens),
          });
        }
        const got = await runScript(p, requests);
        got.forEach(([wait, tokens], i) => {
          const want = expected[i] as (typeof expected)[number];
          const outcome = goOutcome(p, wait);
          if (wait !== want.wait || tokens !== want.tokens || outcome !== want.outcome) {
            disagreements.push(
              `${average}/${periodMs} ms burst ${burst}, request ${i} (${JSON.stringify(requests[i])}): Redis ${wait} ${tokens} ${outcome}, lab ${want.wait} ${want.tokens} ${want.outcome}`,
            );
          }
          compared += 1;
        });
      }
      console.info(
        `Traefik's Redis script vs the lab's replay: ${compared} requests compared (${rejected} 429s, ${atMaxDelay} with a delay within 1 µs of maxDelay, ${passedUntaken} passed without taking their token, ${atExpiry} at a key's expiry ±1 ms), ${disagreements.length} disagreements`,
      );
      expect(disagreements.slice(0, 10)).toEqual([]);
      expect(atMaxDelay).toBeGreaterThan(50);
      expect(passedUntaken).toBeGreaterThan(10);
      expect(compared).toBe(proofCount('Traefik `RateLimit`', 'redisDecisions'));
    }, 120_000);

    it("writes numbers as the real Lua's tostring does, ties rounded to even", async () => {
      const values = [
        1234567890123.25, 1234567890123.75, 166666.001953125, 166666.005859375, 1e-5, 0.0001,
        166666.66666666666, 99999999999999.5, 1e14, -1.1102230246251565e-16,
      ];
      const got = (await client.eval(
        `local out = {}
      for i, v in ipairs(ARGV) do out[i] = tostring(tonumber(v)) end
      return out`,
        { keys: [], arguments: values.map((v) => String(v)) },
      )) as string[];
      expect(got).toEqual(values.map((v) => luaNumberString(v)));
    });

    /** The key of row `row` of the first lane. */
    function keyOf(result: SimResult, row: number): string {
      const origin = result.lanes[0]?.columns.origin[row] as number;
      return result.keyNames[
        result.clientKey[result.arrivals.client[origin] as number] as number
      ] as string;
    }

    it("decides every row of the lab's shared-store Traefik and writes every 429 as the script says", async () => {
      const deployments: Deployment[] = [
        { instances: 3, balancer: 'round-robin', state: 'shared-atomic', roundTripMs: 5 },
        { instances: 3, balancer: 'least-outstanding', state: 'shared-atomic', roundTripMs: 5 },
      ];
      let compared = 0;
      let headers = 0;
      const disagreements: string[] = [];
      for (const [average, periodMs, burst] of FIXED) {
        // Random arrivals at 6× the rate, and arrivals every half interval (twice per ms) and
        // every 500 ms (three times), which meet the maxDelay boundary where a half token is one.
        const ratePerSec = Math.min(400, Math.max(4, (6 * average * 1000) / periodMs));
        const half = Math.max(1, Math.round(periodMs / (2 * average)));
        const timed: number[] = [];
        for (let t = 0; t < 6000 && timed.length < 3000; t += half) timed.push(t, t);
        for (let t = 0; t < 6000; t += 500) timed.push(t, t, t);
        const sources = [
          { kind: 'poisson', ratePerSec, startMs: 0, endMs: 6000 } as const,
          { kind: 'manual', timesMs: timed } as const,
        ];
        for (const [deployment, source] of deployments.flatMap((d) =>
          sources.map((src) => [d, src] as const),
        )) {
          const config = traefikConfig(average, periodMs, burst);
          const p = traefikRedisParams(config);
          const result = simulate(
            [config],
            scenario({
              seed: 41,
              sources: [source],
              clients: {
                count: source.kind === 'manual' ? 1 : 3,
                keying: 'per-client',
                assign: 'round-robin',
              },
              deployment,
            }),
            6000,
          );
          const cols = result.lanes[0]?.columns;
          if (cols === undefined) throw new Error('one lane');
          const seeker = new Seeker(result);
          const requests: Array<{ nowMs: number; key: string }> = [];
          for (let row = 0; row < cols.rows; row += 1) {
            requests.push({
              nowMs: SCENARIO_EPOCH_MS + (cols.arrivalMs[row] as number),
              key: keyOf(result, row),
            });
          }
          const got = await runScript(p, requests);
          const name = `${average}/${periodMs} ms burst ${burst}, ${deployment.balancer}, ${source.kind}`;
          for (let row = 0; row < cols.rows; row += 1) {
            const [wait] = got[row] as [string, string];
            const outcome = goOutcome(p, wait);
            const d = decisionAt(result, 0, row);
            let agree = outcome === d.outcome;
            if (agree && outcome === 'reject') {
              // As the inspector asks for it: the key's history at the store the row met.
              const history = seeker.keyHistoryUpTo(0, row);
              expect(history?.shared).toBe(true);
              const sent = traefikResponse(config, d, {
                ...(history === undefined
                  ? {}
                  : {
                      keyHistoryMs: history.timesMs,
                      keyHistoryConfig: history.config,
                      keyHistoryShared: history.shared,
                    }),
              }).fields;
              const header = (n: string) => sent.find((f) => f.name === n)?.value;
              const ns = Math.trunc(Number(wait) * 1000);
              const seconds = Math.floor(ns / 1e9) + (ns % 1e9) / 1e9;
              agree =
                header('Retry-After') === String(Math.ceil(seconds)) &&
                header('X-Retry-In') === goDuration(ns);
              if (agree) headers += 1;
              else
                disagreements.push(
                  `${name}, row ${row}: lab ${header('Retry-After')} ${header('X-Retry-In')}, script ${wait} (${goDuration(ns)})`,
                );
            } else if (!agree) {
              disagreements.push(
                `${name}, row ${row} at ${cols.arrivalMs[row]} ms: lab ${d.outcome}, script ${wait} → ${outcome}`,
              );
            }
            compared += 1;
          }
        }
      }
      console.info(
        `Traefik's Redis script vs the lab's shared-store Traefik: ${compared} decisions compared, ${disagreements.length} disagreements; ${headers} 429s with Retry-After and X-Retry-In equal`,
      );
      expect(disagreements.slice(0, 20)).toEqual([]);
      expect(headers).toBeGreaterThan(1000);
      expect(compared).toBe(proofCount('Traefik `RateLimit`', 'redisFleetDecisions'));
      expect(headers).toBe(proofCount('Traefik `RateLimit`', 'redisFleetRetryIn'));
    }, 120_000);
  },
);

/**
 * Go's Duration.String() for whole ns, written here independently of the lab's goDurationNs
 * (src/time/time.go): below 1 s in ns, µs or ms with the fraction's trailing zeros cut, else
 * [h][m]s with up to 9 fraction digits.
 */
function goDuration(ns: number): string {
  if (ns === 0) return '0s';
  const trim = (whole: number, frac: number, width: number, unit: string) => {
    const f = String(frac).padStart(width, '0').replace(/0+$/, '');
    return `${whole}${f === '' ? '' : `.${f}`}${unit}`;
  };
  if (ns < 1e3) return `${ns}ns`;
  if (ns < 1e6) return trim(Math.floor(ns / 1e3), ns % 1e3, 3, 'µs');
  if (ns < 1e9) return trim(Math.floor(ns / 1e6), ns % 1e6, 6, 'ms');
  const s = Math.floor(ns / 1e9);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const tail = trim(s % 60, ns % 1e9, 9, 's');
  return h > 0 ? `${h}h${m}m${tail}` : m > 0 ? `${m}m${tail}` : tail;
}

// luaNumberString is what the lab writes for the script's tostring: its known answers.
describe('Lua 5.1 tostring of a number (%.14g)', () => {
  it('writes 14 significant digits as C does', () => {
    expect(luaNumberString(0)).toBe('0');
    expect(luaNumberString(166666.66666666666)).toBe('166666.66666667');
    expect(luaNumberString(83333.33333333333)).toBe('83333.333333333');
    expect(luaNumberString(1e-5)).toBe('1e-05');
    expect(luaNumberString(0.0001)).toBe('0.0001');
    expect(luaNumberString(1e14)).toBe('1e+14');
    expect(luaNumberString(99999999999999.5)).toBe('1e+14');
    expect(luaNumberString(12345678901234)).toBe('12345678901234');
    // A tie on the exact value rounds half to even (glibc): .25 → .2, .75 → .8.
    expect(luaNumberString(1234567890123.25)).toBe('1234567890123.2');
    expect(luaNumberString(1234567890123.75)).toBe('1234567890123.8');
    expect(luaNumberString(-2.5)).toBe('-2.5');
    expect(luaNumberString(-1.1102230246251565e-16)).toBe('-1.1102230246252e-16');
  });
});
