/**
 * The HAProxy export and import: the frontend lines, the round trip, the snippet forms people
 * write (inline condition or named acl, gt or ge, deny_status or not), and a clear message at a
 * line and column for what is not understood. The real haproxy runs them in haproxy.server.test.ts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SlidingWindowCounterConfig } from '../../src/core';
import { HAPROXY_DENY_STATUSES } from '../../src/core';
import {
  MAX_IMPORT_CHARS,
  formatImportError,
  haproxyDuration,
  importHaproxy,
  toHaproxy,
  toNginx,
} from '../../src/export';
import { detectFormat } from '../../src/ui/export/exportText';

const HAPROXY: SlidingWindowCounterConfig = {
  kind: 'sliding-window-counter',
  limit: 10,
  windowMs: 10_000,
  anchor: 'entry',
  expireMs: 30_000,
  denyStatus: 429,
};

function errorsOf(text: string): string[] {
  const r = importHaproxy(text);
  return r.ok ? [] : r.errors.map(formatImportError);
}

describe('HAProxy export', () => {
  it('writes the stick-table, track-sc0 and deny lines of a frontend', () => {
    const out = toHaproxy(HAPROXY);
    if (!out.ok) throw new Error(out.reason);
    const lines = out.text.split('\n').map((l) => l.trim());
    expect(lines).toContain('frontend rate_limited');
    // http-request rules are ignored outside HTTP mode (haproxy -c warns; nothing is limited).
    expect(lines[lines.indexOf('frontend rate_limited') + 1]).toBe('mode http');
    expect(lines).toContain('stick-table type ip size 100k expire 30s store http_req_rate(10s)');
    expect(lines).toContain('http-request track-sc0 src');
    expect(lines).toContain('http-request deny deny_status 429 if { sc_http_req_rate(0) gt 10 }');
    expect(out.language).toBe('haproxy');
    expect(out.assumes).toMatch(/2\.6\.12/);
  });

  it('leaves out expire and deny_status when the limiter has none (HAProxy then answers 403)', () => {
    const out = toHaproxy({
      kind: 'sliding-window-counter',
      limit: 10,
      windowMs: 10_000,
      anchor: 'entry',
    });
    if (!out.ok) throw new Error(out.reason);
    expect(out.text).toContain('stick-table type ip size 100k store http_req_rate(10s)');
    expect(out.text).toContain('http-request deny if { sc_http_req_rate(0) gt 10 }');
    expect(out.notes.join(' ')).toMatch(/403/);
  });

  it('says why it cannot express other limiters, and what comes closest', () => {
    for (const config of [
      { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 } as const,
      { kind: 'gcra', count: 5, periodMs: 1000, burst: 2 } as const,
    ]) {
      const out = toHaproxy(config);
      expect(out.ok).toBe(false);
      if (!out.ok) expect(out.reason).toMatch(/HAProxy system/);
    }
  });

  it('writes times in HAProxy units, exactly', () => {
    expect(haproxyDuration(10_000)).toBe('10s');
    expect(haproxyDuration(1500)).toBe('1500ms');
    expect(haproxyDuration(120_000)).toBe('2m');
    expect(haproxyDuration(86_400_000)).toBe('1d');
    expect(haproxyDuration(7)).toBe('7ms');
  });

  it('refuses a frontend name or table size HAProxy would not read', () => {
    expect(() => toHaproxy(HAPROXY, { frontend: 'my front' })).toThrow(/frontend name/);
    expect(() => toHaproxy(HAPROXY, { size: '10x' })).toThrow(/size/);
  });
});

describe('HAProxy import', () => {
  it('reads back every exported limiter unchanged (round trip)', () => {
    const arb = fc.record(
      {
        limit: fc.integer({ min: 1, max: 1_000_000 }),
        windowMs: fc.oneof(fc.integer({ min: 2, max: 86_400_000 }), fc.constantFrom(1000, 60_000)),
        expireMs: fc.integer({ min: 1, max: 86_400_000 }),
        denyStatus: fc.constantFrom(...HAPROXY_DENY_STATUSES),
      },
      { requiredKeys: ['limit', 'windowMs'] },
    );
    fc.assert(
      fc.property(arb, (r) => {
        const config: SlidingWindowCounterConfig = {
          kind: 'sliding-window-counter',
          anchor: 'entry',
          ...r,
        };
        const out = toHaproxy(config, { frontend: 'fe_api', size: '1m' });
        if (!out.ok) throw new Error(out.reason);
        const back = importHaproxy(out.text);
        if (!back.ok) throw new Error(back.errors.map(formatImportError).join('\n'));
        expect(back.config).toEqual(config);
        expect(back.extras).toEqual({ frontend: 'fe_api', size: '1m' });
        expect(detectFormat(out.text)).toBe('haproxy');
      }),
      { numRuns: 200 },
    );
  });

  it('reads a whole haproxy.cfg with a named acl, ge, and the table in a backend', () => {
    const text = `global
    maxconn 4096
defaults
    mode http
    timeout client 30s
backend per_ip
    stick-table type ipv6 size 1m expire 1m store http_req_rate(1m),conn_cur
frontend www
    bind :443 ssl crt /etc/site.pem
    acl too_fast sc1_http_req_rate ge 101   # more than 100 a minute
    http-request track-sc1 src table per_ip
    http-request deny deny_status 503 if too_fast
    default_backend app
`;
    const r = importHaproxy(text);
    if (!r.ok) throw new Error(r.errors.map(formatImportError).join('\n'));
    expect(r.config).toEqual({
      kind: 'sliding-window-counter',
      limit: 100,
      windowMs: 60_000,
      anchor: 'entry',
      expireMs: 60_000,
      denyStatus: 503,
    });
  });

  it('warns where HAProxy will not behave as the playground shows', () => {
    const r = importHaproxy(`frontend fe
  stick-table type string size 10k store http_req_rate(10s)
  http-request track-sc0 req.hdr(X-API-Key)
  http-request deny if { sc_http_req_rate(0) gt 5 }`);
    if (!r.ok) throw new Error('expected ok');
    expect(r.config).toMatchObject({ limit: 5, windowMs: 10_000 });
    expect(r.config).not.toHaveProperty('denyStatus');
    const warnings = r.warnings.map(formatImportError).join('\n');
    expect(warnings).toMatch(/^3:26 tracked by "req.hdr\(X-API-Key\)"/m);
    expect(warnings).toMatch(/no expire/);
  });

  it.each([
    [
      'a status without a built-in reply',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request track-sc0 src\nhttp-request deny deny_status 418 if { sc_http_req_rate(0) gt 5 }',
      /^3:31 expected deny_status 400, 401, 403.* got "418"/,
    ],
    [
      'a period that is not a time',
      'stick-table type ip size 1k store http_req_rate(ten)\nhttp-request track-sc0 src\nhttp-request deny if { sc_http_req_rate(0) gt 5 }',
      /^1:35 expected the http_req_rate period as a whole number/,
    ],
    [
      'no http_req_rate stored',
      'stick-table type ip size 1k store conn_rate(10s)\nhttp-request track-sc0 src\nhttp-request deny if { sc0_conn_rate gt 5 }',
      /^1:35 this stick-table stores no http_req_rate/,
    ],
    [
      'a comparison that is no limit',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request track-sc0 src\nhttp-request deny if { sc_http_req_rate(0) lt 5 }',
      /^3:44 expected gt or ge/,
    ],
    [
      'the tracking after the deny',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request deny if { sc_http_req_rate(0) gt 5 }\nhttp-request track-sc0 src',
      /^3:14 expected track-sc0 before the deny rule/,
    ],
    [
      'another counter than the one tracked',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request track-sc0 src\nhttp-request deny if { sc_http_req_rate(1) gt 5 }',
      /^3:24 expected "http-request track-sc1 src"/,
    ],
    [
      'an acl that is not there',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request track-sc0 src\nhttp-request deny if abuse',
      /^3:22 expected an acl "abuse"/,
    ],
    [
      'no deny rule',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request track-sc0 src',
      /^1:1 expected "http-request deny/,
    ],
    [
      'a combined condition',
      'stick-table type ip size 1k store http_req_rate(10s)\nhttp-request track-sc0 src\nhttp-request deny if { sc_http_req_rate(0) gt 5 } !{ src 10.0.0.1 }',
      /^3:51 conditions combined with others are not modelled/,
    ],
  ])('refuses %s at its line and column', (_, text, message) => {
    const errors = errorsOf(text);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(message);
  });

  it('refuses text longer than the import limit before reading it', () => {
    const errors = errorsOf(`# ${'x'.repeat(MAX_IMPORT_CHARS)}`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/at most 16,384/);
  });

  it('is told apart from nginx and Envoy snippets', () => {
    const nginx = toNginx({ kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 });
    if (!nginx.ok) throw new Error('nginx');
    expect(detectFormat(nginx.text)).toBe('nginx');
    expect(detectFormat('token_bucket:\n  max_tokens: 5')).toBe('envoy');
    expect(detectFormat('  http-request track-sc0 src')).toBe('haproxy');
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        expect(() => importHaproxy(text)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });
});
