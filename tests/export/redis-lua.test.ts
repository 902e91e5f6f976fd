import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { exportAll, toRedisLua } from '../../src/export';

describe('toRedisLua', () => {
  it('documents its calling convention in the script and the version it assumes', () => {
    const out = toRedisLua({ kind: 'fixed-window', limit: 10, windowMs: 60_000 });
    expect(out.script).toBe(out.text);
    expect(out.script).toMatch(
      /^-- Rate Limit Lab: fixed window, limit=10 per windowMs=60000\n-- EVAL <this script> 1 <key> \[nowMs\]/,
    );
    expect(out.script).toContain("redis.call('TIME')");
    expect(out.script).toContain("redis.call('PEXPIRE', key, int(ms + 0))");
    expect(out.assumes).toMatch(/Redis ≥ 5/);
  });

  it('bakes the expiry slack into PEXPIRE and refuses a bad one', () => {
    expect(
      toRedisLua({ kind: 'gcra', count: 1, periodMs: 1000, burst: 0 }, { expirySlackMs: 250 })
        .script,
    ).toContain('int(ms + 250)');
    expect(() =>
      toRedisLua({ kind: 'gcra', count: 1, periodMs: 1000, burst: 0 }, { expirySlackMs: -1 }),
    ).toThrow(RangeError);
  });

  it('documents that nginx in Redis has no zone expiry, and throws on an invalid config', () => {
    const lb: AlgorithmConfig = {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/m',
      burst: 5,
      delay: 0,
    };
    expect(toRedisLua(lb).differences.join(' ')).toMatch(/forgets a key idle for 60 s/);
    expect(() => toRedisLua({ kind: 'fixed-window', limit: 0, windowMs: 1 })).toThrow(/limit/);
  });

  it('exportAll gives every target, supported or not, for the Export panel', () => {
    const all = exportAll({
      kind: 'token-bucket',
      maxTokens: 3,
      tokensPerFill: 1,
      fillIntervalMs: 100,
    });
    expect(Object.keys(all)).toEqual(['nginx', 'envoy', 'redis', 'go', 'haproxy']);
    expect([all.nginx.ok, all.envoy.ok, all.redis.ok, all.go.ok, all.haproxy.ok]).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
  });
});
