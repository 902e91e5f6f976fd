/**
 * What the nginx system shows a client, from nginx 1.22.1's sources (src/systems/nginx.ts cites
 * them); tests/export/nginx.server.test.ts compares the same responses with a real nginx byte for
 * byte. And the policy name: the page shows the one the export makes nginx send.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { LeakyBucketConfig } from '../../src/core';
import { toNginx } from '../../src/export';
import { SCENARIO_EPOCH_MS, entryResponse } from '../../src/systems/respond';

const NGINX: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 0,
  delay: 0,
};

function rejected(config: LeakyBucketConfig) {
  const l = createLimiter(config);
  l.decide(0);
  const d = l.decide(0);
  expect(d.outcome).toBe('reject');
  return d;
}

describe('nginx’s reply to a rejected request', () => {
  it('is nginx’s own status line, Server, Date, its page’s type and length, keep-alive', () => {
    const r = entryResponse({ system: 'nginx', config: NGINX }, rejected(NGINX), 'lane', {
      nowMs: 1500,
    });
    expect(r.statusLine).toBe('HTTP/1.1 503 Service Temporarily Unavailable');
    expect(r.headers).toEqual([
      ['Server', 'nginx/1.22.1'],
      // The scenario's wall clock (2026-01-01 at time 0), not the epoch's 1970.
      ['Date', 'Thu, 01 Jan 2026 00:00:01 GMT'],
      ['Content-Type', 'text/html'],
      ['Content-Length', '197'],
      ['Connection', 'keep-alive'],
    ]);
  });

  it.each([
    [429, 'HTTP/1.1 429 Too Many Requests', '169', 'keep-alive'],
    [500, 'HTTP/1.1 500 Internal Server Error', '177', 'close'],
    [420, 'HTTP/1.1 420 ', '0', 'keep-alive'],
    [495, 'HTTP/1.1 400 Bad Request', '215', 'close'],
  ])('limit_req_status %i: %s, Content-Length %s, Connection %s', (status, line, length, conn) => {
    const config = { ...NGINX, limitReqStatus: status };
    const r = entryResponse({ system: 'nginx', config }, rejected(config), 'lane');
    expect(r.statusLine).toBe(line);
    expect(r.headers.find(([n]) => n === 'Content-Length')?.[1]).toBe(length);
    expect(r.headers.find(([n]) => n === 'Connection')?.[1]).toBe(conn);
    expect(r.headers.some(([n]) => n === 'Content-Type')).toBe(length !== '0');
  });

  it('limit_req_status 444 closes the connection: no reply, no header', () => {
    const config = { ...NGINX, limitReqStatus: 444 };
    const r = entryResponse(
      { system: 'nginx', config, standardHeaders: true },
      rejected(config),
      'x',
    );
    expect(r.statusLine).toMatch(/^no reply: nginx closes the connection/);
    expect(r.headers).toEqual([]);
  });
});

describe('the policy name of the added RateLimit-Policy', () => {
  const policyIn = (text: string): string | undefined =>
    /add_header RateLimit-Policy '([^']*)' always;/.exec(text)?.[1];

  it.each([
    [undefined, '"ratelimit";q=1;w=1'],
    ['api', '"api";q=1;w=1'],
    [`login "v2" $host 'x' \\ é`, '"login ?v2? ?host ?x? ? ?";q=1;w=1'],
  ])('name %s: the page shows what the export makes nginx send', (name, value) => {
    const d = rejected(NGINX);
    const entry = {
      system: 'nginx',
      config: NGINX,
      standardHeaders: true,
      ...(name === undefined ? {} : { name }),
    };
    // The lane's display name is not what nginx sends: the limiter's own name is.
    const shown = entryResponse(entry, d, 'nginx limit_req #2').headers.find(
      ([n]) => n === 'RateLimit-Policy',
    )?.[1];
    const out = toNginx(NGINX, {
      standardHeaders: true,
      ...(name === undefined ? {} : { policyName: name }),
    });
    if (!out.ok) throw new Error(out.reason);
    expect(shown).toBe(value);
    expect(policyIn(out.text)).toBe(value);
  });
});

it('the scenario’s wall clock starts on a Thursday in a 365-day year, as 1970 does', () => {
  expect(new Date(SCENARIO_EPOCH_MS).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  expect(new Date(SCENARIO_EPOCH_MS).getUTCDay()).toBe(new Date(0).getUTCDay());
});
