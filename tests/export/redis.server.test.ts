/**
 * The proof for the Redis export: every exported Lua script runs in a real redis-server and must
 * decide exactly as the core does — outcome, delayMs, retryAfterMs, remaining and resetMs — over
 * seeded random traces with explicit nowMs (several keys, ties, clock jumps both ways).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig, Decision } from '../../src/core';
import { ALGORITHM_KINDS, MAX_TIME_MS, NEVER_MS, createLimiter } from '../../src/core';
import { toRedisLua } from '../../src/export';
import type { Request } from './gen';
import { boundaryTrace, randomConfig, randomTrace, seeded } from './gen';
import type { RedisClient } from './servers';
import { findBinary, loudSkip, startRedis } from './servers';
import { proofCount } from '../systems/proofCounts';

const REDIS = findBinary('redis-server');
if (REDIS === undefined)
  loudSkip('the Redis export comparison (tests/export/redis.server.test.ts)', 'redis-server');

type Reply = [number, number, number, number, number];

const OUTCOMES = ['admit', 'delay', 'reject'] as const;
/** Keeps keys from expiring by real time while a trace runs on virtual time (see replay). */
const SLACK_MS = 600_000;

function asDecisionTuple(d: Decision): Reply {
  return [OUTCOMES.indexOf(d.outcome), d.delayMs, d.retryAfterMs, d.remaining, d.resetMs];
}

/** The README's proof table rows that state one algorithm's random-trace count on redis-server. */
const STATED_PER_KIND: Partial<Record<AlgorithmConfig['kind'], () => number>> = {
  gcra: () => proofCount('redis-cell `CL.THROTTLE`', 'lua'),
  'fixed-window': () => proofCount('Redis INCR + EXPIRE', 'each'),
  'sliding-log': () => proofCount('Redis INCR + EXPIRE', 'each'),
  'sliding-window-counter': () => proofCount('Redis two-window counter', 'lua'),
  'calendar-windows': () => proofCount('Kong `rate-limiting`', 'lua'),
};

describe.skipIf(REDIS === undefined)('Redis Lua export against a real redis-server', () => {
  let redis: { client: RedisClient; stop(): Promise<void> } | undefined;
  let client: RedisClient;
  const checked: Record<string, number> = {};
  /** Per kind: admits, delays, rejects, deletions standing in for expiry, backward clock steps. */
  const seen: Record<
    string,
    { admit: number; delay: number; reject: number; expired: number; backwards: number }
  > = {};

  beforeAll(async () => {
    redis = await startRedis(REDIS as string, 'redis');
    client = redis.client;
  }, 20_000);

  afterAll(async () => {
    try {
      await redis?.stop();
    } finally {
      const total = Object.values(checked).reduce((a, b) => a + b, 0);
      console.info(`Redis vs core: ${total} decisions compared`, checked, seen);
    }
  });

  async function load(config: AlgorithmConfig, expirySlackMs: number): Promise<string> {
    return client.scriptLoad(toRedisLua(config, { expirySlackMs }).script);
  }

  async function evalAt(sha: string, key: string, nowMs?: number): Promise<Reply> {
    const args = nowMs === undefined ? [] : [String(nowMs)];
    return (await client.evalSha(sha, { keys: [key], arguments: args })) as Reply;
  }

  /**
   * Runs `trace` through the core and through the script (pipelined, in order), then compares every
   * reply, and the key's PTTL after it (resetMs + slack). Where a key would already have expired by
   * the trace's own clock, it is deleted first half of the time, as Redis would have done: the
   * decision must not change.
   */
  async function replay(
    config: AlgorithmConfig,
    trace: Request[],
    prefix: string,
    rngSeed: number,
  ): Promise<number> {
    const stats = (seen[config.kind] ??= {
      admit: 0,
      delay: 0,
      reject: 0,
      expired: 0,
      backwards: 0,
    });
    const sha = await load(config, SLACK_MS);
    const limiter = createLimiter(config);
    const rng = seeded(rngSeed);
    const expiresAt = new Map<string, number>();
    const expected: Reply[] = [];
    const pending: Array<Promise<unknown>> = [];
    for (const { nowMs, key } of trace) {
      const redisKey = `${prefix}:${key}`;
      const at = expiresAt.get(key);
      if (at !== undefined && nowMs >= at && rng() < 0.5) {
        pending.push(client.del(redisKey));
        stats.expired += 1;
      }
      const d = limiter.decide(nowMs, key);
      stats[d.outcome] += 1;
      expected.push(asDecisionTuple(d));
      expiresAt.set(key, nowMs + d.resetMs);
      pending.push(evalAt(sha, redisKey, nowMs), client.pTTL(redisKey));
    }
    const replies = await Promise.all(pending);
    const got = replies.filter((r) => Array.isArray(r)) as Reply[];
    const ttls = replies.filter(
      (r, i) => typeof r === 'number' && Array.isArray(replies[i - 1]),
    ) as number[];
    expect(got).toHaveLength(trace.length);
    for (let i = 0; i < trace.length; i += 1) {
      const req = trace[i] as Request;
      if (i > 0 && req.nowMs < (trace[i - 1] as Request).nowMs) stats.backwards += 1;
      const want = expected[i] as Reply;
      if (JSON.stringify(got[i]) !== JSON.stringify(want)) {
        expect.fail(
          `${JSON.stringify(config)}: request ${i} (${req.key} at ${req.nowMs}): Redis ${JSON.stringify(got[i])} vs core ${JSON.stringify(want)}\n` +
            `trace so far: ${JSON.stringify(trace.slice(Math.max(0, i - 8), i + 1))}`,
        );
      }
      const ttl = ttls[i] as number;
      const full = want[4] + SLACK_MS;
      // A record that never expires has no TTL (PTTL −1).
      const never = want[4] === NEVER_MS && ttl === -1;
      if (!never && !(ttl <= full && ttl >= full - 1000)) {
        expect.fail(
          `${JSON.stringify(config)}: request ${i}: PTTL ${ttl}, expected ${full} (resetMs ${want[4]} + slack)`,
        );
      }
    }
    return trace.length;
  }

  for (const kind of ALGORITHM_KINDS) {
    it(`${kind}: every decision equals the core's over seeded random traces`, async () => {
      const seed = 1000 + ALGORITHM_KINDS.indexOf(kind);
      const rng = seeded(seed);
      let n = 0;
      for (let run = 0; run < 30; run += 1) {
        // nginx's zone forgets a drained node idle for 60 s, either way in time
        // (ngx_http_limit_req_expire uses |now − last|), when a new key arrives: a difference the
        // script documents. Leaky-bucket traces with several keys therefore keep the clock within
        // 59 s of the latest time and use rates that drain a full bucket within 60 s; traces with
        // one key (no new node, no expiry) take any config and any jump.
        const lruSafe = kind === 'leaky-bucket' && run % 2 === 0;
        const config = randomConfig(rng, kind, lruSafe);
        const maxBackMs = lruSafe ? 59_000 : Number.POSITIVE_INFINITY;
        const keyCount = kind === 'leaky-bucket' && !lruSafe ? 1 : undefined;
        const trace = randomTrace(rng, config, 500, maxBackMs, keyCount);
        n += await replay(config, trace, `${kind}:${run}`, seed * 31 + run);
      }
      checked[kind] = n;
      // The count the README's proof table states for the rows this kind's script proves.
      const stated = STATED_PER_KIND[kind];
      if (stated !== undefined) expect(n).toBe(stated());
    }, 60_000);
  }

  it('every algorithm: requests exactly at a window boundary and 1 ms either side decide as the core', async () => {
    let n = 0;
    let edges = 0;
    for (const kind of ALGORITHM_KINDS) {
      const seed = 5000 + ALGORITHM_KINDS.indexOf(kind);
      const rng = seeded(seed);
      for (let run = 0; run < 10; run += 1) {
        const config = randomConfig(rng, kind, kind === 'leaky-bucket');
        // One key for nginx's model: a second key arriving would let its zone forget an idle one.
        const { trace, atBoundary } = boundaryTrace(
          rng,
          config,
          300,
          kind === 'leaky-bucket' ? 1 : undefined,
        );
        n += await replay(config, trace, `edge:${kind}:${run}`, seed * 31 + run);
        edges += atBoundary;
      }
    }
    console.info(
      `Redis vs core at window boundaries: ${n} decisions compared (${edges} exactly on a boundary), 0 disagreements`,
    );
    expect(edges).toBeGreaterThan(1000);
    // The counts the README's proof table states.
    expect(n).toBe(proofCount('Redis INCR + EXPIRE', 'edges'));
    expect(n).toBe(proofCount('Redis two-window counter', 'edges'));
    expect(edges).toBe(proofCount('Redis INCR + EXPIRE', 'onBoundary'));
  }, 120_000);

  it('anchored window with windowMs 0 (rate-limiter-flexible duration 0: points never expire) decides as the core', async () => {
    const rng = seeded(5100);
    let n = 0;
    for (let run = 0; run < 24; run += 1) {
      const limit = 1 + Math.floor(rng() * 5);
      const config: AlgorithmConfig = {
        kind: 'anchored-window',
        limit,
        windowMs: 0,
        countRejected: true,
        ...(run % 2 === 1 ? { blockMs: 1 + Math.floor(rng() * 5000) } : {}),
        ...(run % 3 === 0 ? { execEvenly: true } : {}),
        ...(run % 4 === 0 && limit > 1 ? { cost: 2 } : {}),
      };
      const trace = randomTrace(rng, config, 300, Number.POSITIVE_INFINITY);
      n += await replay(config, trace, `never:${run}`, 5100 + run);
    }
    console.info(`Redis vs core, windowMs 0: ${n} decisions compared, 0 disagreements`);
    expect(n).toBe(24 * 300);
  }, 60_000);

  it('known answers: nginx burst=5 passes 6 simultaneous requests, then rejects with the drain time', async () => {
    const sha = await load(
      { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 'nodelay' },
      0,
    );
    const replies: Reply[] = [];
    for (let i = 0; i < 7; i += 1) replies.push(await evalAt(sha, 'known:nginx', 1000));
    expect(replies.slice(0, 6).map((r) => r[0])).toEqual([0, 0, 0, 0, 0, 0]);
    expect(replies.map((r) => r[3])).toEqual([5, 4, 3, 2, 1, 0, 0]);
    // excess is 5000 at 2000 milli-requests per second: one request drains in 500 ms.
    expect(replies[6]).toEqual([2, 0, 500, 0, 3000]);
  });

  it('known answers: redis-cell GCRA burst=2 count=1 period=1000 ms', async () => {
    const sha = await load({ kind: 'gcra', count: 1, periodMs: 1000, burst: 2 }, 0);
    const at0 = [];
    for (let i = 0; i < 4; i += 1) at0.push(await evalAt(sha, 'known:gcra', 0));
    // limit 3: remaining 2, 1, 0, then a reject that may retry when one emission interval has passed
    expect(at0).toEqual([
      [0, 0, 0, 2, 1000],
      [0, 0, 0, 1, 2000],
      [0, 0, 0, 0, 3000],
      [2, 0, 1000, 0, 3000],
    ]);
  });

  it('expires keys exactly when the limiter is idle again (PEXPIRE = resetMs)', async () => {
    const sha = await load({ kind: 'fixed-window', limit: 2, windowMs: 10_000 }, 0);
    const reply = await evalAt(sha, 'ttl:fw', 123_456);
    // window [120000, 130000): idle again at its end, 6544 ms later
    expect(reply).toEqual([0, 0, 0, 1, 6544]);
    const ttl = await client.pTTL('ttl:fw');
    expect(ttl).toBeLessThanOrEqual(6544);
    expect(ttl).toBeGreaterThan(6544 - 1000);

    // A token bucket that refills in 150 ms, by Redis's own clock: the key must vanish on its own.
    const tb = await load(
      { kind: 'token-bucket', maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 50 },
      0,
    );
    const first = await evalAt(tb, 'ttl:tb');
    expect(first).toEqual([0, 0, 0, 2, 50]);
    expect(await client.exists('ttl:tb')).toBe(1);
    const deadline = Date.now() + 3000;
    while ((await client.exists('ttl:tb')) === 1 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await client.exists('ttl:tb')).toBe(0);
  });

  it('falls back to Redis TIME when nowMs is omitted', async () => {
    const config: AlgorithmConfig = { kind: 'fixed-window', limit: 3, windowMs: 60_000 };
    const sha = await load(config, 0);
    const redisNowMs = async (): Promise<number> => {
      const [s, us] = await client.sendCommand<[string, string]>(['TIME']);
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    const before = await redisNowMs();
    const reply = await evalAt(sha, 'time:fw');
    const after = await redisNowMs();
    expect(reply.slice(0, 4)).toEqual([0, 0, 0, 2]);
    // The stored window is the minute Redis's clock was in, and resetMs runs to its end from a
    // moment between the two TIME calls.
    const w = Number(await client.hGet('time:fw', 'w'));
    expect([Math.floor(before / 60_000), Math.floor(after / 60_000)]).toContain(w);
    expect(reply[4]).toBeGreaterThanOrEqual((w + 1) * 60_000 - after);
    expect(reply[4]).toBeLessThanOrEqual((w + 1) * 60_000 - before);
    expect(await client.pTTL('time:fw')).toBeLessThanOrEqual(reply[4]);
  });

  it('rejects a nowMs that is not a whole number of ms within ±2^51', async () => {
    const sha = await load({ kind: 'gcra', count: 1, periodMs: 1000, burst: 0 }, 0);
    for (const bad of [
      'abc',
      '1.5',
      '1e3',
      String(MAX_TIME_MS + 1),
      '-' + String(MAX_TIME_MS + 1),
      ' 1',
    ]) {
      await expect(client.evalSha(sha, { keys: ['bad'], arguments: [bad] })).rejects.toThrow(
        /nowMs must be/,
      );
    }
    expect(await client.exists('bad')).toBe(0);
  });

  it("documents a real difference: nginx's zone forgets a drained key idle for 60 s, Redis keeps it until idle", async () => {
    // 1r/m keeps 16 milli-requests per second; one request takes 62.5 s to drain.
    const config: AlgorithmConfig = {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/m',
      burst: 0,
      delay: 'nodelay',
    };
    const sha = await load(config, 0);
    const core = createLimiter(config);
    expect(core.decide(0, 'old').outcome).toBe('admit');
    expect((await evalAt(sha, 'lru:old', 0))[0]).toBe(0);
    // 61 s later a new key arrives: nginx expires 'old' (idle ≥ 60 s, excess drained to ≤ 0).
    core.decide(61_000, 'new');
    // 'old' comes back at 61.5 s: nginx (and the core) start afresh and admit; the node Redis kept
    // still holds 16 milli-requests of excess (1000 − ⌊16·61500/1000⌋ = 16 > burst 0): reject.
    expect(core.decide(61_500, 'old').outcome).toBe('admit');
    expect((await evalAt(sha, 'lru:old', 61_500))[0]).toBe(2);
    expect(toRedisLua(config).differences.join(' ')).toMatch(/forget/);
  });
});
