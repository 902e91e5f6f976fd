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

import { toNginx } from '../../src/export';
import type { NginxOptions } from '../../src/export';
import { int, randomConfig, seeded } from './gen';
import type { Finding, Server } from './servers';
import {
  findBinary,
  freePort,
  loudSkip,
  rawGet,
  startNginxIn,
  timedProof,
  writeNginxConf,
} from './servers';
import type { Group } from './timed-trace';
import { fragility, plan } from './timed-trace';
import { entryResponse } from '../../src/systems/respond';
import { proofCount } from '../systems/proofCounts';

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

/** `nginx -t` on a configuration: its exit code and everything it printed. */
function nginxTest(prefix: string, file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      NGINX as string,
      ['-t', '-p', prefix, '-c', file, '-e', path.join(prefix, 'error.log')],
      { timeout: 10_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          output: stdout + stderr,
        });
      },
    );
  });
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
  for (const c of [{ location: 'health' }, ...cases]) {
    mkdirSync(path.join(html, c.location), { recursive: true });
    writeFileSync(path.join(html, c.location, 'index.html'), 'ok\n');
  }
  const file = writeNginxConf(
    dir,
    `${cases.map((c) => c.lines.http.map((l) => `  ${l}`).join('\n')).join('\n')}
  server {
    listen 127.0.0.1:${port};
    root ${html};
    location /health/ { }
${cases.map((c) => `    location /${c.location}/ {\n${c.lines.location.map((l) => `      ${l}`).join('\n')}\n    }`).join('\n')}
  }`,
    256,
  );
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
    writeConf(
      dir,
      port,
      CASES.map((c, i) => ({
        location: `c${i}`,
        lines: exported(c.config, { key: '$http_x_client', zone: `z${i}`, zoneSize: '1m' }),
      })),
    );
    server = await startNginxIn(NGINX as string, dir, port);
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
    const report = await timedProof<{ status: number }>({
      label: 'nginx',
      cases: CASES,
      leadMs: 200,
      jitterMs: JITTER_MS,
      rekey: (key, attempt) => `${key}~${attempt}`,
      send: (ci, g) => get(port, `/c${ci}/`, g.key),
      // Rejections are answered at once; a 200 this fast was not held (planned delays ≥ 400 ms).
      prompt: (r) => r.status !== 200 || r.latencyMs < MIN_DELAY_MS / 2,
      judge: (c, g, want, got, slackMs) => {
        const findings: Finding[] = [];
        const reject = rejectStatus(c.config);
        const statuses = got.map((r) => r.status).sort((a, b) => a - b);
        const expected = [
          ...Array<number>(want.admit + want.delay).fill(200),
          ...Array<number>(want.reject).fill(reject),
        ].sort((a, b) => a - b);
        if (JSON.stringify(statuses) !== JSON.stringify(expected)) {
          findings.push({
            message: `${g.count} × ${g.key}: statuses ${statuses.join(' ')}, the model ${expected.join(' ')}`,
          });
          return findings;
        }
        const latencies = got
          .filter((r) => r.status === 200)
          .map((r) => r.latencyMs)
          .sort((a, b) => a - b);
        want.delaysMs.forEach((_, i) => {
          const latency = latencies[i] as number;
          const lo = want.minDelaysMs[i] as number;
          const hi = want.maxDelaysMs[i] as number;
          const took = `took ${Math.round(latency)} ms`;
          if (hi === 0) {
            // Held although the model passes it at once: a delay shows as ≥ MIN_DELAY_MS, a busy
            // machine as a slow answer; it is replayed, and fails if it stays slow.
            if (latency >= PROMPT_MS + slackMs) {
              findings.push({ message: `an undelayed request ${took}`, timing: true });
            }
          } else if (latency < lo - JITTER_MS - SPREAD_MS) {
            findings.push({ message: `a request nginx should delay ${lo}–${hi} ms ${took}` });
          } else if (latency >= hi + JITTER_MS + PROMPT_MS + slackMs) {
            findings.push({
              message: `a request nginx should delay ${lo}–${hi} ms ${took}`,
              timing: true,
            });
          }
        });
        return findings;
      },
    });
    expect(report.failures).toEqual([]);
    const plans = CASES.map((c) => plan(c.config, c.groups));
    const delayed = plans.flat().reduce((n, p) => n + p.delay, 0);
    const rejected = plans.flat().reduce((n, p) => n + p.reject, 0);
    const requests = CASES.reduce((n, c) => n + c.groups.reduce((m, g) => m + g.count, 0), 0);
    expect(report.requests).toBe(requests);
    // The count the README's proof table states.
    expect(report.requests).toBe(proofCount('nginx `limit_req`', 'timedRequests'));
    console.info(
      `nginx vs core: ${report.requests} requests compared (${delayed} delayed, ${rejected} rejected), 0 disagreements; ${report.attempts} attempt(s), ${report.widened} key(s) judged at their measured times, ${report.retried} replayed`,
    );
  }, 90_000);

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
      const result = await nginxTest(checkDir, file);
      expect(result.output).toMatch(/test is successful/);
      expect(result.output).not.toMatch(/\[warn\]|\[emerg\]|\[alert\]/);
      expect(result.code).toBe(0);
    } finally {
      rmSync(checkDir, { recursive: true, force: true });
    }
  }, 15_000);
});

// ---- What the client receives, byte for byte --------------------------------------------------

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

/** Headers a static file's response carries beyond nginx's own (ngx_http_static_module). */
const UPSTREAM_HEADERS = new Set([
  'Content-Type',
  'Content-Length',
  'Last-Modified',
  'ETag',
  'Accept-Ranges',
]);

interface ByteCase {
  /** Location and key: /<name>/ */
  name: string;
  config: LeakyBucketConfig;
  standardHeaders: boolean;
  /** The limiter's own name (RateLimit-Policy), when it has one. */
  entryName?: string;
}

/** Every status limit_req_status accepts (400–599), without standard headers. */
const STATUS_CASES: ByteCase[] = Array.from({ length: 200 }, (_, i) => ({
  name: `s${400 + i}`,
  config: {
    kind: 'leaky-bucket',
    rate: 1,
    rateUnit: 'r/m',
    burst: 0,
    delay: 0,
    ...(400 + i === 503 ? {} : { limitReqStatus: 400 + i }),
  },
  standardHeaders: false,
}));

/** With the standard headers added: named and unnamed limiters, odd names, several statuses. */
const HEADER_CASES: ByteCase[] = [
  {
    name: 'h503',
    config: { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/m', burst: 0, delay: 0 },
    standardHeaders: true,
  },
  {
    name: 'h429',
    config: {
      kind: 'leaky-bucket',
      rate: 2,
      rateUnit: 'r/m',
      burst: 1,
      delay: 'nodelay',
      limitReqStatus: 429,
    },
    standardHeaders: true,
    entryName: 'api',
  },
  {
    name: 'h420',
    config: {
      kind: 'leaky-bucket',
      rate: 7,
      rateUnit: 'r/m',
      burst: 2,
      delay: 'nodelay',
      limitReqStatus: 420,
    },
    standardHeaders: true,
    entryName: `login "v2" $host 'x' \\ é`,
  },
  {
    name: 'h500',
    config: {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/m',
      burst: 0,
      delay: 0,
      limitReqStatus: 500,
    },
    standardHeaders: true,
    entryName: 'nginx limit_req',
  },
  {
    name: 'h444',
    config: {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/m',
      burst: 0,
      delay: 0,
      limitReqStatus: 444,
    },
    standardHeaders: true,
  },
];

describe.skipIf(NGINX === undefined)(
  'what the client receives from a real nginx, byte for byte',
  () => {
    const CASES_ALL = [...STATUS_CASES, ...HEADER_CASES];
    let server: Server | undefined;
    let dir = '';
    let port = 0;

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'rll-nginx-b-'));
      port = await freePort();
      const html = path.join(dir, 'html');
      const parts = CASES_ALL.map((c, i) => {
        mkdirSync(path.join(html, c.name), { recursive: true });
        writeFileSync(path.join(html, c.name, 'index.html'), 'ok\n');
        chmodSync(path.join(html, c.name), 0o755);
        const out = toNginx(c.config, {
          key: '$http_x_client',
          zone: `b${i}`,
          zoneSize: '32k',
          standardHeaders: c.standardHeaders,
          ...(c.entryName === undefined ? {} : { policyName: c.entryName }),
        });
        if (!out.ok) throw new Error(out.reason);
        // Each case's named location gets its own name, as several share one server here.
        return placed(out.text.replaceAll('@ratelimited', `@ratelimited_${c.name}`));
      });
      chmodSync(dir, 0o755);
      chmodSync(html, 0o755);
      writeNginxConf(
        dir,
        `${parts.map((p) => p.http.map((l) => `  ${l}`).join('\n')).join('\n')}
  server {
    listen 127.0.0.1:${port};
    root ${html};
${CASES_ALL.map((c, i) => `    location /${c.name}/ {\n${(parts[i]?.location ?? []).map((l) => `      ${l}`).join('\n')}\n    }\n${(parts[i]?.server ?? []).map((l) => `    ${l}`).join('\n')}`).join('\n')}
  }`,
        64,
      );
      server = await startNginxIn(NGINX as string, dir, port);
    }, 30_000);

    afterAll(async () => {
      await server?.stop();
      if (dir !== '') rmSync(dir, { recursive: true, force: true });
    });

    it('nginx -t accepts the exports with no warning', async () => {
      const result = await nginxTest(dir, path.join(dir, 'nginx.conf'));
      expect(result.output).toMatch(/test is successful/);
      expect(result.output).not.toMatch(/\[warn\]|\[emerg\]|\[alert\]/);
    });

    it('status line, every header in order and the body bytes of admitted and rejected requests are the page’s', async () => {
      let compared = 0;
      let rejections = 0;
      const drops: number[] = [];
      for (const c of CASES_ALL) {
        // The limiter's whole burst, then one more: at 1–7 r/m the bucket drains 8.5 s or slower
        // per request, far more than these requests take.
        const limiter = createLimiter(c.config);
        const count = c.config.burst + 2;
        for (let i = 0; i < count; i += 1) {
          const real = await rawGet(port, `/${c.name}/`, [['X-Client', 'k']]);
          const d = limiter.decide(0, 'k');
          const entry = {
            system: 'nginx',
            config: c.config,
            standardHeaders: c.standardHeaders,
            ...(c.entryName === undefined ? {} : { name: c.entryName }),
          };
          // The page's response at the wall time the request was sent, and at the time its reply
          // came (nginx's Date is its clock's second, read between the two).
          const at = (ms: number) =>
            entryResponse(entry, d, 'lane name', { nowMs: 0, epochMs: ms });
          const dateOf = (headers: ReadonlyArray<readonly [string, string]>) =>
            headers.find(([n]) => n === 'Date')?.[1];
          const early = at(real.sentAtMs);
          const late = at(real.doneAtMs);
          const want = dateOf(late.headers) === dateOf(real.headers) ? late : early;
          const where = `${c.name} request ${i + 1} (${d.outcome})`;
          if (d.outcome === 'reject') {
            rejections += 1;
            if (real.dropped) {
              drops.push(want.status);
              expect(want.statusLine, where).toMatch(/^no reply: nginx closes the connection/);
              expect(want.headers, where).toEqual([]);
            } else {
              expect(real.statusLine, where).toBe(want.statusLine);
              expect(real.headers, where).toEqual(want.headers.map(([n, v]) => [n, v]));
              const length = want.headers.find(([n]) => n === 'Content-Length')?.[1];
              expect(String(real.body.length), `${where}: body bytes`).toBe(length);
            }
          } else {
            expect(real.statusLine, where).toBe(want.statusLine);
            // nginx's own headers and the added ones, in the page's order; the static file's
            // Content-* headers, Last-Modified, ETag and Accept-Ranges between them.
            const own = real.headers.filter(([n]) => !UPSTREAM_HEADERS.has(n));
            expect(own, where).toEqual(want.headers.map(([n, v]) => [n, v]));
            expect(real.headers.length - own.length, where).toBe(UPSTREAM_HEADERS.size);
          }
          compared += 1;
        }
      }
      expect(rejections).toBe(CASES_ALL.length);
      expect(drops.sort((a, b) => a - b)).toEqual([408, 444, 444, 499]);
      // The counts the README's proof table states.
      expect(compared).toBe(proofCount('nginx `limit_req`', 'responses'));
      expect(rejections).toBe(proofCount('nginx `limit_req`', 'rejections'));
      console.info(
        `nginx responses vs the page: ${compared} responses compared byte for byte (${rejections} rejections, limit_req_status 400–599; ${drops.length} of them closed without a reply: ${drops.join(', ')}), 0 disagreements`,
      );
    }, 120_000);
  },
);
