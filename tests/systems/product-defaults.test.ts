// @vitest-environment jsdom
/**
 * Every system's optional behavioural options: the product's own default (its source in the
 * comment, file@version) beside what the lab does with it. Each row reads the lab's value from the
 * lab itself (the system's starting config, the response it writes, or its export) and either
 *
 * - equal: the lab starts from the product's default, or
 * - example: the lab starts from another value, which the export writes explicitly (so the pasted
 *   config behaves as the lab showed), and the parameter field shows the product's default beside
 *   it ("nginx's default: 0").
 *
 * Required options (nginx `rate`, Traefik `average`, Envoy `max_tokens` and `fill_interval`,
 * rate-limiter-flexible `points` and `duration`, …) have no product default: any example value is
 * fine there, and their fields must not claim one.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { createElement } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Decision } from '../../src/core';
import {
  haproxyDuration,
  toCaddy,
  toEnvoy,
  toEnvoyGlobal,
  toKong,
  toNginx,
  toRateLimiterFlexible,
  toSpringGateway,
  toTraefik,
} from '../../src/export';
import { deriveConfig, systemById } from '../../src/systems';
import type { SystemInfo } from '../../src/systems';
import { entryResponse } from '../../src/systems/respond';
import { ParamFields } from '../../src/ui/limiter/ParamFields';

afterEach(cleanup);

function system(id: string): SystemInfo {
  const s = systemById(id);
  if (s === undefined) throw new Error(`${id} is registered`);
  return s;
}

/** The lab's starting config of a system (what a new limiter of it gets). */
function start(id: string): AlgorithmConfig {
  const s = system(id);
  return deriveConfig(s, s.defaultConfig);
}

/** A field of the starting config, as text; `absent` when the config leaves it out. */
function field(id: string, name: string, absent = 'absent'): string {
  const value = (start(id) as unknown as Record<string, number | string | boolean | undefined>)[
    name
  ];
  return value === undefined ? absent : String(value);
}

/** The export of the starting config: the text a person pastes. */
function exported(outcome: { ok: boolean; text?: string }): string {
  if (!outcome.ok || outcome.text === undefined) throw new Error('the starting config exports');
  return outcome.text;
}

/** The first rejection of a burst at t = 0 under the starting config, as the system answers it. */
function rejection(id: string): { status: number; headers: string } {
  const config = start(id);
  const limiter = createLimiter(config);
  let d: Decision | undefined;
  for (let i = 0; i < 10_000; i += 1) {
    d = limiter.decide(0);
    if (d.outcome === 'reject') break;
  }
  if (d?.outcome !== 'reject') throw new Error(`${id} rejects a burst`);
  const r = entryResponse({ system: id, config }, d, 'p');
  return { status: r.status, headers: r.headers.map(([name]) => name.toLowerCase()).join(',') };
}

interface Row {
  system: string;
  /** The product's option, as its config names it. */
  option: string;
  /** The product's value when the option is left out, as its config would write it. */
  productDefault: string;
  /** The lab's starting value, read from the lab, in the same words. */
  lab: () => string;
  /**
   * Where the lab starts from another value: how its export writes it (explicitly), and the
   * label of the field that shows the product's default. Absent: the lab must equal the default.
   */
  example?: { writes: (text: string) => boolean; exportText: () => string; label?: string };
  /** The label of the field that shows the product's default even when the lab's value is equal. */
  shownAt?: string;
}

const ROWS: Row[] = [
  // ---- nginx 1.22.1, src/http/modules/ngx_http_limit_req_module.c ----
  // ngx_http_limit_req (the directive's parser): `burst = 0; delay = 0;` before the args are read.
  {
    system: 'nginx',
    option: 'burst',
    productDefault: '0',
    lab: () => field('nginx', 'burst'),
    // An example burst that shows the queue, the module's point; the export writes `burst=5`.
    example: {
      exportText: () => exported(toNginx(start('nginx'))),
      writes: (t) => /limit_req zone=\S+ burst=5[ ;]/.test(t),
      label: 'burst',
    },
  },
  {
    system: 'nginx',
    option: 'delay / nodelay',
    productDefault: 'delay=0',
    lab: () => `delay=${field('nginx', 'delay')}`,
  },
  // ngx_http_limit_req_merge_conf: status_code merged with NGX_HTTP_SERVICE_UNAVAILABLE (503).
  {
    system: 'nginx',
    option: 'limit_req_status',
    productDefault: '503',
    lab: () => String(rejection('nginx').status),
  },
  // ngx_http_limit_req_merge_conf: `ngx_conf_merge_value(conf->dry_run, prev->dry_run, 0)`.
  {
    system: 'nginx',
    option: 'limit_req_dry_run',
    productDefault: 'off',
    lab: () => (/limit_req_dry_run\s+on/.test(exported(toNginx(start('nginx')))) ? 'on' : 'off'),
  },

  // ---- HAProxy 2.6.12 ----
  // doc/configuration.txt (2.6), stick-table <expire>: "If this delay is not specified, the
  // session won't automatically expire, but older entries will be removed once full."
  {
    system: 'haproxy',
    option: 'stick-table expire',
    productDefault: 'none',
    lab: () => {
      const ms = field('haproxy', 'expireMs');
      return ms === 'absent' ? 'none' : haproxyDuration(Number(ms));
    },
  },
  // src/http_act.c parse_http_deny (2.6): `deny` without deny_status answers 403.
  {
    system: 'haproxy',
    option: 'deny_status',
    productDefault: '403',
    lab: () => String(rejection('haproxy').status),
  },

  // ---- Traefik v3.7.9, pkg/config/dynamic/middlewares.go ----
  // RateLimit.SetDefaults: `r.Burst = 1`.
  {
    system: 'traefik',
    option: 'burst',
    productDefault: '1',
    lab: () => field('traefik', 'maxTokens'),
    // A bucket of 10 shows a burst passing and then the waits; the export writes `burst: 10`.
    example: {
      exportText: () => exported(toTraefik(start('traefik'))),
      writes: (t) => /^\s*burst: 10$/m.test(t),
      label: 'burst',
    },
  },
  // RateLimit.SetDefaults: `r.Period = ptypes.Duration(time.Second)`.
  {
    system: 'traefik',
    option: 'period',
    productDefault: '1000 ms',
    lab: () => `${field('traefik', 'fillIntervalMs')} ms`,
    shownAt: 'period',
  },

  // ---- Envoy 1.31, envoy.filters.http.local_ratelimit ----
  // api/envoy/type/v3/token_bucket.proto: tokens_per_fill "If not specified, defaults to a single
  // token."
  {
    system: 'envoy',
    option: 'token_bucket.tokens_per_fill',
    productDefault: '1',
    lab: () => field('envoy', 'tokensPerFill'),
    // The first screen's bucket (link version 1's frozen default: 10, 5 per 1 s); the export
    // writes `tokens_per_fill: 5`.
    example: {
      exportText: () => exported(toEnvoy(start('envoy'))),
      writes: (t) => /^\s*tokens_per_fill: 5$/m.test(t),
      label: 'tokens_per_fill',
    },
  },
  // api/envoy/extensions/filters/http/local_ratelimit/v3/local_rate_limit.proto, filter_enabled
  // and filter_enforced: "Defaults to 0% of requests for safety." The lab limits every request.
  {
    system: 'envoy',
    option: 'filter_enabled / filter_enforced',
    productDefault: '0%',
    lab: () => '100%',
    example: {
      exportText: () => exported(toEnvoy(start('envoy'))),
      writes: (t) =>
        /filter_enabled:[\s\S]*?numerator: 100[\s\S]*?filter_enforced:[\s\S]*?numerator: 100/.test(
          t,
        ),
    },
  },
  // local_rate_limit.proto `status`: unset means 429 (local_ratelimit.cc sendLocalReply).
  {
    system: 'envoy',
    option: 'status',
    productDefault: '429',
    lab: () =>
      /^\s*status:/m.test(exported(toEnvoy(start('envoy'))))
        ? 'written'
        : String(rejection('envoy').status),
  },

  // ---- Envoy global rate limiting (ratelimit filter + envoyproxy/ratelimit) ----
  // api/envoy/extensions/filters/http/ratelimit/v3/rate_limit.proto: failure_mode_deny is a bool,
  // false unless set (requests pass when the service cannot be reached). The export writes it.
  {
    system: 'envoy-global',
    option: 'failure_mode_deny',
    productDefault: 'false',
    lab: () =>
      /failure_mode_deny: (true|false)/.exec(exported(toEnvoyGlobal(start('envoy-global'))))?.[1] ??
      'absent',
  },
  // envoyproxy/ratelimit config descriptors: shadow_mode false unless set.
  {
    system: 'envoy-global',
    option: 'shadow_mode',
    productDefault: 'false',
    lab: () => field('envoy-global', 'shadowMode', 'false'),
  },

  // ---- Kong 3.10.0, kong/plugins/rate-limiting/schema.lua ----
  // policy default "local"; error_code 429; hide_client_headers false.
  {
    system: 'kong',
    option: 'policy',
    productDefault: 'local',
    lab: () => /"?policy"?:\s*"?(\w+)/.exec(exported(toKong(start('kong'))))?.[1] ?? 'absent',
  },
  {
    system: 'kong',
    option: 'error_code',
    productDefault: '429',
    lab: () => String(rejection('kong').status),
  },
  {
    system: 'kong',
    option: 'hide_client_headers',
    productDefault: 'false',
    lab: () => String(!rejection('kong').headers.includes('ratelimit-limit')),
  },
  // limit_by default "consumer" (falling back to the client's address without one). The lab
  // keys by client, so the export writes `limit_by: ip` explicitly. (Not a field of the lab: the
  // key is chosen with the traffic.)
  {
    system: 'kong',
    option: 'limit_by',
    productDefault: 'consumer',
    lab: () => /"?limit_by"?:\s*"?(\w+)/.exec(exported(toKong(start('kong'))))?.[1] ?? 'absent',
    example: {
      exportText: () => exported(toKong(start('kong'))),
      writes: (t) => /"?limit_by"?:\s*"?ip/.test(t),
    },
  },

  // ---- Spring Cloud Gateway, RedisRateLimiter.java (master 376e364), Config ----
  // `private long burstCapacity = 1;`
  {
    system: 'spring-gateway',
    option: 'burstCapacity',
    productDefault: '1',
    lab: () => field('spring-gateway', 'maxTokens'),
    // A bucket of 10 at 5 a second: Spring's own 1 would pass one request a second whatever
    // replenishRate says. The export writes `redis-rate-limiter.burstCapacity: 10`.
    example: {
      exportText: () => exported(toSpringGateway(start('spring-gateway'))),
      writes: (t) => /redis-rate-limiter\.burstCapacity: 10$/m.test(t),
      label: 'burstCapacity',
    },
  },
  // `private int requestedTokens = 1;` — the lab takes one token per request and has no field.
  {
    system: 'spring-gateway',
    option: 'requestedTokens',
    productDefault: '1',
    lab: () => field('spring-gateway', 'cost', '1'),
  },

  // ---- Caddy, caddy-ratelimit: jitter 0 unless set (handler.go) ----
  {
    system: 'caddy',
    option: 'jitter',
    productDefault: '0',
    lab: () => (/jitter\s+[1-9]/.test(exported(toCaddy(start('caddy')))) ? 'set' : '0'),
  },

  // ---- redis-cell: CL.THROTTLE <key> <max_burst> <count> <period> [<quantity>], quantity 1 ----
  {
    system: 'redis-cell',
    option: 'quantity',
    productDefault: '1',
    lab: () => field('redis-cell', 'cost', '1'),
  },

  // ---- express-rate-limit 8.7.5, dist/index.mjs parseOptions ----
  // `limit: max ?? 5`, `windowMs: 60 * 1e3`, `statusCode: 429`.
  {
    system: 'express-rate-limit',
    option: 'limit',
    productDefault: '5',
    lab: () => field('express-rate-limit', 'limit'),
    shownAt: 'limit',
  },
  {
    system: 'express-rate-limit',
    option: 'windowMs',
    productDefault: '60000 ms',
    lab: () => `${field('express-rate-limit', 'windowMs')} ms`,
    shownAt: 'windowMs',
  },
  {
    system: 'express-rate-limit',
    option: 'statusCode',
    productDefault: '429',
    lab: () => String(rejection('express-rate-limit').status),
  },

  // ---- rate-limiter-flexible 11.4.0, lib/RateLimiterAbstract.js ----
  // blockDuration: `typeof value === 'undefined' ? 0 : value`; execEvenly: false unless set.
  {
    system: 'rate-limiter-flexible',
    option: 'blockDuration',
    productDefault: '0',
    lab: () => field('rate-limiter-flexible', 'blockMs', '0'),
  },
  {
    system: 'rate-limiter-flexible',
    option: 'execEvenly',
    productDefault: 'false',
    lab: () => field('rate-limiter-flexible', 'execEvenly', 'false'),
  },
];

/** The product's default beside a field of the system's parameter panel, or null. */
function shownDefault(id: string, label: string): string | null {
  const s = system(id);
  render(createElement(ParamFields, { config: start(id), system: s, onChange: () => {} }));
  const input = screen.getByLabelText(label, { exact: true });
  const ids = (input.getAttribute('aria-describedby') ?? '').split(' ');
  const hint = ids
    .map((i) => document.getElementById(i))
    .find((el) => el?.classList.contains('param-default'));
  cleanup();
  return hint?.textContent ?? null;
}

/** "nginx", "Traefik", "Spring Cloud Gateway": the product, as the hint names it. */
function who(id: string): string {
  const s = system(id);
  return s.shortName ?? s.name.split(' ')[0] ?? s.name;
}

describe("each system's optional options: the product's default, or an example the export writes", () => {
  it.each(ROWS)('$system $option (default $productDefault)', (row) => {
    const lab = row.lab();
    if (row.example === undefined) {
      expect(lab).toBe(row.productDefault);
    } else {
      // An example value: it differs, the export writes it, and the field shows the default.
      expect(lab).not.toBe(row.productDefault);
      expect(row.example.writes(row.example.exportText())).toBe(true);
      if (row.example.label !== undefined)
        expect(shownDefault(row.system, row.example.label)).toBe(
          `${who(row.system)}'s default: ${row.productDefault}`,
        );
    }
    if (row.shownAt !== undefined)
      expect(shownDefault(row.system, row.shownAt)).toBe(
        `${who(row.system)}'s default: ${row.productDefault}`,
      );
  });

  it('required options claim no default (rate-limiter-flexible 11.4.0 throws without points or duration)', async () => {
    // lib/RateLimiterAbstract.js: the points and duration setters throw when left out.
    const { RateLimiterMemory } = await import('rate-limiter-flexible');
    // (Its own types require both as well: the casts let the test leave each out.)
    expect(() => new RateLimiterMemory({ duration: 1 } as never)).toThrow(/points must be set/);
    expect(() => new RateLimiterMemory({ points: 4 } as never)).toThrow(/duration must be set/);
    const rlf = system('rate-limiter-flexible');
    for (const key of ['points', 'duration']) {
      const p = rlf.params.find((q) => q.key === key);
      expect(p?.help).not.toMatch(/default/);
      expect(p?.productDefault ?? p?.implied).toBeUndefined();
    }
    // The export writes both, so the pasted limiter is the lab's.
    const text = exported(toRateLimiterFlexible(start('rate-limiter-flexible')));
    expect(text).toMatch(/const POINTS = 4;/);
    expect(text).toMatch(/points: POINTS,/);
    expect(text).toMatch(/duration: 1\b/);
  });

  it('no field says its default twice, in its help and beside it', () => {
    // No field says "default" in its help and again beside it.
    for (const s of ['nginx', 'traefik', 'envoy', 'spring-gateway', 'express-rate-limit'].map(
      system,
    )) {
      for (const p of s.params) {
        if ((p.productDefault ?? p.implied) === undefined) continue;
        expect(p.help, `${s.id} ${p.key}`).not.toMatch(/default/i);
      }
    }
  });
});
