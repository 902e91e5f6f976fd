/**
 * The systems layer: the registry, each system's response (status and headers per its source),
 * the added standard headers, and how links carry a system and the flag.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Decision } from '../../src/core';
import { encodeConfig, defaultConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import type { PlaygroundConfig } from '../../src/config';
import {
  DEFAULT_SYSTEM,
  SYSTEMS,
  SYSTEM_GROUPS,
  deriveConfig,
  goDurationString,
  systemById,
  systemNameIn,
  systemOf,
  traefikMaxDelayMs,
  traefikMaxDelayNs,
  traefikTtlSeconds,
} from '../../src/systems';
import { entryResponse } from '../../src/systems/respond';
import { SYSTEM_SOURCES } from '../../src/systems/sources';
import { goDurationNs } from '../../src/systems/respond/traefik';

function header(fields: ReadonlyArray<{ name: string; value: string }>, name: string) {
  return fields.find((f) => f.name.toLowerCase() === name.toLowerCase())?.value;
}

/** The first rejected decision of `config` when `n` requests arrive at t = 0. */
function firstReject(config: AlgorithmConfig, n = 50): Decision {
  const l = createLimiter(config);
  for (let i = 0; i < n; i += 1) {
    const d = l.decide(0);
    if (d.outcome === 'reject') return d;
  }
  throw new Error('no reject');
}

describe('the registry', () => {
  it('lists each system once, with a valid id, a version, sources and a working default', () => {
    const ids = new Set<string>();
    for (const s of SYSTEMS) {
      expect(s.id).toMatch(/^[a-z0-9-]+$/);
      expect(ids.has(s.id)).toBe(false);
      ids.add(s.id);
      expect(s.version).not.toBe('');
      expect(SYSTEM_SOURCES[s.id]?.length).toBeGreaterThan(0);
      expect(SYSTEM_GROUPS).toContain(s.group);
      expect(s.algorithms).toContain(s.kind);
      expect(s.defaultConfig.kind).toBe(s.kind);
      expect(() => createLimiter(deriveConfig(s, s.defaultConfig))).not.toThrow();
      for (const p of s.params) expect(p.key).not.toBe('');
    }
    expect(new Set(SYSTEMS.map((s) => s.urlName)).size).toBe(SYSTEMS.length);
  });

  it("cites each system's own sources in its responses, and lists sources for no other id", () => {
    expect(Object.keys(SYSTEM_SOURCES).sort()).toEqual(SYSTEMS.map((s) => s.id).sort());
    for (const s of SYSTEMS) {
      const config = deriveConfig(s, s.defaultConfig);
      const decision = createLimiter(config).decide(0);
      const response = entryResponse({ system: s.id, config }, decision, 'p');
      expect(response.sources).toBe(SYSTEM_SOURCES[s.id]);
      for (const ref of response.sources) expect(ref.file).not.toBe('');
    }
  });

  it('gives an entry without a system the one its algorithm stood for, so old links keep it', () => {
    expect(
      systemOf({ config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 } })
        .id,
    ).toBe('nginx');
    expect(
      systemOf({
        config: { kind: 'token-bucket', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1 },
      }).id,
    ).toBe('envoy');
    // A system that does not fit the algorithm falls back too (never crashes).
    expect(
      systemOf({ system: 'traefik', config: { kind: 'gcra', count: 1, periodMs: 1, burst: 0 } }).id,
    ).toBe('redis-cell');
    expect(
      systemOf({ system: 'nope', config: { kind: 'gcra', count: 1, periodMs: 1, burst: 0 } }).id,
    ).toBe('redis-cell');
    for (const [kind, s] of Object.entries(DEFAULT_SYSTEM)) expect(s.kind).toBe(kind);
  });
});

describe('each system’s own response', () => {
  const nginx: AlgorithmConfig = {
    kind: 'leaky-bucket',
    rate: 2,
    rateUnit: 'r/s',
    burst: 1,
    delay: 'nodelay',
  };
  const envoy: AlgorithmConfig = {
    kind: 'token-bucket',
    maxTokens: 2,
    tokensPerFill: 1,
    fillIntervalMs: 1000,
  };

  it('nginx limit_req: limit_req_status (503 by default) and no rate-limit header', () => {
    const r = entryResponse({ config: nginx }, firstReject(nginx), 'api');
    // nginx's own reason phrase and error page (ngx_http_header_filter_module.c, 1.22.1).
    expect(r.statusLine).toBe('HTTP/1.1 503 Service Temporarily Unavailable');
    expect(r.fields.map((f) => f.name)).toEqual([
      'Server',
      'Date',
      'Content-Type',
      'Content-Length',
      'Connection',
    ]);
    const r429 = entryResponse(
      { config: { ...nginx, limitReqStatus: 429 } },
      firstReject(nginx),
      'api',
    );
    expect(r429.status).toBe(429);
  });

  it('nginx with the standard headers: the constants add_header can send, marked added', () => {
    // The policy is named as the export names it: the limiter's own name.
    const r = entryResponse(
      { config: nginx, standardHeaders: true, name: 'api' },
      firstReject(nginx),
      'lane 1',
    );
    expect(header(r.fields, 'Retry-After')).toBe('1'); // 1 / 2 r/s = 500 ms → 1 s
    expect(header(r.fields, 'RateLimit-Policy')).toBe('"api";q=2;w=1');
    expect(header(r.fields, 'RateLimit')).toBeUndefined(); // nginx cannot compute remaining
    expect(r.fields.filter((f) => f.added === true).map((f) => f.name)).toEqual([
      'Retry-After',
      'RateLimit-Policy',
    ]);
  });

  it('Envoy local_ratelimit: a bare 429 (no x-envoy-ratelimited: the filter never sets it); x-ratelimit-* only when enabled', () => {
    const d = firstReject(envoy);
    const plain = entryResponse({ config: envoy }, d, 'api');
    expect(plain.status).toBe(429);
    expect(plain.fields).toEqual([]);
    const on = entryResponse({ config: envoy, standardHeaders: true }, d, 'api');
    expect(
      on.fields.map((f) => `${f.name}: ${f.value}${f.added === true ? ' (added)' : ''}`),
    ).toEqual([
      'x-ratelimit-limit: 2 (added)',
      'x-ratelimit-remaining: 0 (added)',
      'x-ratelimit-reset: 2 (added)',
    ]);
    expect(header(on.fields, 'Retry-After')).toBeUndefined();
    const admitted = entryResponse({ config: envoy }, createLimiter(envoy).decide(0), 'api');
    expect(admitted.statusLine).toBe('HTTP/1.1 200 OK');
    expect(admitted.fields).toEqual([]);
  });

  it('redis-cell and the Redis patterns: the application’s 429, headers only when added', () => {
    const configs: AlgorithmConfig[] = [
      { kind: 'gcra', count: 1, periodMs: 1000, burst: 0 },
      { kind: 'fixed-window', limit: 1, windowMs: 1000 },
      { kind: 'sliding-log', limit: 1, windowMs: 1000 },
    ];
    for (const config of configs) {
      const d = firstReject(config);
      expect(entryResponse({ config }, d, 'p').fields).toEqual([]);
      const on = entryResponse({ config, standardHeaders: true }, d, 'p');
      expect(on.status).toBe(429);
      expect(header(on.fields, 'Retry-After')).toBe(String(Math.ceil(d.retryAfterMs / 1000)));
      expect(on.fields.every((f) => f.added === true)).toBe(true);
    }
  });

  it('Cloudflare: 429 with the 1015 page’s Retry-After: 30 of its own', () => {
    const config: AlgorithmConfig = { kind: 'sliding-window-counter', limit: 1, windowMs: 60_000 };
    const r = entryResponse({ system: 'cloudflare', config }, firstReject(config), 'p');
    expect(r.status).toBe(429);
    expect(r.fields).toEqual([{ name: 'Retry-After', value: '30' }]);
    const on = entryResponse(
      { system: 'cloudflare', config, standardHeaders: true },
      firstReject(config),
      'p',
    );
    // Its own Retry-After only: no Cloudflare rule can send the standard set, so none is added
    // (tests/systems/no-added-headers.test.ts).
    expect(on.fields).toEqual([{ name: 'Retry-After', value: '30' }]);
  });
});

describe('Traefik RateLimit', () => {
  it('derives maxDelay and the ttl as rate_limiter.go does', () => {
    expect(traefikMaxDelayMs(100, 1000)).toBe(5); // 1 s / 200
    expect(traefikMaxDelayMs(1, 1000)).toBe(500); // 1 s / 2
    expect(traefikMaxDelayMs(6, 60_000)).toBe(500); // rate 0.1 < 1: capped at 500 ms
    expect(traefikMaxDelayMs(3, 1000)).toBe(166); // 1 s / 6 = 166.67 ms: its whole ms …
    expect(traefikMaxDelayNs(3, 1000)).toBe(166_666_666); // … and the ns Traefik compares with
    expect(traefikMaxDelayNs(100, 1000)).toBe(5_000_000);
    expect(traefikTtlSeconds(100, 1000)).toBe(2);
    expect(traefikTtlSeconds(6, 60_000)).toBe(11); // 1 + ⌊1 / 0.1⌋
    // int(1 / rtl) on float64: 1 / (1/99) is 98.99999999999999 in Go, so 1 + 98.
    expect(traefikTtlSeconds(1, 99_000)).toBe(99);
  });

  it('answers 429 with Retry-After (whole s, up) and X-Retry-In (Go duration) from the delay', () => {
    const traefik = systemById('traefik');
    if (traefik === undefined) throw new Error('registered');
    // average 1 per 1 s, burst 1: maxDelay 500 ms. A second request at t = 0 waits 1000 ms > 500.
    const config = deriveConfig(traefik, {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
    });
    const l = createLimiter(config);
    l.decide(0);
    const d = l.decide(0);
    expect(d).toMatchObject({ outcome: 'reject', retryAfterMs: 500 });
    const r = entryResponse({ system: 'traefik', config }, d, 'p');
    expect(r.statusLine).toBe('HTTP/1.1 429 Too Many Requests');
    expect(header(r.fields, 'Retry-After')).toBe('1');
    expect(header(r.fields, 'X-Retry-In')).toBe('1s');
    expect(goDurationString(450)).toBe('450ms');
    expect(goDurationString(1500)).toBe('1.5s');
    expect(goDurationString(61_250)).toBe('1m1.25s');
    expect(goDurationString(3_600_000)).toBe('1h0m0s');
    expect(goDurationNs(83_333_333)).toBe('83.333333ms');
    expect(goDurationNs(1_500)).toBe('1.5µs');
    expect(goDurationNs(999)).toBe('999ns');
    expect(goDurationNs(61_000_000_001)).toBe('1m1.000000001s');
  });

  it('waits when the wait, to the ns, is at most 1 s / (2·rate), and says the ns in X-Retry-In', () => {
    const traefik = systemById('traefik');
    if (traefik === undefined) throw new Error('registered');
    // 3 r/s, burst 1: a token every 333.33 ms, maxDelay 166,666,666 ns.
    const config = deriveConfig(traefik, {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 3,
      fillIntervalMs: 1000,
    });
    expect(config).toMatchObject({ maxDelayMs: 166, maxDelayNs: 166_666_666 });
    const l = createLimiter(config);
    expect(l.decide(0).outcome).toBe('admit');
    // At 166 ms the bucket holds 0.498 token: the wait is 167.33 ms > maxDelay.
    const before = l.inspect(166);
    const d = l.decide(166);
    expect(d).toMatchObject({ outcome: 'reject', retryAfterMs: 1 });
    const r = entryResponse({ system: 'traefik', config }, d, 'p', { before });
    expect(header(r.fields, 'X-Retry-In')).toBe('167.333333ms');
    expect(header(r.fields, 'Retry-After')).toBe('1');
    // At 167 ms: 0.501 token, the wait 166.333333 ms fits (whole ms it would be 167 > 166).
    expect(l.decide(167)).toMatchObject({ outcome: 'delay', delayMs: 167 });
  });
});

describe('links', () => {
  function withLimiters(limiters: PlaygroundConfig['limiters']): PlaygroundConfig {
    return { ...defaultConfig(), limiters };
  }

  it('write a system under its own head and names, and read it back with its derived fields', () => {
    const traefik = systemById('traefik');
    if (traefik === undefined) throw new Error('registered');
    const config = withLimiters([
      {
        system: 'traefik',
        config: deriveConfig(traefik, {
          kind: 'token-bucket',
          maxTokens: 50,
          tokensPerFill: 100,
          fillIntervalMs: 1000,
        }),
        standardHeaders: true,
      },
      { config: { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 20, delay: 'nodelay' } },
    ]);
    const link = encodeConfig(config);
    expect(decodeURIComponent(link)).toContain('l=traefik:average=100,burst=50,std_headers');
    expect(decodeURIComponent(link)).toContain('l=nginx:rate=10r/s,burst=20,nodelay');
    const back = decodeConfig(link);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(config);
  });

  it('open an old link unchanged (no system, no flag)', () => {
    const back = decodeConfig('v=1&l=nginx:rate=1r/s,burst=5');
    expect(back.errors).toEqual([]);
    expect(back.config.limiters).toEqual([
      { config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 5, delay: 0 } },
    ]);
  });

  it('report a bad Traefik value by its own name and keep the derived fields consistent', () => {
    const back = decodeConfig('v=1&l=traefik:average=-1,burst=3');
    expect(back.errors.map((e) => e.message).join('\n')).toMatch(/l\[0\] average/);
    const entry = back.config.limiters[0];
    expect(entry?.system).toBe('traefik');
    const c = entry?.config;
    if (c?.kind !== 'token-bucket') throw new Error('token bucket');
    expect(c.maxDelayMs).toBe(traefikMaxDelayMs(c.tokensPerFill, c.fillIntervalMs));
  });
});

describe('a system name in a deployment', () => {
  const kongEntry = { system: 'kong' as const, config: systemById('kong')!.defaultConfig };
  it("names Kong's policy as the fleet's store runs it, and leaves other systems and local state alone", () => {
    expect(systemNameIn(kongEntry)).toBe('Kong rate-limiting plugin (local policy)');
    expect(systemNameIn(kongEntry, { state: 'local', fleet: { store: { kong: 'cluster' } } })).toBe(
      'Kong rate-limiting plugin (local policy)',
    );
    expect(
      systemNameIn(kongEntry, { state: 'shared-atomic', fleet: { store: { kong: 'cluster' } } }),
    ).toBe('Kong rate-limiting plugin (cluster policy)');
    expect(systemNameIn(kongEntry, { state: 'layered', fleet: { store: { kong: 'redis' } } })).toBe(
      'Kong rate-limiting plugin (redis policy)',
    );
    expect(systemNameIn(kongEntry, { state: 'shared-atomic' })).toBe(
      'Kong rate-limiting plugin (an atomic shared store, not a Kong policy)',
    );
    const nginx = { config: DEFAULT_SYSTEM['leaky-bucket'].defaultConfig };
    expect(
      systemNameIn(nginx, { state: 'shared-atomic', fleet: { store: { kong: 'cluster' } } }),
    ).toBe(DEFAULT_SYSTEM['leaky-bucket'].name);
  });
});

describe('where each model differs from its system', () => {
  it('every system lists what its model leaves out, in sentences', async () => {
    const { SYSTEM_DIFFERENCES } = await import('../../src/systems/differences');
    expect(Object.keys(SYSTEM_DIFFERENCES).sort()).toEqual(SYSTEMS.map((s) => s.id).sort());
    for (const s of SYSTEMS) {
      const list = SYSTEM_DIFFERENCES[s.id] ?? [];
      expect(list.length, s.id).toBeGreaterThan(0);
      for (const d of list) expect(d, s.id).toMatch(/^\S.{20,}[.)]$/s);
    }
  });
});
