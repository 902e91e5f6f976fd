/**
 * Traefik with a shared store decides through its Redis limiter's script (lua.go @ traefik v3.7.9;
 * src/core/algorithms/traefik-redis.ts), not an in-memory x/time/rate bucket: known answers worked
 * from the script's rules, checked on a real redis-server by tests/export/traefik-redis.server.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../src/core';
import { Seeker, decisionAt, simulate } from '../../src/sim';
import type { Deployment } from '../../src/sim';
import { luaRoundTrip } from '../../src/core/algorithms/traefik-redis';
import { traefikResponse } from '../../src/systems/respond/traefik';
import { luaNumberString } from '../../src/systems/respond/traefikRedis';
import { scenario } from '../sim/helpers';
import { SHARED, traefikConfig } from './traefikRedisFixtures';

function run(config: TokenBucketConfig, timesMs: number[], deployment: Deployment) {
  return simulate(
    [config],
    scenario({
      seed: 1,
      sources: [{ kind: 'manual', timesMs }],
      clients: { count: 1, keying: 'per-client', assign: 'round-robin' },
      deployment,
    }),
    4000,
  );
}

function outcomes(result: ReturnType<typeof run>): string[] {
  const rows = result.lanes[0]?.columns.rows ?? 0;
  return Array.from({ length: rows }, (_, r) => decisionAt(result, 0, r).outcome);
}

describe("Traefik's shared bucket (its Redis limiter)", () => {
  it('passes a wait between ⌊maxDelay⌋ µs and maxDelay without taking its token, as the script does', () => {
    // 3/s, burst 2: maxDelay = 10^9 / 6 = 166,666,666 ns, the script's max_delay 166,666 µs. At
    // 500 ms the bucket holds 1.5 tokens; the 4th request's wait is 0.5 / 3 s = 166,666.67 µs:
    // above 166,666 µs, so the script gives the token back, while Traefik reads "166666.66666667"
    // as 166,666,666 ns ≤ maxDelay and lets it through after that delay. Every later request at
    // that ms finds the same 0.5 token and passes the same way.
    const config = traefikConfig(3, 2);
    const times = [0, 0, 500, 500, 500, 500];
    expect(outcomes(run(config, times, SHARED))).toEqual([
      'admit',
      'admit',
      'admit',
      'delay',
      'delay',
      'delay',
    ]);
    // One instance's own x/time/rate bucket takes the token: the 5th waits 500 ms and gets 429.
    expect(outcomes(run(config, times, { ...SHARED, instances: 1, state: 'local' }))).toEqual([
      'admit',
      'admit',
      'admit',
      'delay',
      'reject',
      'reject',
    ]);
  });

  it("writes the 429's X-Retry-In from the script's µs wait (170ms where x/time/rate has 169.999999ms)", () => {
    // 5/s, burst 1: the 2nd request, 30 ms after the 1st, lacks 0.85 token: 170 ms. The script
    // returns "170000" (µs), x/time/rate's float64 bucket 169,999,999 ns.
    const config = traefikConfig(5, 1);
    const header = (deployment: Deployment) => {
      const result = run(config, [0, 30], deployment);
      const d = decisionAt(result, 0, 1);
      expect(d.outcome).toBe('reject');
      const history = new Seeker(result).keyHistoryUpTo(0, 1);
      const sent = traefikResponse(config, d, {
        ...(history === undefined
          ? {}
          : {
              keyHistoryMs: history.timesMs,
              keyHistoryConfig: history.config,
              keyHistoryShared: history.shared,
            }),
      }).fields;
      return sent.find((f) => f.name === 'X-Retry-In')?.value;
    };
    expect(header(SHARED)).toBe('170ms');
    expect(header({ ...SHARED, instances: 1, state: 'local' })).toBe('169.999999ms');
  });

  it('drops a key idle for more than ttl seconds to the ms (Redis expiry), not on whole seconds', () => {
    // 1/s, burst 5, ttl 2 s, maxDelay 500 ms. Five requests at 0 ms empty the bucket; one at 1 ms
    // lacks 0.999 token (999 ms > maxDelay: 429, the key touched at 1 ms). Redis keeps the key
    // while now ≤ 1 + 2,000 ms: at 2,001 ms it holds 2.001 tokens, so the third request there gets
    // 429; from 2,002 ms the key is gone and a new one starts full.
    const config = traefikConfig(1, 5);
    expect(config.idleResetS).toBe(2);
    const drained = [0, 0, 0, 0, 0, 1];
    const tail = (times: number[], deployment: Deployment) =>
      outcomes(run(config, times, deployment)).slice(drained.length);
    expect(tail([...drained, 2001, 2001, 2001], SHARED)).toEqual(['admit', 'admit', 'reject']);
    expect(tail([...drained, 2002, 2002, 2002], SHARED)).toEqual(['admit', 'admit', 'admit']);
    // Traefik's in-memory ttlmap counts whole Unix seconds: at 2,001 ms (second 2 ≥ 0 + 2) the
    // instance's bucket is new and full.
    const local = { ...SHARED, instances: 1, state: 'local' } as const;
    expect(tail([...drained, 2001, 2001, 2001], local)).toEqual(['admit', 'admit', 'admit']);
  });
});

describe("the wait as Traefik reads it back from Lua's tostring", () => {
  it('keeps 14 significant digits, a tie rounded to even as glibc does', () => {
    expect(luaRoundTrip(0)).toBe(0);
    expect(luaRoundTrip(166666.66666666666)).toBe(166666.66666667);
    expect(luaRoundTrip(169999.99999999997)).toBe(170000);
    expect(luaRoundTrip(1234567890123.25)).toBe(1234567890123.2);
    expect(luaRoundTrip(1234567890123.75)).toBe(1234567890123.8);
    expect(luaRoundTrip(166666.001953125)).toBe(166666.00195312);
    expect(luaRoundTrip(166666.005859375)).toBe(166666.00585938);
  });

  it('equals the decimal luaNumberString writes, read back', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 20_000; i += 1) {
      // Waits from 10^-4 µs to 10^12 µs, and short dyadic fractions (where ties are).
      const x =
        i % 2 === 0 ? 10 ** (16 * next() - 4) : Math.floor(next() * 2 ** 30) / 2 ** (i % 40);
      if (x < 1e-4) continue;
      expect(luaRoundTrip(x), String(x)).toBe(Number(luaNumberString(x)));
    }
  });
});
