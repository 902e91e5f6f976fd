/**
 * The HAProxy system: its link grammar (`l=haproxy:…`), a message per bad field naming the field
 * and its accepted range, and the reply it sends (HAProxy 2.6 src/http.c http_err_msgs).
 */
import { toHaproxy } from '../../src/export';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { PlaygroundConfig } from '../../src/config';
import { defaultConfig, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import { deriveConfig, systemById, systemOf } from '../../src/systems';
import { entryResponse, responseOf } from '../../src/systems/respond';

const haproxy = systemById('haproxy');
if (haproxy === undefined) throw new Error('haproxy is registered');

function withLimiters(limiters: PlaygroundConfig['limiters']): PlaygroundConfig {
  return { ...defaultConfig(), limiters };
}

describe('HAProxy links', () => {
  it('write the limiter under HAProxy’s names and read it back unchanged', () => {
    const config = withLimiters([
      {
        system: 'haproxy',
        config: deriveConfig(haproxy, {
          kind: 'sliding-window-counter',
          limit: 100,
          windowMs: 10_000,
          expireMs: 30_000,
          denyStatus: 429,
        }),
      },
    ]);
    const link = decodeURIComponent(encodeConfig(config));
    expect(link).toContain('l=haproxy:gt=100,http_req_rate=10s,expire=30s,deny_status=429');
    const back = decodeConfig(link);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(config);
  });

  it('leave out expire and deny_status: never expires, HAProxy’s default 403', () => {
    const back = decodeConfig('v=1&l=haproxy:gt=5,http_req_rate=1s');
    expect(back.errors).toEqual([]);
    const entry = back.config.limiters[0];
    expect(entry?.system).toBe('haproxy');
    expect(entry?.config).toEqual({
      kind: 'sliding-window-counter',
      limit: 5,
      windowMs: 1000,
      anchor: 'entry',
    });
    if (entry === undefined) throw new Error('entry');
    const limiter = createLimiter(entry.config);
    const ds = Array.from({ length: 6 }, () => limiter.decide(0));
    expect(entryResponse(entry, ds[5] as never, 'p').status).toBe(403);
  });

  it.each([
    ['gt=0', /l\[0\] gt: must be a whole number from 1 to 1000000/],
    ['gt=2.5', /l\[0\] gt: must be a whole number/],
    ['http_req_rate=0s', /l\[0\] http_req_rate: must be a duration from 1ms to 24h/],
    ['http_req_rate=1ms', /l\[0\] http_req_rate: must be a duration from 2ms to 24h/],
    ['expire=-3s', /l\[0\] expire: must be a duration from 1ms to 24h/],
    ['deny_status=418', /l\[0\] deny_status: must be one of 400, 401, 403, .*429.*504/],
    ['deny_status=abc', /l\[0\] deny_status: must be one of/],
  ])('a bad %s is reported by its HAProxy name with the accepted values', (bad, message) => {
    const fields = new Map([
      ['gt', '10'],
      ['http_req_rate', '10s'],
    ]);
    const [k, v] = bad.split('=') as [string, string];
    fields.set(k, v);
    const head = [...fields].map(([a, b]) => `${a}=${b}`).join(',');
    const back = decodeConfig(`v=1&l=haproxy:${head}`);
    const text = back.errors.map((e) => e.message).join('\n');
    expect(text).toMatch(message);
    // Whatever was wrong, the page still opens an HAProxy limiter that can decide.
    const entry = back.config.limiters[0];
    if (entry === undefined) throw new Error('entry');
    expect(() => createLimiter(entry.config)).not.toThrow();
  });

  it('a Cloudflare limiter drops HAProxy’s fields (aligned windows only)', () => {
    const cloudflare = systemById('cloudflare');
    if (cloudflare === undefined) throw new Error('cloudflare');
    expect(
      deriveConfig(cloudflare, {
        kind: 'sliding-window-counter',
        limit: 5,
        windowMs: 1000,
        anchor: 'entry',
        expireMs: 10,
        denyStatus: 429,
      }),
    ).toEqual({ kind: 'sliding-window-counter', limit: 5, windowMs: 1000 });
    // Unnamed, an aligned counter is the Redis two-window pattern (Cloudflare takes few periods).
    expect(
      systemOf({ config: { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 } }).id,
    ).toBe('redis-sliding-window');
  });
});

describe('HAProxy’s reply', () => {
  it('a deny is the built-in error page: status line, lower-case headers, no rate-limit headers', () => {
    const base = deriveConfig(haproxy, haproxy.defaultConfig);
    if (base.kind !== 'sliding-window-counter') throw new Error('sliding-window counter');
    const c = { ...base, denyStatus: 429 };
    const l = createLimiter(c);
    const ds = Array.from({ length: 12 }, () => l.decide(0));
    const ok = responseOf(haproxy)(c, ds[0] as never);
    expect(ok.status).toBe(200);
    expect(ok.headers).toEqual([]);
    const denied = responseOf(haproxy)(c, ds[11] as never);
    expect(denied.statusLine).toBe('HTTP/1.1 429 Too Many Requests');
    expect(denied.headers).toEqual([
      ['content-length', '117'],
      ['cache-control', 'no-cache'],
      ['content-type', 'text/html'],
    ]);
    // HAProxy's own reason phrases differ from the RFC's for some statuses.
    const timeout = responseOf(haproxy)({ ...c, denyStatus: 408 }, ds[11] as never);
    expect(timeout.statusLine).toBe('HTTP/1.1 408 Request Time-out');
    expect(timeout.headers).toContainEqual(['connection', 'close']);
  });

  it('adds no standard headers: the HAProxy export does not send them, so neither does the page', () => {
    const c = deriveConfig(haproxy, haproxy.defaultConfig);
    const l = createLimiter(c);
    const ds = Array.from({ length: 12 }, () => l.decide(0));
    for (const d of [ds[0], ds[11]]) {
      const r = responseOf(haproxy)(c, d as never, { standardHeaders: true, policyName: 'p' });
      expect(r.fields.filter((f) => f.added === true)).toEqual([]);
      expect(r).toEqual(responseOf(haproxy)(c, d as never));
    }
    const denied = responseOf(haproxy)(c, ds[11] as never, { standardHeaders: true });
    expect(denied.fields.map((f) => f.name)).toEqual([
      'content-length',
      'cache-control',
      'content-type',
    ]);
    // The export writes none of them either.
    const out = toHaproxy(c);
    if (!out.ok) throw new Error(out.reason);
    expect(out.text).not.toMatch(/RateLimit|Retry-After|set-header|hdr /i);
    expect(haproxy.standardHeadersHow).toMatch(/the HAProxy export does not add them/);
  });
});

describe('a new HAProxy limiter', () => {
  it('starts with HAProxy’s own defaults: no deny_status, so a denied request gets 403 Forbidden', () => {
    expect(haproxy.defaultConfig).not.toHaveProperty('denyStatus');
    const l = createLimiter(haproxy.defaultConfig);
    const limit =
      haproxy.defaultConfig.kind === 'sliding-window-counter' ? haproxy.defaultConfig.limit : 0;
    let d = l.decide(0, 'c');
    for (let i = 0; i < limit; i += 1) d = l.decide(0, 'c');
    expect(d.outcome).toBe('reject');
    expect(
      entryResponse({ system: 'haproxy', config: haproxy.defaultConfig }, d, 'x').statusLine,
    ).toBe('HTTP/1.1 403 Forbidden');
  });
});
