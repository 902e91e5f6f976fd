/**
 * The probe against a real express-rate-limit (the npm package, 8.7.5) in a Node HTTP server: its
 * MemoryStore, its own status and headers. Keyed by the client's address as a proxy forwards it
 * (X-Forwarded-For, read because the app trusts its proxy): "as configured". The same app without
 * `trust proxy` keys every request by the proxy's address — the key from the wrong header — and
 * the diagnosis says every request was counted as one client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../export/servers';
import { linkOf } from './fake';
import { startNodeApp } from './gateways';
import { expectAsConfigured, expectDiagnosis, probeUntil } from './proof';

/**
 * express-rate-limit with its defaults but limit and windowMs, behind a minimal stand-in for
 * Express's request and response (the middleware uses req.ip, req.app.get('trust proxy'),
 * res.status().send() and res.setHeader). With TRUST, req.ip is the first X-Forwarded-For address,
 * as Express computes it with `app.set('trust proxy', 1)`; without, the socket's address.
 */
export const EXPRESS_APP = `
import http from 'node:http';
import { createRequire } from 'node:module';
const require = createRequire(ENV.ROOT + '/package.json');
const { rateLimit } = require('express-rate-limit');
const limiter = rateLimit({ windowMs: ENV.WINDOW, limit: ENV.LIMIT });
http.createServer((req, res) => {
  const forwarded = String(req.headers['x-forwarded-for'] ?? '').split(',')[0].trim();
  req.ip = ENV.TRUST && forwarded !== '' ? forwarded : req.socket.remoteAddress;
  req.app = { get: (name) => (name === 'trust proxy' ? (ENV.TRUST ? 1 : false) : undefined) };
  res.status = (code) => { res.statusCode = code; return res; };
  res.send = (body) => { res.end(String(body)); };
  limiter(req, res, () => { res.statusCode = 200; res.end('ok'); });
}).listen(ENV.PORT, '127.0.0.1');
`;

const KEY = { kind: 'header', name: 'X-Forwarded-For' } as const;

describe('the probe against a real express-rate-limit app', () => {
  let trusting: Server | undefined;
  let untrusting: Server | undefined;
  const link = linkOf({
    system: 'express-rate-limit',
    config: { kind: 'anchored-window', limit: 5, windowMs: 1000, countRejected: true },
  });

  beforeAll(async () => {
    trusting = await startNodeApp(EXPRESS_APP, { WINDOW: 1000, LIMIT: 5, TRUST: 1 }, 'express');
    untrusting = await startNodeApp(EXPRESS_APP, { WINDOW: 1000, LIMIT: 5, TRUST: 0 }, 'express');
  }, 30_000);

  afterAll(async () => {
    await trusting?.stop();
    await untrusting?.stop();
  });

  it('keyed by X-Forwarded-For: as configured, headers included', async () => {
    const url = `http://127.0.0.1:${(trusting as Server).port}/`;
    await probeUntil(url, link, KEY, 'express-rate-limit', (run) => {
      expectAsConfigured(run);
      expect(run.verdict.findings.find((f) => f.check === 'headers')?.text).toBe(
        'headers: the rate-limit headers are the system’s, as configured',
      );
    });
  }, 90_000);

  it('keyed by the socket instead: every request counted as one client', async () => {
    const url = `http://127.0.0.1:${(untrusting as Server).port}/`;
    await probeUntil(url, link, KEY, 'express-rate-limit without trust proxy', (run) => {
      expectDiagnosis(
        run,
        'consistent with every request counted as one client: the gateway does not key by the X-Forwarded-For header',
      );
    });
  }, 90_000);
});
