/**
 * The proof for the nginx export: a real nginx runs the exported limit_req lines in front of a
 * static file, a timed trace is replayed against it, and every group of simultaneous requests must
 * get the statuses the core decided — with delayed requests really held for their delay and the
 * others answered at once. The traces keep every request well away from a decision boundary
 * (checked below by perturbing them), so a busy machine cannot flip a decision.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakyBucketConfig } from '../../src/core';
import { createLimiter, rejectStatus } from '../../src/core';
import { entryResponse } from '../../src/systems';
import { toNginx } from '../../src/export';
import type { NginxOptions } from '../../src/export';
import { int, randomConfig, seeded } from './gen';
import type { Server } from './servers';
import { findBinary, freePort, loudSkip, startServer } from './servers';
import type { Group, GroupPlan } from './timed-trace';
import { fragility, plan, replayTimed } from './timed-trace';

const NGINX = findBinary('nginx');
if (NGINX === undefined)
  loudSkip('the nginx export comparison (tests/export/nginx.server.test.ts)', 'nginx');

/** How far a group may drift in time, each way, without changing any decision (checked). */
const JITTER_MS = 100;
/** How far apart requests of one group may arrive. */
const SPREAD_MS = 25;
/** A planned delay is at least this long, so that it cannot be mistaken for no delay. */
const MIN_DELAY_MS = 400;
/** An undelayed request is answered within this. */
const PROMPT_MS = 250;

interface Case {
  name: string;
  config: LeakyBucketConfig;
  groups: Group[];
}

/** Rates of 2 r/s (one request drains in 500 ms), 10 r/s and 30 r/m; every parameter in play. */
const CASES: Case[] = [
  {
    name: 'burst=3 (every excess request delayed)',
    config: { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 3, delay: 0 },
    groups: [
      { atMs: 0, key: 'k1', count: 5 },
      { atMs: 3500, key: 'k1', count: 2 },
      { atMs: 0, key: 'k2', count: 2 },
      { atMs: 1750, key: 'k2', count: 4 },
      { atMs: 5000, key: 'k2', count: 1 },
    ],
  },
  {
    name: 'burst=2 nodelay, limit_req_status 429',
    config: {
      kind: 'leaky-bucket',
      rate: 2,
      rateUnit: 'r/s',
      burst: 2,
      delay: 'nodelay',
      limitReqStatus: 429,
    },
    groups: [
      { atMs: 0, key: 'k3', count: 4 },
      // half drained: 1250 ms after a full bucket, two pass and one is rejected
      { atMs: 1250, key: 'k3', count: 3 },
      { atMs: 3500, key: 'k3', count: 2 },
      { atMs: 500, key: 'k4', count: 1 },
      { atMs: 1500, key: 'k4', count: 4 },
    ],
  },
  {
    name: 'burst=4 delay=2, limit_req_status 429',
    config: {
      kind: 'leaky-bucket',
      rate: 2,
      rateUnit: 'r/s',
      burst: 4,
      delay: 2,
      limitReqStatus: 429,
    },
    groups: [
      { atMs: 0, key: 'k5', count: 6 },
      { atMs: 3000, key: 'k5', count: 4 },
      { atMs: 250, key: 'k6', count: 3 },
      { atMs: 2250, key: 'k6', count: 6 },
    ],
  },
  {
    name: 'rate=10r/s, no burst (default 503)',
    config: { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 0, delay: 0 },
    groups: [
      { atMs: 0, key: 'k7', count: 3 },
      { atMs: 400, key: 'k7', count: 2 },
      { atMs: 1000, key: 'k7', count: 1 },
      { atMs: 1500, key: 'k7', count: 1 },
      { atMs: 2000, key: 'k7', count: 1 },
    ],
  },
  {
    name: 'rate=30r/m burst=1 nodelay, limit_req_status 429',
    config: {
      kind: 'leaky-bucket',
      rate: 30,
      rateUnit: 'r/m',
      burst: 1,
      delay: 'nodelay',
      limitReqStatus: 429,
    },
    groups: [
      { atMs: 0, key: 'k8', count: 3 },
      { atMs: 1000, key: 'k8', count: 1 },
      { atMs: 3000, key: 'k8', count: 2 },
      { atMs: 7000, key: 'k8', count: 2 },
    ],
  },
];

/**
 * Each case's groups again for fresh keys, a little later: more requests in the same wall time.
 * Keys are independent, so the copies are exactly as far from any boundary as the originals.
 */
const REPLICAS = 3;
for (const c of CASES) {
  const base = c.groups.slice();
  for (let r = 1; r < REPLICAS; r += 1) {
    for (const g of base) c.groups.push({ ...g, key: `${g.key}-${r}`, atMs: g.atMs + r * 137 });
  }
}

/** The exported text split as its comments say: the zone for http { }, the rest for the location. */
function split(text: string): { http: string[]; location: string[] } {
  const lines = text.split('\n').filter((l) => l.startsWith('limit_req'));
  return {
    http: lines.filter((l) => l.startsWith('limit_req_zone ')),
    location: lines.filter((l) => !l.startsWith('limit_req_zone ')),
  };
}

function exported(
  config: LeakyBucketConfig,
  options: NginxOptions,
): { http: string[]; location: string[] } {
  const out = toNginx(config, options);
  if (!out.ok) throw new Error(out.reason);
  return split(out.text);
}

/** An nginx.conf in `dir` serving `dir/html` on `port`, one location per case. */
function writeConf(
  dir: string,
  port: number,
  cases: Array<{ location: string; lines: { http: string[]; location: string[] } }>,
): string {
  const html = path.join(dir, 'html');
  const temp = path.join(dir, 'temp');
  mkdirSync(temp, { recursive: true });
  for (const c of [{ location: 'health' }, ...cases]) {
    mkdirSync(path.join(html, c.location), { recursive: true });
    writeFileSync(path.join(html, c.location, 'index.html'), 'ok\n');
  }
  const conf = `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
${cases.map((c) => c.lines.http.map((l) => `  ${l}`).join('\n')).join('\n')}
  server {
    listen 127.0.0.1:${port};
    root ${html};
    location /health/ { }
${cases.map((c) => `    location /${c.location}/ {\n${c.lines.location.map((l) => `      ${l}`).join('\n')}\n    }`).join('\n')}
  }
}
`;
  const file = path.join(dir, 'nginx.conf');
  writeFileSync(file, conf);
  // nginx's workers run as an unprivileged user when started as root: let them read the files.
  for (const p of [
    dir,
    html,
    ...cases.map((c) => path.join(html, c.location)),
    path.join(html, 'health'),
  ])
    chmodSync(p, 0o755);
  return file;
}

interface Response {
  status: number;
  latencyMs: number;
  lateMs: number;
}

function get(port: number, urlPath: string, key: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        headers: { 'X-Client': key },
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${urlPath} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(NGINX === undefined)('nginx export against a real nginx', () => {
  let server: Server | undefined;
  let dir = '';
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rll-nginx-'));
    port = await freePort();
    const file = writeConf(
      dir,
      port,
      CASES.map((c, i) => ({
        location: `c${i}`,
        lines: exported(c.config, { key: '$http_x_client', zone: `z${i}`, zoneSize: '1m' }),
      })),
    );
    server = await startServer(
      NGINX as string,
      ['-p', dir, '-c', file, '-e', path.join(dir, 'error.log'), '-g', 'daemon off;'],
      port,
    );
    expect((await get(port, '/health/', 'warmup')).status).toBe(200);
  }, 20_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('the traces keep every request well away from a decision boundary', () => {
    for (const c of CASES) {
      expect(fragility(c.config, c.groups, JITTER_MS, SPREAD_MS, MIN_DELAY_MS), c.name).toEqual([]);
    }
  });

  it('statuses and delays match the core for burst, nodelay, delay=N and limit_req_status', async () => {
    const plans = CASES.map((c) => plan(c.config, c.groups));
    const results: Response[][][] = await replayTimed(CASES, 200, (ci, g) =>
      get(port, `/c${ci}/`, g.key).then(({ status }) => ({ status })),
    );

    let requests = 0;
    let maxLateMs = 0;
    CASES.forEach((c, ci) => {
      const reject = rejectStatus(c.config);
      c.groups.forEach((g, gi) => {
        const want = plans[ci]?.[gi] as GroupPlan;
        const got = results[ci]?.[gi] ?? [];
        const where = `${c.name}, group ${gi} (${g.count} × ${g.key} at ${g.atMs} ms)`;
        requests += got.length;
        for (const r of got) {
          maxLateMs = Math.max(maxLateMs, r.lateMs);
          expect(
            r.lateMs,
            `${where}: a request was sent ${Math.round(r.lateMs)} ms late; the machine is too busy for this test`,
          ).toBeLessThan(JITTER_MS);
        }
        const statuses = got.map((r) => r.status).sort((a, b) => a - b);
        const expected = [
          ...Array<number>(want.admit + want.delay).fill(200),
          ...Array<number>(want.reject).fill(reject),
        ].sort((a, b) => a - b);
        expect(statuses, where).toEqual(expected);
        const latencies = got
          .filter((r) => r.status === 200)
          .map((r) => r.latencyMs)
          .sort((a, b) => a - b);
        want.delaysMs.forEach((delayMs, i) => {
          const latency = latencies[i] as number;
          if (delayMs === 0) {
            expect(
              latency,
              `${where}: an undelayed request took ${Math.round(latency)} ms`,
            ).toBeLessThan(PROMPT_MS);
          } else {
            expect(
              latency,
              `${where}: a request nginx should delay ${delayMs} ms took ${Math.round(latency)} ms`,
            ).toBeGreaterThanOrEqual(delayMs - JITTER_MS - SPREAD_MS);
            expect(
              latency,
              `${where}: a request nginx should delay ${delayMs} ms took ${Math.round(latency)} ms`,
            ).toBeLessThan(delayMs + JITTER_MS + PROMPT_MS);
          }
        });
      });
    });
    const delayed = plans.flat().reduce((n, p) => n + p.delay, 0);
    const rejected = plans.flat().reduce((n, p) => n + p.reject, 0);
    console.info(
      `nginx vs core: ${requests} requests compared (${delayed} delayed, ${rejected} rejected); latest send ${Math.round(maxLateMs)} ms after plan`,
    );
  }, 30_000);

  it('real nginx accepts every exported config (nginx -t), for random limiters and options', async () => {
    const rng = seeded(99);
    const configs = Array.from(
      { length: 25 },
      () => randomConfig(rng, 'leaky-bucket') as LeakyBucketConfig,
    );
    const keys = [
      '$binary_remote_addr',
      '$http_x_api_key',
      '$binary_remote_addr$uri',
      '$server_name "$uri"',
    ];
    const checkDir = mkdtempSync(path.join(tmpdir(), 'rll-nginx-t-'));
    try {
      const file = writeConf(
        checkDir,
        await freePort(),
        configs.map((c, i) => ({
          location: `t${i}`,
          lines: exported(c, {
            key: keys[int(rng, 0, keys.length - 1)] as string,
            zone: `t${i}`,
            zoneSize: `${int(rng, 32, 4096)}k`,
          }),
        })),
      );
      const result = await new Promise<{ code: number; output: string }>((resolve) => {
        execFile(
          NGINX as string,
          ['-t', '-p', checkDir, '-c', file, '-e', path.join(checkDir, 'error.log')],
          { timeout: 10_000 },
          (error, stdout, stderr) => {
            resolve({
              code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
              output: stdout + stderr,
            });
          },
        );
      });
      expect(result.output).toMatch(/test is successful/);
      expect(result.code).toBe(0);
    } finally {
      rmSync(checkDir, { recursive: true, force: true });
    }
  }, 15_000);
});

// ---- What a rejected client receives (each system's own response) ------------------

/** The rate-limit headers a response may carry; nginx must send none beyond what the page shows. */
const RATE_LIMIT_HEADER = /^(retry-after|ratelimit|ratelimit-policy|x-ratelimit-.*)$/i;

function getFull(
  port: number,
  urlPath: string,
): Promise<{ status: number; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: urlPath, agent: false, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => {
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) {
            if (typeof v === 'string') headers[k.toLowerCase()] = v;
          }
          resolve({ status: res.statusCode ?? 0, headers });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${urlPath} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** The exported snippet split by where its comments say each part goes. */
function placed(text: string): { http: string[]; location: string[]; server: string[] } {
  const out = { http: [] as string[], location: [] as string[], server: [] as string[] };
  let part: keyof typeof out = 'location';
  for (const line of text.split('\n')) {
    if (line.startsWith('# In the http')) part = 'http';
    else if (line.startsWith('# In the server { } or location')) part = 'location';
    else if (line.startsWith('# In the same server')) part = 'server';
    else if (line.trim() !== '' && !line.startsWith('#')) out[part].push(line);
  }
  return out;
}

describe.skipIf(NGINX === undefined)('what a rejected client receives from a real nginx', () => {
  // 1 r/s, no burst: of two requests at once the second is rejected, ~1 s from any boundary.
  const RESPONSE_CASES: Array<{
    name: string;
    config: LeakyBucketConfig;
    standardHeaders: boolean;
  }> = [
    {
      name: 'plain',
      config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 },
      standardHeaders: false,
    },
    {
      name: 'plain429',
      config: {
        kind: 'leaky-bucket',
        rate: 1,
        rateUnit: 'r/s',
        burst: 1,
        delay: 'nodelay',
        limitReqStatus: 429,
      },
      standardHeaders: false,
    },
    {
      name: 'std',
      config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 0, delay: 0 },
      standardHeaders: true,
    },
    {
      name: 'std429',
      config: {
        kind: 'leaky-bucket',
        rate: 2,
        rateUnit: 'r/s',
        burst: 1,
        delay: 'nodelay',
        limitReqStatus: 429,
      },
      standardHeaders: true,
    },
  ];
  let server: Server | undefined;
  let dir = '';
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rll-nginx-h-'));
    port = await freePort();
    const html = path.join(dir, 'html');
    const temp = path.join(dir, 'temp');
    mkdirSync(temp, { recursive: true });
    const parts = RESPONSE_CASES.map((c, i) => {
      mkdirSync(path.join(html, c.name), { recursive: true });
      writeFileSync(path.join(html, c.name, 'index.html'), 'ok\n');
      chmodSync(path.join(html, c.name), 0o755);
      const out = toNginx(c.config, {
        zone: `h${i}`,
        zoneSize: '1m',
        standardHeaders: c.standardHeaders,
        policyName: c.name,
      });
      if (!out.ok) throw new Error(out.reason);
      // Each case's named location gets its own name, as several share one server here.
      return placed(out.text.replaceAll('@ratelimited', `@ratelimited_${c.name}`));
    });
    chmodSync(dir, 0o755);
    chmodSync(html, 0o755);
    const conf = `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${temp}/body;
  proxy_temp_path ${temp}/proxy;
  fastcgi_temp_path ${temp}/fastcgi;
  uwsgi_temp_path ${temp}/uwsgi;
  scgi_temp_path ${temp}/scgi;
${parts.map((p) => p.http.map((l) => `  ${l}`).join('\n')).join('\n')}
  server {
    listen 127.0.0.1:${port};
    root ${html};
${RESPONSE_CASES.map((c, i) => `    location /${c.name}/ {\n${(parts[i]?.location ?? []).map((l) => `      ${l}`).join('\n')}\n    }\n${(parts[i]?.server ?? []).map((l) => `    ${l}`).join('\n')}`).join('\n')}
  }
}
`;
    const file = path.join(dir, 'nginx.conf');
    writeFileSync(file, conf);
    server = await startServer(
      NGINX as string,
      ['-p', dir, '-c', file, '-e', path.join(dir, 'error.log'), '-g', 'daemon off;'],
      port,
    );
  }, 20_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('status and rate-limit headers of admitted and rejected requests are the ones the page shows', async () => {
    let compared = 0;
    for (const c of RESPONSE_CASES) {
      const limiter = createLimiter(c.config);
      const burst = c.config.burst + 2;
      const decisions = Array.from({ length: burst }, () => limiter.decide(0));
      const got = await Promise.all(decisions.map(() => getFull(port, `/${c.name}/`)));
      // The requests of one case leave together: sort both sides by status to pair them.
      const shown = decisions
        .map((d) =>
          entryResponse({ config: c.config, standardHeaders: c.standardHeaders }, d, c.name),
        )
        .sort((a, b) => a.status - b.status);
      got.sort((a, b) => a.status - b.status);
      shown.forEach((want, i) => {
        const real = got[i];
        if (real === undefined) throw new Error('missing response');
        const where = `${c.name}, request ${i + 1}`;
        expect(real.status, where).toBe(want.status);
        for (const f of want.fields) {
          if (f.name === 'Content-Type') {
            expect(real.headers['content-type'], where).toMatch(/^text\/html/);
            continue;
          }
          expect(real.headers[f.name.toLowerCase()], `${where}: ${f.name}`).toBe(f.value);
        }
        const extra = Object.keys(real.headers).filter(
          (h) => RATE_LIMIT_HEADER.test(h) && !want.fields.some((f) => f.name.toLowerCase() === h),
        );
        expect(
          extra,
          `${where}: rate-limit headers nginx sent that the page does not show`,
        ).toEqual([]);
        compared += 1;
      });
      expect(
        shown.some((r) => r.status !== 200),
        `${c.name} has a rejected request`,
      ).toBe(true);
    }
    console.info(
      `nginx responses vs the page: ${compared} responses compared (status and headers)`,
    );
  }, 15_000);
});
