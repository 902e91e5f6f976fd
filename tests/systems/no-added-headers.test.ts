/**
 * Traefik and Cloudflare cannot be made to send the standard rate-limit headers, so the page adds
 * none for them, whatever the limiter's "add standard rate-limit headers" says: what the inspector
 * shows is what the exported config makes the product send.
 *
 * - Traefik, pkg/middlewares/ratelimiter/rate_limiter.go (v3.7.9): ServeHTTP passes an admitted
 *   request on without a header; serveDelayError sets only Retry-After and X-Retry-In before its
 *   429. A headers middleware's customResponseHeaders are constants.
 * - Caddy, caddy-ratelimit 5625512 handler.go: Retry-After before its 429 and nothing on a request
 *   let through; its one placeholder, {http.rate_limit.exceeded.name}, is the zone's name.
 * - Cloudflare: a rate limiting rule's Block action takes a status code, a content type and a
 *   body for its custom response (waf/rate-limiting-rules/create-zone-dashboard,
 *   waf/reference/response-for-blocked-requests, Cloudflare docs 2026); error 1015 carries
 *   Retry-After: 30 (changelog 2026-03-12).
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Decision } from '../../src/core';
import { exportSystems } from '../../src/export/exporters';
import { deriveConfig, systemById } from '../../src/systems';
import { entryResponse } from '../../src/systems/respond';

/** The first admitted and the first rejected decision of `config` at t = 0. */
function admitAndReject(config: AlgorithmConfig): [Decision, Decision] {
  const l = createLimiter(config);
  const ds = Array.from({ length: 60 }, () => ({ ...l.decide(0, 'k') }));
  const a = ds.find((d) => d.outcome === 'admit');
  const r = ds.find((d) => d.outcome === 'reject');
  if (a === undefined || r === undefined) throw new Error('expected an admit and a reject');
  return [a, r];
}

const STANDARD =
  /^(RateLimit|RateLimit-Policy|RateLimit-Limit|RateLimit-Remaining|RateLimit-Reset|X-RateLimit-.*)$/i;

describe('systems whose product cannot send the standard headers add none', () => {
  it('Traefik: Retry-After and X-Retry-In on a 429, nothing on a pass, with or without the option', () => {
    const traefik = systemById('traefik')!;
    const config = deriveConfig(traefik, {
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
    });
    const [admit, reject] = admitAndReject(config);
    const on = (d: Decision) =>
      entryResponse({ system: 'traefik', config, standardHeaders: true }, d, 'p', { nowMs: 0 });
    const off = (d: Decision) => entryResponse({ system: 'traefik', config }, d, 'p', { nowMs: 0 });
    expect(on(admit).fields).toEqual([]);
    expect(on(reject)).toEqual(off(reject));
    expect(on(reject).fields.map((f) => f.name)).toEqual([
      'Retry-After',
      'X-Retry-In',
      'Content-Type',
    ]);
    expect(on(reject).fields.some((f) => f.added === true)).toBe(false);
    // The export with the option on writes no header of any kind.
    const out = exportSystems(config, undefined, true).traefik;
    if (!out.ok) throw new Error(out.reason);
    expect(out.text).not.toMatch(/RateLimit-|customResponseHeaders|Retry-After/);
    expect(traefik.standardHeadersHow).toMatch(/the Traefik export does not add RateLimit headers/);
  });

  it('Cloudflare: Retry-After: 30 on a 429, nothing on a pass, with or without the option', () => {
    const cloudflare = systemById('cloudflare')!;
    const config = deriveConfig(cloudflare, {
      kind: 'sliding-window-counter',
      limit: 2,
      windowMs: 60_000,
    });
    const [admit, reject] = admitAndReject(config);
    const on = (d: Decision) =>
      entryResponse({ system: 'cloudflare', config, standardHeaders: true }, d, 'p');
    const off = (d: Decision) => entryResponse({ system: 'cloudflare', config }, d, 'p');
    expect(on(admit).fields).toEqual([]);
    expect(on(reject)).toEqual(off(reject));
    expect(on(reject).status).toBe(429);
    expect(on(reject).fields).toEqual([{ name: 'Retry-After', value: '30' }]);
    for (const d of [admit, reject])
      expect(on(d).fields.filter((f) => STANDARD.test(f.name) || f.added === true)).toEqual([]);
    for (const target of ['cloudflare', 'cloudflare-terraform'] as const) {
      const out = exportSystems(config, undefined, true)[target];
      if (!out.ok) throw new Error(out.reason);
      // No custom response (action_parameters.response) and no header anywhere in the rule.
      expect(out.text).toMatch(/"?action"?\s*[:=]\s*"block"/);
      expect(out.text).not.toMatch(/action_parameters|response|header|RateLimit-/i);
    }
    expect(cloudflare.standardHeadersHow).toMatch(
      /the Cloudflare export does not add RateLimit headers/,
    );
  });

  it('Caddy: Retry-After on a 429, nothing on a pass, with or without the option', () => {
    const caddy = systemById('caddy')!;
    const config = deriveConfig(caddy, { kind: 'sliding-log', limit: 2, windowMs: 1000 });
    const [admit, reject] = admitAndReject(config);
    const on = (d: Decision) =>
      entryResponse({ system: 'caddy', config, standardHeaders: true }, d, 'p', { nowMs: 0 });
    const off = (d: Decision) => entryResponse({ system: 'caddy', config }, d, 'p', { nowMs: 0 });
    expect(on(admit).fields).toEqual([]);
    expect(on(reject)).toEqual(off(reject));
    expect(on(reject).status).toBe(429);
    expect(on(reject).fields.map((f) => f.name)).toEqual(['Retry-After']);
    const out = exportSystems(config, undefined, true).caddy;
    if (!out.ok) throw new Error(out.reason);
    expect(out.text).not.toMatch(/RateLimit-|header /);
    expect(caddy.standardHeadersHow).toMatch(/the Caddy export does not add RateLimit headers/);
  });
});
