/**
 * Cloudflare's real limits: a rate limiting rule takes a period of 10 s, 1, 2, 5 or 10 min or 1 h
 * only (developers.cloudflare.com/waf/rate-limiting-rules/parameters/). The Cloudflare system's
 * form offers those, a link with another value says so and opens as the Redis two-window counter
 * (the same decisions), and links written before the Redis pattern had a head of its own open as
 * Cloudflare only when Cloudflare takes their window.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { defaultConfig, encodeConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import type { PlaygroundConfig } from '../../src/config';
import {
  CLOUDFLARE_PERIODS_S,
  CLOUDFLARE_TIMEOUTS_S,
  CLOUDFLARE_TIMEOUTS_TEXT,
  DEFAULT_SYSTEM,
  SYSTEMS,
  systemById,
  systemOf,
} from '../../src/systems';
import { parseDrafts } from '../../src/ui/limiter/ParamFields';

const cloudflare = systemById('cloudflare');
if (cloudflare === undefined) throw new Error('the Cloudflare system is registered');

const swc = (limit: number, windowMs: number): AlgorithmConfig => ({
  kind: 'sliding-window-counter',
  limit,
  windowMs,
});

/** A paused config of one limiter. */
function withLimiter(entry: PlaygroundConfig['limiters'][number]): PlaygroundConfig {
  const base = defaultConfig();
  return { ...base, limiters: [entry], view: { ...base.view, tMs: 1500, paused: true } };
}

describe("Cloudflare's periods", () => {
  it('are the values the parameters page lists, and so are the mitigation timeouts', () => {
    // parameters.mdx @ 5d2cc64b, "When rate exceeds > Period" and "For duration".
    expect(CLOUDFLARE_PERIODS_S).toEqual([10, 60, 120, 300, 600, 3600]);
    expect(CLOUDFLARE_TIMEOUTS_S).toEqual([10, 60, 120, 300, 600, 3600, 86400]);
    expect(CLOUDFLARE_TIMEOUTS_TEXT).toBe('10 s, 1 min, 2 min, 5 min, 10 min, 1 h or 1 day');
  });

  it('the period field says which plans take which periods (every period is offered)', () => {
    const period = cloudflare.params.find((p) => p.field === 'windowMs');
    expect(period?.help).toBe(
      'Cloudflare takes only these periods, by plan (Free: 10 s; Pro: 10 s, 1 min; Business: 10 s, 1 min, 10 min; Enterprise: up to 10 min; 1 h only with Advanced Rate Limiting).',
    );
  });

  it('the form offers exactly those periods, under the API’s names', () => {
    const period = cloudflare.params.find((p) => p.field === 'windowMs');
    expect(period?.key).toBe('period');
    expect(period?.input).toBe('choice');
    expect(period?.choices?.map((c) => Number(c.value))).toEqual(
      CLOUDFLARE_PERIODS_S.map((s) => s * 1000),
    );
    expect(period?.choices?.map((c) => c.label)).toEqual([
      '10 s',
      '1 min',
      '2 min',
      '5 min',
      '10 min',
      '1 h',
    ]);
    expect(cloudflare.params.find((p) => p.field === 'limit')?.key).toBe('requests_per_period');
    // A chosen period is held as a number of ms.
    const parsed = parseDrafts(
      'sliding-window-counter',
      { limit: '7', windowMs: '120000' },
      cloudflare,
    );
    expect(parsed.config).toEqual(swc(7, 120_000));
  });

  it('its default is a config Cloudflare takes; every system takes its own default', () => {
    expect(cloudflare.refuses?.(cloudflare.defaultConfig)).toBeNull();
    for (const s of SYSTEMS) expect(s.refuses?.(s.defaultConfig) ?? null, s.id).toBeNull();
  });

  it('refuses any other window with a message naming the periods it takes', () => {
    for (const ms of [1, 999, 1000, 1234, 9999, 10_001, 30_000, 59_000, 7_200_000]) {
      expect(cloudflare.refuses?.(swc(5, ms))?.message).toMatch(
        /Cloudflare's rules take a period of 10 s, 1 min, 2 min, 5 min, 10 min or 1 h only, got /,
      );
    }
    expect(cloudflare.refuses?.(swc(5, 1234))?.message).toMatch(/got 1234 ms$/);
    expect(cloudflare.refuses?.(swc(5, 1000))?.message).toMatch(/got 1 s$/);
    for (const s of CLOUDFLARE_PERIODS_S) expect(cloudflare.refuses?.(swc(5, s * 1000))).toBeNull();
  });
});

describe('Cloudflare links', () => {
  it('a Cloudflare limiter is written under its own head and reopens as written', () => {
    const config = withLimiter({ system: 'cloudflare', config: swc(50, 60_000) });
    const link = encodeConfig(config);
    expect(link).toContain('l=cloudflare:requests_per_period=50,period=1m');
    const opened = decodeConfig(link);
    expect(opened.errors).toEqual([]);
    expect(opened.config).toStrictEqual(config);
  });

  it('a Cloudflare link with a period Cloudflare refuses says so, and opens as the Redis counter', () => {
    for (const [text, ms, got] of [
      ['1s', 1000, '1 s'],
      ['1234ms', 1234, '1234 ms'],
      ['2h', 7_200_000, '7200 s'],
    ] as const) {
      const opened = decodeConfig(`v=1&l=cloudflare:requests_per_period=5,period=${text}`);
      expect(opened.errors.map((e) => e.message)).toEqual([
        `l[0] period: Cloudflare's rules take a period of 10 s, 1 min, 2 min, 5 min, 10 min or 1 h only, got ${got}; opened as Redis two-window counter (sliding window), which decides the same`,
      ]);
      // Nothing lost: the same numbers, under the system that takes them.
      const entry = opened.config.limiters[0] ?? { config: swc(1, 1) };
      expect(entry).toEqual({ config: swc(5, ms) });
      expect(systemOf(entry).id).toBe('redis-sliding-window');
    }
  });

  it('a Cloudflare link without a period (duration=1m is not its name) stays Cloudflare at its default period', () => {
    const cases = [
      // `duration` is no Cloudflare link option (Cloudflare's "For duration" is the mitigation
      // timeout, which the lab does not model): ignored, and the missing period says so.
      [
        'v=1&l=cloudflare:requests_per_period=5,duration=1m',
        [
          'l[0]: unknown option "duration" for cloudflare (known: name, requests_per_period, period, std_headers); ignored',
          "l[0] period: missing; set to 10 s, Cloudflare rate limiting rule's default",
        ],
      ],
      [
        'v=1&l=cloudflare:requests_per_period=5',
        ["l[0] period: missing; set to 10 s, Cloudflare rate limiting rule's default"],
      ],
      [
        'v=1&l=cloudflare:requests_per_period=5,period=soon',
        ['l[0] period: "soon" unreadable; set to 10 s, Cloudflare rate limiting rule\'s default'],
      ],
    ] as const;
    for (const [link, messages] of cases) {
      const opened = decodeConfig(link);
      expect(opened.errors.map((e) => e.message)).toEqual(messages);
      // Not a silently invented 1 s period under another system: Cloudflare, its own default.
      expect(opened.config.limiters[0]).toEqual({ system: 'cloudflare', config: swc(5, 10_000) });
    }
  });

  it('an old sliding-window-counter link opens as Cloudflare only for a period Cloudflare takes', () => {
    const oneSecond = decodeConfig('v=1&l=sliding-window-counter:limit=5,window=1s');
    expect(oneSecond.errors).toEqual([]);
    expect(oneSecond.config.limiters[0]).toEqual({ config: swc(5, 1000) });
    expect(systemOf(oneSecond.config.limiters[0] ?? { config: swc(1, 1) }).id).toBe(
      'redis-sliding-window',
    );
    // Written back as it was: the algorithm's head reads as the Redis pattern at 1 s.
    expect(encodeConfig(oneSecond.config)).toContain('l=sliding-window-counter:limit=5,window=1s');

    const oneMinute = decodeConfig('v=1&l=sliding-window-counter:limit=100,window=1m');
    expect(oneMinute.errors).toEqual([]);
    expect(oneMinute.config.limiters[0]).toEqual({
      system: 'cloudflare',
      config: swc(100, 60_000),
    });
  });

  it('the Redis counter at a Cloudflare period writes its own head, so it stays the Redis counter', () => {
    const config = withLimiter({ config: swc(100, 60_000) });
    expect(systemOf(config.limiters[0] ?? { config: swc(1, 1) })).toBe(
      DEFAULT_SYSTEM['sliding-window-counter'],
    );
    const link = encodeConfig(config);
    expect(link).toContain('l=redis-sliding-window:limit=100,window=1m');
    const opened = decodeConfig(link);
    expect(opened.errors).toEqual([]);
    expect(opened.config).toStrictEqual(config);
  });
});

describe('Cloudflare at the window boundary (the 2017 post’s formula as known answers)', () => {
  it('a full previous period weighs in whole at exactly the period, and 1 ms later a little less', () => {
    // requests_per_period 50, period 10 s: 50 pass at t = 0, the 51st is refused.
    const at = (t: number) => {
      const limiter = createLimiter(swc(50, 10_000));
      for (let i = 0; i < 50; i += 1) expect(limiter.decide(0).outcome).toBe('admit');
      return limiter.decide(t);
    };
    // 1 ms before the boundary: the same window, 50 counted.
    expect(at(9_999).outcome).toBe('reject');
    // Exactly at 10 s: previous 50 · (10000 − 0)/10000 + 0 = 50, not below 50.
    expect(at(10_000).outcome).toBe('reject');
    expect(at(10_000).retryAfterMs).toBe(1);
    // 1 ms later: 50 · 9999/10000 = 49.995 < 50.
    expect(at(10_001).outcome).toBe('admit');
  });
});
