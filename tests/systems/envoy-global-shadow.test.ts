/**
 * envoyproxy/ratelimit `shadow_mode` in the Envoy global system (src/limiter/base_limiter.go
 * GetResponseDescriptorStatus, master f2fb157): known answers, and the property that shadow mode
 * changes only the answer — never a count — against the same limiter enforcing. The Redis side
 * (the service's INCRBY for every hit) is proven in envoy-global.redis.server.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAlgorithmConfig, createLimiter } from '../../src/core';
import { explainDecision } from '../../src/core/explain';
import type { AlgorithmConfig, CalendarWindowsInspection } from '../../src/core';
import { defaultConfig, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import { toEnvoyGlobal, toKong, toRedisLua } from '../../src/export';
import { envoyGlobal } from '../../src/systems/envoy-global';
import { FC_SEED, configArb, runs, traceArb } from '../core/arbitraries';
import { responseOf } from '../../src/systems/respond';

/** 2023-11-14T22:14:00Z: a whole minute (1,700,000,040 s = 28,333,334 minutes). */
const T0 = 1_700_000_040_000;

function shadowOf(c: AlgorithmConfig): AlgorithmConfig {
  return envoyGlobal.derive?.({ ...c, shadowMode: true } as AlgorithmConfig) as AlgorithmConfig;
}

describe('Envoy global shadow_mode', () => {
  it('known answer: minute 3, five hits at once — all pass, the last two at 0 remaining, all counted', () => {
    const config = shadowOf({ kind: 'calendar-windows', minute: 3 });
    expect(config).toEqual({
      kind: 'calendar-windows',
      minute: 3,
      align: 'epoch',
      countRejected: true,
      shadowMode: true,
    });
    const shadow = createLimiter(config);
    const enforcing = createLimiter({ ...config, shadowMode: false } as AlgorithmConfig);
    const rows = Array.from({ length: 5 }, () => {
      const before = shadow.inspect(T0 + 500);
      const d = shadow.decide(T0 + 500);
      const e = enforcing.decide(T0 + 500);
      const response = responseOf(envoyGlobal)(config, d, {
        standardHeaders: true,
        nowMs: T0 + 500,
        before,
      });
      return {
        outcome: d.outcome,
        enforced: e.outcome,
        remaining: d.remaining,
        rule: explainDecision(before, d).rule,
        status: response.status,
        headers: Object.fromEntries(response.headers),
      };
    });
    expect(rows.map((r) => r.outcome)).toEqual(['admit', 'admit', 'admit', 'admit', 'admit']);
    expect(rows.map((r) => r.enforced)).toEqual(['admit', 'admit', 'admit', 'reject', 'reject']);
    expect(rows.map((r) => r.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(rows[3]?.rule).toBe('minute 3 ≥ 3 → OVER_LIMIT, shadow_mode → admit');
    expect(rows[2]?.rule).toBe('every window has room → admit');
    // 200 without x-envoy-ratelimited; the draft-03 headers still say 0 remaining.
    expect(rows[4]).toMatchObject({
      status: 200,
      headers: {
        'x-ratelimit-limit': '3, 3;w=60',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '60',
      },
    });
    expect(rows[4]?.headers['x-envoy-ratelimited']).toBeUndefined();
    // Counted like every hit: 5 in the minute, the same as the enforcing service's counter.
    const count = (l: ReturnType<typeof createLimiter>) =>
      (l.inspect(T0 + 500) as CalendarWindowsInspection).windows[0]?.count;
    expect(count(shadow)).toBe(5);
    expect(count(enforcing)).toBe(5);
    // The next epoch minute starts a new counter.
    expect(shadow.decide(T0 + 60_000)).toMatchObject({ outcome: 'admit', remaining: 2 });
  });

  it('x-ratelimit-* come from the descriptor closest to its limit; the first one on a tie', () => {
    const config = shadowOf({ kind: 'calendar-windows', second: 2, hour: 2 });
    const l = createLimiter(config);
    const at = T0 + 1_234; // 22:14:01.234: 1 s left in the second, 2,759 s in the hour
    const first = l.inspect(at);
    const d = l.decide(at);
    const h = Object.fromEntries(
      responseOf(envoyGlobal)(config, d, { standardHeaders: true, nowMs: at, before: first })
        .headers,
    );
    // Both descriptors have 1 left: the second (listed first) is reported.
    expect(h).toEqual({
      'x-ratelimit-limit': '2, 2;w=1, 2;w=3600',
      'x-ratelimit-remaining': '1',
      'x-ratelimit-reset': '1',
    });
    const next = at + 1000;
    const before = l.inspect(next);
    const h2 = Object.fromEntries(
      responseOf(envoyGlobal)(config, l.decide(next), {
        standardHeaders: true,
        nowMs: next,
        before,
      }).headers,
    );
    // A new second (1 left of 2), the hour at 2 of 2 (0 left): the hour is reported.
    expect(h2).toEqual({
      'x-ratelimit-limit': '2, 2;w=1, 2;w=3600',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '2758', // 1,700,000,042 mod 3600 = 842
    });
  });

  it('property: shadow mode answers admit where the enforcing service rejects, and counts alike', () => {
    fc.assert(
      fc.property(configArb['calendar-windows'], traceArb({ keys: 3 }), (c, trace) => {
        const shadowConfig = { ...c, shadowMode: true } as AlgorithmConfig;
        // Enforcing with every hit counted: what envoyproxy/ratelimit does without shadow_mode.
        const enforcingConfig = { ...c, countRejected: true } as AlgorithmConfig;
        const shadow = createLimiter(shadowConfig);
        const enforcing = createLimiter(enforcingConfig);
        for (const { nowMs, key } of trace) {
          const s = shadow.decide(nowMs, key);
          const e = enforcing.decide(nowMs, key);
          expect(s.outcome).toBe('admit');
          expect({ ...s, outcome: e.outcome, retryAfterMs: e.retryAfterMs }).toEqual(e);
          expect(s.retryAfterMs).toBe(0);
          const si = shadow.inspect(nowMs, key) as CalendarWindowsInspection;
          const ei = enforcing.inspect(nowMs, key) as CalendarWindowsInspection;
          expect(si.windows).toEqual(ei.windows);
          expect(si.shadowMode).toBe(true);
        }
      }),
      { seed: FC_SEED, numRuns: runs(200) },
    );
  });

  it('a bad shadowMode is named; exports carry or refuse it', () => {
    expect(
      checkAlgorithmConfig({ kind: 'calendar-windows', minute: 1, shadowMode: 'yes' }),
    ).toEqual([expect.objectContaining({ field: 'shadowMode' })]);
    const config = shadowOf({ kind: 'calendar-windows', minute: 10 });
    const out = toEnvoyGlobal(config);
    expect(out.ok && out.text).toContain('shadow_mode: true');
    const plain = toEnvoyGlobal({ kind: 'calendar-windows', minute: 10 });
    expect(plain.ok && plain.text).not.toContain('shadow_mode');
    const kongOut = toKong(config);
    expect(kongOut.ok && kongOut.differences.join(' ')).toContain('no shadow mode');
    expect(toRedisLua(config).script).toContain('local SHADOW = true');
  });

  it('a link writes shadow_mode under its own name and reads it back', () => {
    const config = {
      ...defaultConfig(),
      limiters: [
        { system: 'envoy-global', config: shadowOf({ kind: 'calendar-windows', minute: 10 }) },
      ],
    };
    const link = encodeConfig(config);
    expect(decodeURIComponent(link)).toContain('l=envoy-global:');
    expect(decodeURIComponent(link)).toContain('shadow_mode');
    const back = decodeConfig(link);
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(config);
    // Without it, the limiter enforces.
    const plain = decodeConfig(decodeURIComponent(link).replace(/,?shadow_mode(=[a-z]+)?/, ''));
    expect(plain.errors).toEqual([]);
    const entry = plain.config.limiters[0]?.config;
    expect(entry?.kind === 'calendar-windows' && entry.shadowMode).toBeFalsy();
  });

  it('a link writes each unit under a plain name, and links written with the descriptor label still open', () => {
    const config = {
      ...defaultConfig(),
      limiters: [
        {
          system: 'envoy-global',
          config: shadowOf({ kind: 'calendar-windows', second: 5, minute: 10, month: 3 }),
        },
      ],
    };
    const link = encodeConfig(config);
    const text = decodeURIComponent(link);
    expect(text).toMatch(/l=envoy-global:second=5,minute=10,month=3/);
    expect(text).not.toContain('requests_per_unit');
    expect(decodeConfig(link).config).toEqual(config);
    // The spelling links used before the plain names.
    const old = text.replace(
      'second=5,minute=10,month=3',
      'requests_per_unit (unit: second)=5,requests_per_unit (unit: minute)=10,month (30 d) / year (365 d)=3',
    );
    const back = decodeConfig(old.split(' ').join('%20'));
    expect(back.errors).toEqual([]);
    expect(back.config).toEqual(config);
    // Both spellings of one option: the first is used, and the page says so.
    const twice = decodeConfig(
      text.replace('minute=10', 'minute=10,requests_per_unit%20(unit:%20minute)=7'),
    );
    expect(twice.config).toEqual(config);
    expect(twice.errors.map((e) => e.message).join(' ')).toContain('given more than once');
  });
});
