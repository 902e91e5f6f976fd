import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { ALGORITHM_KINDS } from '../../src/core';
import { toNginx } from '../../src/export';

function text(config: AlgorithmConfig, options = {}): string {
  const out = toNginx(config, options);
  if (!out.ok) throw new Error(out.reason);
  return out.text;
}

/** The directive lines only. */
function directives(config: AlgorithmConfig, options = {}): string[] {
  return text(config, options)
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));
}

describe('toNginx', () => {
  it('writes limit_req_zone, limit_req with burst and delay=, and limit_req_status', () => {
    expect(
      directives({
        kind: 'leaky-bucket',
        rate: 10,
        rateUnit: 'r/s',
        burst: 20,
        delay: 8,
        limitReqStatus: 429,
      }),
    ).toEqual([
      'limit_req_zone $binary_remote_addr zone=ratelimit:10m rate=10r/s;',
      'limit_req zone=ratelimit burst=20 delay=8;',
      'limit_req_status 429;',
    ]);
  });

  it('leaves out what nginx refuses or takes by default: burst=0, delay=0, limit_req_status 503', () => {
    expect(
      directives({
        kind: 'leaky-bucket',
        rate: 30,
        rateUnit: 'r/m',
        burst: 0,
        delay: 0,
        limitReqStatus: 503,
      }),
    ).toEqual([
      'limit_req_zone $binary_remote_addr zone=ratelimit:10m rate=30r/m;',
      'limit_req zone=ratelimit;',
    ]);
    expect(
      directives({ kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 3, delay: 'nodelay' }),
    ).toContain('limit_req zone=ratelimit burst=3 nodelay;');
  });

  it('takes the zone key, name and size as options, quoting a key with spaces', () => {
    const lines = directives(
      { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 1, delay: 0 },
      { key: '$http_x_api_key $uri', zone: 'api', zoneSize: '512k' },
    );
    expect(lines[0]).toBe('limit_req_zone "$http_x_api_key $uri" zone=api:512k rate=1r/s;');
    expect(() =>
      toNginx(
        { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 },
        { zoneSize: '16k' },
      ),
    ).toThrow(/at least 32k/);
    expect(() =>
      toNginx(
        { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 },
        { zone: 'a:b' },
      ),
    ).toThrow(RangeError);
  });

  it("states the version it assumes and explains nginx's r/m rounding", () => {
    const out = toNginx({ kind: 'leaky-bucket', rate: 7, rateUnit: 'r/m', burst: 2, delay: 1 });
    expect(out.ok && out.assumes).toMatch(/1\.15\.7/);
    // ⌊7000/60⌋ = 116 milli-requests per second: 1000/116 s per request
    expect(out.ok && out.notes.join(' ')).toMatch(
      /116 milli-requests per second .* 8\.621 s, not 8\.571 s/,
    );
    expect(out.ok && out.differences.join(' ')).toMatch(/evicts the least recently used/);
  });

  it('says why nginx cannot express the other kinds, without throwing', () => {
    const configs: AlgorithmConfig[] = [
      { kind: 'fixed-window', limit: 5, windowMs: 1000 },
      { kind: 'sliding-log', limit: 5, windowMs: 1000 },
      { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
      { kind: 'token-bucket', maxTokens: 5, tokensPerFill: 1, fillIntervalMs: 1000 },
      { kind: 'gcra', count: 5, periodMs: 1000, burst: 2 },
      { kind: 'anchored-window', limit: 5, windowMs: 1000 },
      { kind: 'calendar-windows', second: 5 },
    ];
    expect(configs.map((c) => c.kind).sort()).toEqual(
      ALGORITHM_KINDS.filter((k) => k !== 'leaky-bucket').sort(),
    );
    for (const c of configs) {
      const out = toNginx(c);
      expect(out.ok).toBe(false);
      if (!out.ok) {
        expect(out.kind).toBe(c.kind);
        expect(out.reason).toMatch(/leaky bucket/);
      }
    }
  });

  it('throws on an invalid config, as createLimiter does', () => {
    expect(() =>
      toNginx({ kind: 'leaky-bucket', rate: 0, rateUnit: 'r/s', burst: 0, delay: 0 }),
    ).toThrow(/rate/);
  });
});
