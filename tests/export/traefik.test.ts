/**
 * Traefik's rateLimit middleware as dynamic configuration: field names and units as the Traefik v3
 * docs give them (docs/content/reference/routing-configuration/http/middlewares/ratelimit.md,
 * v3.7.9), read back with the YAML parser.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toTraefik, traefikPeriod } from '../../src/export';
import { traefik } from '../../src/systems/traefik';

interface Doc {
  http: { middlewares: Record<string, { rateLimit: Record<string, unknown> }> };
}

describe('Traefik export', () => {
  it('writes average, period, burst and the default source criterion under http.middlewares', () => {
    const out = toTraefik(
      traefik.derive!({
        kind: 'token-bucket',
        maxTokens: 50,
        tokensPerFill: 100,
        fillIntervalMs: 60_000,
      }),
    );
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const doc = parse(out.text) as Doc;
    expect(doc.http.middlewares['rate-limit']?.rateLimit).toEqual({
      average: 100,
      period: '1m',
      burst: 50,
      sourceCriterion: { ipStrategy: { depth: 0 } },
    });
    // Traefik's own config: no difference to report (100/min < 1 r/s: maxDelay 500 ms, exact).
    expect(out.differences).toEqual([]);
  });

  it('periods as Go durations; a token bucket without Traefik’s maxDelay says so; others refuse', () => {
    expect([1000, 60_000, 90_000, 250, 3_600_000].map(traefikPeriod)).toEqual([
      '1s',
      '1m',
      '1m30s',
      '250ms',
      '1h',
    ]);
    const envoy = toTraefik({
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 5,
      fillIntervalMs: 1000,
      refill: 'interval',
    });
    expect(envoy.ok && envoy.differences.join(' ')).toMatch(
      /wait up to 100 ms .*never delays.*timer/,
    );
    // 3 r/s: 1 s / 6 is not whole ms; the Traefik system waits up to it to the ns, no difference.
    const three = toTraefik(
      traefik.derive!({
        kind: 'token-bucket',
        maxTokens: 3,
        tokensPerFill: 3,
        fillIntervalMs: 1000,
      }),
    );
    expect(three.ok && three.differences).toEqual([]);
    // The same bucket waiting only whole ms (a plain token bucket with maxDelayMs 166) differs.
    const rounded = toTraefik({
      kind: 'token-bucket',
      maxTokens: 3,
      tokensPerFill: 3,
      fillIntervalMs: 1000,
      maxDelayMs: 166,
    });
    expect(rounded.ok && rounded.differences.join(' ')).toMatch(
      /wait up to 166\.666666ms .*waits up to 166 ms/,
    );
    const refused = toTraefik({ kind: 'fixed-window', limit: 5, windowMs: 1000 });
    expect(refused.ok).toBe(false);
    expect(() =>
      toTraefik(
        { kind: 'token-bucket', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000 },
        { name: 'a b' },
      ),
    ).toThrow(/middleware name/);
  });
});
