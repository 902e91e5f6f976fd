/**
 * ingress-nginx annotations → nginx limit_req as ingress-nginx renders them (controller-v1.15.1:
 * internal/ingress/annotations/ratelimit/main.go, internal/ingress/controller/template/template.go)
 * and → Traefik's rateLimit middleware as Traefik's ingress-nginx provider builds it (v3.7.9:
 * pkg/provider/kubernetes/ingress-nginx/middleware.go). Expected values worked out by hand from
 * those files.
 */
import { describe, expect, it } from 'vitest';
import { importIngressNginx, MAX_IMPORT_CHARS } from '../../src/export';
import type { IngressNginxImport } from '../../src/export';

function ingress(annotations: Record<string, string>, extra = ''): string {
  const lines = Object.entries(annotations).map(
    ([k, v]) => `    nginx.ingress.kubernetes.io/${k}: ${JSON.stringify(v)}`,
  );
  return `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
  namespace: shop
${extra}  annotations:
${lines.join('\n')}
spec:
  rules:
    - host: api.example.com
`;
}

/** The first error's message of a failed import ('' when it did not fail). */
function firstError(text: string): string {
  const r = importIngressNginx(text);
  return r.ok ? '' : (r.errors[0]?.message ?? '');
}

function ok(text: string): IngressNginxImport {
  const r = importIngressNginx(text);
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.line}:${e.column} ${e.message}`).join('\n'));
  return r;
}

describe('ingress-nginx import', () => {
  it('limit-rps 10: nginx rate=10r/s burst=50 nodelay; Traefik average 10/1s burst 50, waits ≤ 50 ms', () => {
    const r = ok(ingress({ 'limit-rps': '10' }));
    expect(r.ingress).toBe('shop/api');
    expect(r.lanes).toEqual([
      {
        system: 'nginx',
        name: 'nginx limit-rps 10',
        config: { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 50, delay: 'nodelay' },
      },
      {
        system: 'traefik',
        name: 'Traefik limit-rps 10',
        // Traefik's maxDelay 1 s / (2·10) and its ttl of 2 s (src/systems/traefik.ts).
        config: {
          kind: 'token-bucket',
          maxTokens: 50,
          tokensPerFill: 10,
          fillIntervalMs: 1000,
          maxDelayMs: 50,
          idleResetS: 2,
        },
      },
    ]);
    // base64url("shop_api_<uid>") without padding, as main.go encode() writes it.
    const id = Buffer.from('shop_api_<uid>').toString('base64url');
    expect(r.nginxText).toContain(
      `limit_req_zone $limit_${id} zone=shop_api_<uid>_rps:5m rate=10r/s;`,
    );
    expect(r.nginxText).toContain('limit_req zone=shop_api_<uid>_rps burst=50 nodelay;');
    expect(r.nginxText).toContain('0 $binary_remote_addr;');
    expect(r.traefikText).toMatch(
      /shop-api-rule-0-path-0-limit-rps:\n {6}rateLimit:\n {8}average: 10\n {8}period: 1s\n {8}burst: 50/,
    );
    expect(r.notes.join(' ')).toMatch(/503.*429/);
  });

  it('rps and rpm together: two limit_req lines (rps first), two Traefik middlewares (rpm first); the multiplier applies to both', () => {
    const r = ok(
      ingress(
        { 'limit-rpm': '120', 'limit-rps': '5', 'limit-burst-multiplier': '3' },
        '  uid: "1234"\n',
      ),
    );
    expect(r.lanes.map((l) => l.name)).toEqual([
      'nginx limit-rps 5',
      'nginx limit-rpm 120',
      'Traefik limit-rpm 120',
      'Traefik limit-rps 5',
    ]);
    expect(r.lanes[1]?.config).toEqual({
      kind: 'leaky-bucket',
      rate: 120,
      rateUnit: 'r/m',
      burst: 360,
      delay: 'nodelay',
    });
    expect(r.lanes[2]?.config).toMatchObject({
      maxTokens: 360,
      tokensPerFill: 120,
      fillIntervalMs: 60_000,
      maxDelayMs: 250, // 120/min = 2 r/s: 1 s / (2·2)
    });
    expect(r.lanes[3]?.config).toMatchObject({ maxTokens: 15, tokensPerFill: 5, maxDelayMs: 100 });
    const lines = r.nginxText.split('\n').filter((l) => l.trim().startsWith('limit_req '));
    expect(lines.map((l) => l.trim())).toEqual([
      'limit_req zone=shop_api_1234_rps burst=15 nodelay;',
      'limit_req zone=shop_api_1234_rpm burst=360 nodelay;',
    ]);
    expect(r.notes.join(' ')).toMatch(/Both limits apply to every request/);
  });

  it('multiplier 0: ingress-nginx renders burst=0, Traefik falls back to 5; not a number: both use 5', () => {
    const zero = ok(ingress({ 'limit-rps': '4', 'limit-burst-multiplier': '0' }));
    expect(zero.lanes[0]?.config).toMatchObject({ burst: 0 });
    expect(zero.lanes[1]?.config).toMatchObject({ maxTokens: 20 });
    expect(zero.warnings.map((w) => w.message).join(' ')).toMatch(/Traefik uses 5/);
    const bad = ok(ingress({ 'limit-rps': '4', 'limit-burst-multiplier': 'lots' }));
    expect(bad.lanes[0]?.config).toMatchObject({ burst: 20 });
    expect(bad.lanes[1]?.config).toMatchObject({ maxTokens: 20 });
    expect(bad.warnings[0]).toMatchObject({ line: 8 });
  });

  it('limit-connections and limit-whitelist are said, not modelled; Traefik ignores the whitelist', () => {
    const r = ok(
      ingress({
        'limit-rps': '2',
        'limit-connections': '3',
        'limit-whitelist': '10.0.0.0/8,192.168.1.1',
      }),
    );
    expect(r.lanes).toHaveLength(2);
    const notes = r.notes.join('\n');
    expect(notes).toMatch(
      /limit-connections 3: at most 3 connections open at once per client IP.*Not modelled/,
    );
    expect(notes).toMatch(
      /limit-whitelist 10\.0\.0\.0\/8,192\.168\.1\.1: ingress-nginx does not limit .* Traefik's provider ignores/,
    );
    expect(r.nginxText).toContain('limit_conn shop_api_<uid>_conn 3;');
    expect(r.nginxText).toContain('10.0.0.0/8 1;');
    expect(r.traefikText).toContain('inFlightReq:');
  });

  it('several documents: the first Ingress with limits is read, others are named in a warning', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata:\n  name: api\n---\n${ingress({ 'limit-rpm': '30' })}---\n${ingress({ 'limit-rps': '1' }).replace('name: api', 'name: admin')}`;
    const r = ok(text);
    expect(r.lanes.map((l) => l.name)).toEqual(['nginx limit-rpm 30', 'Traefik limit-rpm 30']);
    expect(r.warnings.map((w) => w.message)).toEqual([
      'another Ingress ("shop/admin") with rate limits is left out: one Ingress is imported at a time',
    ]);
  });

  it('names and kinds from the file are quoted in warnings: escaped, cut', () => {
    const evil = `"\\u202Ex\\u0000\\n${'y'.repeat(5_000)}"`;
    const second = ingress({ 'limit-rps': '1' }).replace('name: api', `name: ${evil}`);
    const text = `${ingress({ 'limit-rpm': '30' }, '').replace('kind: Ingress', `kind: ${evil}`)}---\n${second}`;
    const warnings = ok(text).warnings.map((w) => w.message);
    expect(warnings).toEqual([
      `expected kind: Ingress, got "\\u202Ex\\u0000\\u000A${'y'.repeat(36)}…"; its annotations are read anyway`,
      `another Ingress ("shop/\\u202Ex\\u0000\\u000A${'y'.repeat(31)}…") with rate limits is left out: one Ingress is imported at a time`,
    ]);
  });

  it('bad input: a clear message at its line and column; nothing loaded', () => {
    const notInt = importIngressNginx(ingress({ 'limit-rps': 'ten' }));
    expect(notInt).toEqual({
      ok: false,
      errors: [
        {
          line: 7,
          column: 44, // the value's opening quote
          message:
            'nginx.ingress.kubernetes.io/limit-rps: expected a whole number in quotes ("10"), got "ten"',
        },
      ],
    });
    expect(firstError('kind: Ingress\nmetadata:\n  name: x\n')).toMatch(/limit-rps or .*limit-rpm/);
    expect(importIngressNginx(ingress({ 'limit-rps': '0' }))).toMatchObject({ ok: false });
    expect(firstError('a: [1, 2\n')).toMatch(/^expected valid YAML/);
    expect(firstError('x'.repeat(MAX_IMPORT_CHARS + 1))).toMatch(/at most 16,384/);
    // A rate the core refuses (absurd) is named, not loaded.
    const huge = importIngressNginx(ingress({ 'limit-rps': '999999999' }));
    expect(huge.ok).toBe(false);
    if (!huge.ok)
      expect(huge.errors[0]?.message).toMatch(/^nginx\.ingress\.kubernetes\.io\/limit-rps/);
  });
});
