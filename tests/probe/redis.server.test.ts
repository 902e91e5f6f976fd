/**
 * Two app processes behind a round-robin balancer, limiting with rate-limiter-flexible (11.4.0):
 * sharing one RateLimiterRedis store on a real redis-server (the `redis` client, node-redis 5), the
 * probe finds the two configured as instances sharing one state "as configured"; each with its own
 * RateLimiterMemory instead — the per-replica limit — the diagnosis says 2 replicas each holding its
 * own counter. The apps send the headers the lab shows for rate-limiter-flexible (its README's).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Server } from '../export/servers';
import { loudSkip } from '../export/servers';
import { linkOf } from './fake';
import { REDIS, startBalancer, startNodeApp, startRedisServer, stopAll } from './gateways';
import { expectAsConfigured, expectDiagnosis, probeUntil } from './proof';

if (REDIS === undefined) {
  loudSkip(
    'the probe against two apps sharing Redis (tests/probe/redis.server.test.ts)',
    'redis-server',
  );
}

/** An app limiting with RateLimiterRedis (REDIS_PORT given) or RateLimiterMemory, keyed by X-Forwarded-For. */
const FLEXIBLE_APP = `
import http from 'node:http';
import { createRequire } from 'node:module';
const require = createRequire(ENV.ROOT + '/package.json');
const { RateLimiterRedis, RateLimiterMemory } = require('rate-limiter-flexible');
let limiter;
if (ENV.REDIS_PORT) {
  const { createClient } = require('redis');
  const client = createClient({ socket: { host: '127.0.0.1', port: ENV.REDIS_PORT } });
  await client.connect();
  limiter = new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: ENV.PREFIX, points: ENV.POINTS, duration: ENV.DURATION_S });
} else {
  limiter = new RateLimiterMemory({ points: ENV.POINTS, duration: ENV.DURATION_S });
}
const headers = (r) => ({
  'X-RateLimit-Limit': String(ENV.POINTS),
  'X-RateLimit-Remaining': String(r.remainingPoints),
  'X-RateLimit-Reset': String(Math.ceil((Date.now() + r.msBeforeNext) / 1000)),
});
http.createServer(async (req, res) => {
  const key = String(req.headers['x-forwarded-for'] ?? req.socket.remoteAddress);
  try {
    const r = await limiter.consume(key);
    res.writeHead(200, headers(r));
    res.end('ok');
  } catch (r) {
    if (r instanceof Error) { res.writeHead(500); res.end(); return; }
    res.writeHead(429, { 'Retry-After': String(r.msBeforeNext / 1000), ...headers(r) });
    res.end('Too Many Requests');
  }
}).listen(ENV.PORT, '127.0.0.1');
`;

const KEY = { kind: 'header', name: 'X-Forwarded-For' } as const;
const ENTRY = {
  system: 'rate-limiter-flexible',
  config: { kind: 'anchored-window', limit: 5, windowMs: 1000, countRejected: true },
} as const;

describe.skipIf(REDIS === undefined)(
  'the probe against two apps, shared Redis or each its own memory',
  () => {
    let redis: Server | undefined;
    const servers: Server[] = [];
    let sharedUrl = '';
    let ownUrl = '';
    const link = linkOf(ENTRY, 2, 'shared-atomic');

    beforeAll(async () => {
      redis = await startRedisServer();
      const vars = { POINTS: 5, DURATION_S: 1 };
      const withRedis = { ...vars, REDIS_PORT: redis.port, PREFIX: 'probe' };
      const shared = [
        await startNodeApp(FLEXIBLE_APP, withRedis, 'flexible'),
        await startNodeApp(FLEXIBLE_APP, withRedis, 'flexible'),
      ];
      const own = [
        await startNodeApp(FLEXIBLE_APP, vars, 'flexible'),
        await startNodeApp(FLEXIBLE_APP, vars, 'flexible'),
      ];
      servers.push(...shared, ...own);
      const sharedLb = await startBalancer(shared.map((s) => s.port));
      const ownLb = await startBalancer(own.map((s) => s.port));
      servers.push(sharedLb, ownLb);
      sharedUrl = `http://127.0.0.1:${sharedLb.port}/`;
      ownUrl = `http://127.0.0.1:${ownLb.port}/`;
    }, 60_000);

    afterAll(async () => {
      await stopAll(...servers);
      await redis?.stop();
    });

    it('sharing one Redis store: as configured', async () => {
      await probeUntil(sharedUrl, link, KEY, 'two apps sharing Redis', expectAsConfigured);
    }, 90_000);

    it('each with its own memory: 2 replicas each holding its own counter', async () => {
      await probeUntil(ownUrl, link, KEY, 'two apps each with its own memory', (run) => {
        expectDiagnosis(run, 'consistent with 2 replicas each holding its own counter of points 5');
      });
    }, 90_000);
  },
);
