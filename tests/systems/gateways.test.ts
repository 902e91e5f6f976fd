/**
 * Known answers for the gateway systems from their sources (cited in src/systems), and
 * their exports parse and carry the numbers.
 */
import { parseAllDocuments, parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { createLimiter, periodOf } from '../../src/core';
import type { CalendarWindowsInspection } from '../../src/core';
import {
  toCaddy,
  toEnvoyGlobal,
  toExpressRateLimit,
  toKong,
  toRateLimiterFlexible,
  toSpringGateway,
} from '../../src/export';
import { caddyRetryAfter } from '../../src/systems/respond/caddy';
import { kong } from '../../src/systems/kong';
import { SCENARIO_EPOCH_MS, entryResponse, httpDate, responseOf } from '../../src/systems/respond';

const DAY = 86_400_000;

describe('calendar windows', () => {
  it('UTC months and years: 2024-02 has 29 days, 2024 has 366', () => {
    const feb = Date.UTC(2024, 1, 10);
    expect(periodOf('month', feb, 'calendar')).toEqual([
      Date.UTC(2024, 1, 1),
      Date.UTC(2024, 2, 1),
    ]);
    expect(periodOf('year', feb, 'calendar')).toEqual([Date.UTC(2024, 0, 1), Date.UTC(2025, 0, 1)]);
    expect(periodOf('month', feb, 'epoch')[1] - periodOf('month', feb, 'epoch')[0]).toBe(30 * DAY);
  });

  it("Kong's local counter TTL: a month counter from Jan 1st 00:00 vanishes on Jan 31st", () => {
    const l = createLimiter({ kind: 'calendar-windows', month: 2, counterTtl: true });
    const jan1 = Date.UTC(2025, 0, 1);
    expect(l.decide(jan1).outcome).toBe('admit');
    expect(l.decide(jan1 + 1000).outcome).toBe('admit');
    const rejected = l.decide(jan1 + 2000);
    expect(rejected.outcome).toBe('reject');
    // expiration.lua: month = 2 592 000 s after the counter's first increment, not Feb 1st.
    expect(rejected.retryAfterMs).toBe(30 * DAY - 2000);
    expect(l.decide(jan1 + 30 * DAY).outcome).toBe('admit');
    const plain = createLimiter({ kind: 'calendar-windows', month: 2 });
    plain.decide(jan1);
    plain.decide(jan1);
    expect(plain.decide(jan1 + 30 * DAY).outcome).toBe('reject');
  });

  it('Envoy counts over-limit hits in every window: a minute-blocked client burns its hour quota', () => {
    const l = createLimiter({
      kind: 'calendar-windows',
      minute: 1,
      hour: 3,
      align: 'epoch',
      countRejected: true,
    });
    expect(['admit', 'reject', 'reject'].map(() => l.decide(0).outcome)).toEqual([
      'admit',
      'reject',
      'reject',
    ]);
    // The hour counter is at 3 although one request passed: the next minute is refused too.
    expect(l.decide(60_000).outcome).toBe('reject');
    const ins = l.inspect(60_000) as CalendarWindowsInspection;
    expect(ins.windows.map((w) => w.count)).toEqual([1, 4]); // the refused request counted too
  });

  it("Kong's headers: per-period limits and the tightest period's RateLimit-*, Retry-After on 429", () => {
    const config = { kind: 'calendar-windows' as const, second: 2, minute: 3 };
    const l = createLimiter(config);
    const t = 61_500; // 1.5 s into minute 1
    const before1 = l.inspect(t);
    const d1 = l.decide(t);
    const r1 = responseOf(kong)(config, d1, { nowMs: t, before: before1 });
    expect(r1.headers).toEqual([
      ['X-RateLimit-Limit-Second', '2'],
      ['X-RateLimit-Remaining-Second', '1'],
      ['X-RateLimit-Limit-Minute', '3'],
      ['X-RateLimit-Remaining-Minute', '2'],
      ['RateLimit-Limit', '2'],
      ['RateLimit-Remaining', '1'],
      ['RateLimit-Reset', '1'],
    ]);
    l.decide(t);
    const before3 = l.inspect(t);
    const d3 = l.decide(t);
    const r3 = responseOf(kong)(config, d3, { nowMs: t, before: before3 });
    expect(r3.status).toBe(429);
    expect(r3.headers.at(-1)).toEqual(['Retry-After', '1']);
  });
});

describe('headers', () => {
  it('Caddy Retry-After: wait + 0.5 s printed with no decimals, ties to even', () => {
    expect([0, 400, 499, 500, 1000, 1200, 1500, 2000, 3000].map(caddyRetryAfter)).toEqual([
      0, 1, 1, 1, 2, 2, 2, 2, 4,
    ]);
  });

  it('express-rate-limit writes Date and X-RateLimit-Reset on the scenario’s wall clock, not 1970', () => {
    const config = {
      kind: 'anchored-window' as const,
      limit: 2,
      windowMs: 60_000,
      countRejected: true,
    };
    const d = createLimiter(config).decide(90_000);
    const r = entryResponse({ system: 'express-rate-limit', config }, d, 'x', { nowMs: 90_000 });
    expect(r.headers).toContainEqual(['Date', 'Thu, 01 Jan 2026 00:01:30 GMT']);
    expect(r.headers).toContainEqual([
      'X-RateLimit-Reset',
      String((SCENARIO_EPOCH_MS + 150_000) / 1000),
    ]);
  });

  it('express-rate-limit Date header equals Date#toUTCString', () => {
    for (const t of [0, 1_700_000_000_123, -1, 951_782_400_000, 253_402_300_799_000]) {
      expect(httpDate(t)).toBe(new Date(t).toUTCString());
    }
  });
});

describe('exports', () => {
  it('Kong declarative YAML carries every period limit', () => {
    const out = toKong({ kind: 'calendar-windows', second: 5, hour: 100, month: 10_000 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const doc = parse(out.text) as {
      services: Array<{ plugins: Array<{ name: string; config: Record<string, unknown> }> }>;
    };
    expect(doc.services[0]?.plugins[0]).toMatchObject({
      name: 'rate-limiting',
      config: { second: 5, hour: 100, month: 10_000, policy: 'local' },
    });
    expect(toKong({ kind: 'gcra', count: 1, periodMs: 1000, burst: 1 }).ok).toBe(false);
  });

  it("Kong's export says the fleet's store policy (schema.lua: policy, redis.host, sync_rate)", () => {
    const config = { kind: 'calendar-windows', second: 3 } as const;
    const pluginOf = (policy?: 'local' | 'cluster' | 'redis') => {
      const out = toKong(config, policy === undefined ? {} : { policy });
      if (!out.ok) throw new Error(out.reason);
      const doc = parse(out.text) as {
        services: Array<{ plugins: Array<{ config: Record<string, unknown> }> }>;
      };
      return { config: doc.services[0]?.plugins[0]?.config, differences: out.differences };
    };
    expect(pluginOf().config).toMatchObject({ policy: 'local' });
    expect(pluginOf().config).not.toHaveProperty('sync_rate');
    const cluster = pluginOf('cluster');
    expect(cluster.config).toMatchObject({ policy: 'cluster' });
    expect(cluster.differences.join(' ')).toMatch(/not available DB-less/);
    expect(pluginOf('redis').config).toMatchObject({
      policy: 'redis',
      redis: { host: 'redis.example', port: 6379 },
      sync_rate: -1,
    });
  });

  it('Envoy global: one descriptor and one rate_limits entry per unit', () => {
    const out = toEnvoyGlobal(
      { kind: 'calendar-windows', minute: 10, day: 1000, align: 'epoch', countRejected: true },
      { shadowMode: true },
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const [service, envoy] = parseAllDocuments(out.text).map(
      (d) => d.toJS() as Record<string, unknown>,
    );
    expect(JSON.stringify(service)).toContain(
      '"rate_limit":{"unit":"minute","requests_per_unit":10}',
    );
    expect(JSON.stringify(service)).toContain('"shadow_mode":true');
    expect(JSON.stringify(envoy)).toContain('"descriptor_value":"per_day"');
    expect(out.differences).toEqual([]);
  });

  it("Caddy's window is the log's window − 1 ms; Spring's rates; the JS snippets", () => {
    const caddyOut = toCaddy({ kind: 'sliding-log', limit: 10, windowMs: 60_001 });
    expect(caddyOut.ok && caddyOut.text).toContain('window 1m');
    const spring = toSpringGateway({
      kind: 'token-bucket',
      maxTokens: 20,
      tokensPerFill: 10,
      fillIntervalMs: 1000,
      refill: 'interval',
    });
    expect(spring.ok && spring.text).toContain('redis-rate-limiter.burstCapacity: 20');
    const leaky = toSpringGateway({
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 10,
      fillIntervalMs: 1000,
      refill: 'interval',
    });
    expect(leaky.ok && leaky.differences.join(' ')).toContain('every request passes');
    const erl = toExpressRateLimit({
      kind: 'anchored-window',
      limit: 7,
      windowMs: 900_000,
      countRejected: true,
    });
    expect(erl.ok && erl.text).toContain('windowMs: 900000');
    const rlf = toRateLimiterFlexible({
      kind: 'anchored-window',
      limit: 4,
      windowMs: 1000,
      blockMs: 5000,
      countRejected: true,
    });
    expect(rlf.ok && rlf.text).toContain('blockDuration: 5');
  });
});
