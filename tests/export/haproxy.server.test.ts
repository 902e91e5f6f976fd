/**
 * The proof for the HAProxy model and export: a real haproxy (Debian's 2.6.12) runs the exported
 * frontend lines — stick-table with http_req_rate, track-sc0 src, deny — with `http-request return
 * status 200` for what passes. Timed traces from several client addresses (127.0.0.x, so src
 * differs) are replayed against it, and every group of simultaneous requests must get the statuses
 * the core decided; every denied response must carry the status line and headers the page shows.
 * The traces keep every request well away from a decision boundary (a period's rotation, the
 * previous period's weight crossing a whole request, an entry's expiry): checked below by
 * perturbing them, so a busy machine cannot flip a decision.
 *
 * haproxy runs with `nbthread 1`. With its default of one thread per core (2 here), a group of
 * three simultaneous requests from one address arriving 400 ms after its entry's period rotated
 * was denied three times in one run out of four (the model and the single-threaded haproxy pass
 * the first): requests handled at once by two threads, each with its own wake-up time, do not
 * see the counts of one-at-a-time order. The system's differences say so.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision, SlidingWindowCounterConfig } from '../../src/core';
import { HAPROXY_DENY_STATUSES, createLimiter } from '../../src/core';
import { HAPROXY_COMPLETE, toHaproxy } from '../../src/export';
import { systemById } from '../../src/systems';
import { int, seeded } from './gen';
import type { Finding, Server } from './servers';
import { findBinary, freePort, loudSkip, startServer, timedProof } from './servers';
import type { Group } from './timed-trace';
import { fragility } from './timed-trace';
import { responseOf } from '../../src/systems/respond';
import { proofCount } from '../systems/proofCounts';

const HAPROXY = findBinary('haproxy');
if (HAPROXY === undefined)
  loudSkip(
    'the HAProxy model and export comparison (tests/export/haproxy.server.test.ts)',
    'haproxy',
  );

const haproxySystem = systemById('haproxy');
if (haproxySystem === undefined) throw new Error('haproxy is registered');

/** How far a group may drift in time, each way, without changing any decision (checked). */
const JITTER_MS = 80;
/** How far apart requests of one group may arrive. */
const SPREAD_MS = 25;

interface Case {
  name: string;
  config: SlidingWindowCounterConfig;
  groups: Group[];
}

const entry = (
  limit: number,
  windowMs: number,
  extra: Partial<SlidingWindowCounterConfig> = {},
): SlidingWindowCounterConfig => ({
  kind: 'sliding-window-counter',
  limit,
  windowMs,
  anchor: 'entry',
  ...extra,
});

/** Keys are client addresses: 127.0.0.<n>. Each case uses its own. */
const CASES: Case[] = [
  {
    name: 'gt 3 per 2s, deny_status 429, expire 30s',
    config: entry(3, 2000, { expireMs: 30_000, denyStatus: 429 }),
    groups: [
      // Five at once: three pass, two are denied — and counted.
      { atMs: 0, key: '127.0.0.11', count: 5 },
      { atMs: 1000, key: '127.0.0.11', count: 2 },
      // Rotated at 2000 with prev = 7: still above 3 (1 + ⌊7·1400/2000⌋ = 5).
      { atMs: 2600, key: '127.0.0.11', count: 1 },
      // Two periods after the last rotation: a fresh period, three of four pass.
      { atMs: 6500, key: '127.0.0.11', count: 4 },
      { atMs: 300, key: '127.0.0.12', count: 3 },
      // The previous period weighs ⌊3·1600/2000⌋ = 2: one of three passes.
      { atMs: 2700, key: '127.0.0.12', count: 3 },
    ],
  },
  {
    name: 'gt 2 per 1500ms, no deny_status (403), expire 1s',
    config: entry(2, 1500, { expireMs: 1000 }),
    groups: [
      { atMs: 0, key: '127.0.0.21', count: 3 },
      // Idle 1.6 s > expire: a fresh entry (kept, it would deny all three).
      { atMs: 1600, key: '127.0.0.21', count: 3 },
      { atMs: 200, key: '127.0.0.22', count: 2 },
      // Idle 0.7 s and 0.6 s < expire: kept, and the denied requests keep counting.
      { atMs: 900, key: '127.0.0.22', count: 1 },
      { atMs: 1500, key: '127.0.0.22', count: 2 },
      { atMs: 4400, key: '127.0.0.22', count: 3 },
    ],
  },
  {
    name: 'gt 5 per 4s, deny_status 503, no expire',
    config: entry(5, 4000, { denyStatus: 503 }),
    groups: [
      { atMs: 0, key: '127.0.0.31', count: 8 },
      { atMs: 1000, key: '127.0.0.31', count: 2 },
      // Rotated at 4000 with prev = 10; at 7000 it weighs ⌊10·1000/4000⌋ = 2: three of four pass.
      { atMs: 7000, key: '127.0.0.31', count: 4 },
      { atMs: 500, key: '127.0.0.32', count: 2 },
      { atMs: 2500, key: '127.0.0.32', count: 5 },
      { atMs: 9000, key: '127.0.0.32', count: 3 },
    ],
  },
];

/** Each case's groups again for fresh addresses, a little later: more requests in the same time. */
const REPLICAS = 3;
for (const c of CASES) {
  const base = c.groups.slice();
  for (let r = 1; r < REPLICAS; r += 1) {
    for (const g of base) {
      c.groups.push({
        ...g,
        key: g.key.replace(/\.(\d+)$/, (_, n) => `.${Number(n) + 20 * r}`),
        atMs: g.atMs + r * 173,
      });
    }
  }
}

/**
 * The export completed exactly as its own comment says (HAPROXY_COMPLETE): after the global and
 * defaults sections, a bind line and default_backend to a backend in mode http — here one that
 * answers 200 to what passes.
 */
function frontendOf(config: SlidingWindowCounterConfig, name: string, port: number): string {
  const out = toHaproxy(config, { frontend: name, size: '10k' });
  if (!out.ok) throw new Error(out.reason);
  for (const line of HAPROXY_COMPLETE) expect(out.text).toContain(`# ${line}`);
  return [
    out.text.trimEnd(),
    `    bind 127.0.0.1:${port}`,
    `    default_backend app_${name}`,
    `backend app_${name}`,
    '    mode http',
    '    http-request return status 200',
    '',
  ].join('\n');
}

/**
 * The global and defaults sections the export is pasted after: timeouts only (no `mode`, so the
 * export's own `mode http` is what makes its rules run). One thread: see the top of this file.
 */
const GLOBAL = `global
    maxconn 1024
    nbthread 1
defaults
    timeout connect 5s
    timeout client 10s
    timeout server 10s
`;

/** `haproxy -c` on a configuration file: its exit code and everything it printed. */
function check(file: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      HAPROXY as string,
      ['-c', '-f', file],
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

interface Reply {
  status: number;
  reason: string;
  headers: Record<string, string>;
  /** Bytes of the body as received. */
  bodyBytes: number;
}

function get(port: number, urlPath: string, from: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: urlPath,
        localAddress: from,
        agent: false,
        // Keep-alive, as browsers and most clients ask: with "Connection: close" HAProxy answers
        // "connection: close", which is HTTP/1.1's and not the limiter's. The socket is closed here.
        headers: { Connection: 'keep-alive' },
        timeout: 10_000,
      },
      (res) => {
        let bodyBytes = 0;
        res.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
        res.on('end', () => {
          req.destroy();
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) {
            if (typeof v === 'string') headers[k.toLowerCase()] = v;
          }
          resolve({
            status: res.statusCode ?? 0,
            reason: res.statusMessage ?? '',
            headers,
            bodyBytes,
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request to ${urlPath} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/**
 * How many of a case's requests the model denies: its groups in time order, each group's requests
 * decided at the group's time (the traces keep every group away from a boundary, checked below).
 */
function modelDenied(c: Case): number {
  const limiter = createLimiter(c.config);
  let denied = 0;
  for (const g of [...c.groups].sort((a, b) => a.atMs - b.atMs)) {
    for (let i = 0; i < g.count; i += 1) {
      if (limiter.decide(g.atMs, g.key).outcome === 'reject') denied += 1;
    }
  }
  return denied;
}

/**
 * The response the page shows for a denied request of `config`, with or without the limiter's
 * "add standard rate-limit headers" (which the export does not write: the same response).
 */
function shownDeny(config: SlidingWindowCounterConfig, standardHeaders = false) {
  const limiter = createLimiter(config);
  let d: Decision | undefined;
  for (let i = 0; i <= config.limit; i += 1) d = limiter.decide(0, 'x');
  if (d?.outcome !== 'reject') throw new Error('expected a deny');
  return responseOf(haproxySystem!)(config, d, { standardHeaders, policyName: 'p', nowMs: 0 });
}

describe.skipIf(HAPROXY === undefined)('HAProxy model and export against a real haproxy', () => {
  let server: Server | undefined;
  let dir = '';
  let file = '';
  const ports: number[] = [];
  let statusPort = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rll-haproxy-'));
    for (let i = 0; i < CASES.length; i += 1) ports.push(await freePort());
    statusPort = await freePort();
    // One more frontend: a deny for every status with a built-in reply, by path.
    const statuses = [
      'frontend statuses',
      `    bind 127.0.0.1:${statusPort}`,
      '    mode http',
      ...HAPROXY_DENY_STATUSES.map(
        (s) => `    http-request deny deny_status ${s} if { path /${s} }`,
      ),
      '    http-request deny if { path /default }',
      '    http-request return status 200',
      '',
    ].join('\n');
    const cfg =
      GLOBAL +
      CASES.map((c, i) => frontendOf(c.config, `case${i}`, ports[i] as number)).join('\n') +
      '\n' +
      statuses;
    file = path.join(dir, 'haproxy.cfg');
    writeFileSync(file, cfg);
    server = await startServer(HAPROXY as string, ['-f', file, '-db'], ports[0] as number);
    // Every frontend listens before the clock starts.
    for (const p of [...ports, statusPort]) {
      expect((await get(p, '/200', '127.0.0.1')).status).toBeGreaterThan(0);
    }
  }, 20_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('the configuration under test, the exports completed as their comment says, passes haproxy -c with no warning', async () => {
    const result = await check(file);
    expect(result.output).toMatch(/Configuration file is valid/);
    expect(result.output).not.toMatch(/ALERT|WARNING/);
    expect(result.code).toBe(0);
  });

  it('without its mode http line the export would be ignored: haproxy -c warns (what the line is for)', async () => {
    const bare = frontendOf(entry(3, 2000), 'bare', 20_999).replace(
      '    mode http\n    stick',
      '    stick',
    );
    expect(bare.slice(0, bare.indexOf('backend'))).not.toContain('mode http');
    const bareFile = path.join(dir, 'bare.cfg');
    writeFileSync(bareFile, GLOBAL + bare);
    const result = await check(bareFile);
    expect(result.output).toMatch(/'http-request' rules ignored for frontend 'bare'/);
  });

  it('the traces keep every request well away from a decision boundary', () => {
    const problems = CASES.flatMap((c) =>
      fragility(c.config, c.groups, JITTER_MS, SPREAD_MS, 0).map((p) => `${c.name}: ${p}`),
    );
    expect(problems).toEqual([]);
    // The model denies as many of the traces' requests as the README's proof table states.
    expect(CASES.reduce((n, c) => n + modelDenied(c), 0)).toBe(
      proofCount('HAProxy stick-table', 'denied'),
    );
  });

  it('every status, and every denied response’s status line and headers, match the model', async () => {
    let denied = 0;
    // The warm-up requests above came from 127.0.0.1, which no case uses; a replayed key moves to
    // 127.0.<attempt>.<n>, an address the table has never seen.
    const report = await timedProof<Reply>({
      label: 'haproxy',
      cases: CASES,
      leadMs: 300,
      jitterMs: JITTER_MS,
      rekey: (key, attempt) => key.replace(/^127\.0\.0\./, `127.0.${attempt}.`),
      send: (ci, g) => get(ports[ci] as number, '/', g.key),
      // HAProxy answers every request at once (it never delays).
      prompt: () => true,
      judge: (c, g, want, got) => {
        const deny = shownDeny(c.config as SlidingWindowCounterConfig);
        const findings: Finding[] = [];
        const statuses = got.map((r) => r.status).sort((a, b) => a - b);
        const expected = [
          ...Array<number>(want.admit).fill(200),
          ...Array<number>(want.reject).fill(deny.status),
        ].sort((a, b) => a - b);
        if (JSON.stringify(statuses) !== JSON.stringify(expected)) {
          findings.push({
            message: `${g.count} × ${g.key}: statuses ${statuses.join(' ')}, the model ${expected.join(' ')}`,
          });
        }
        for (const r of got.filter((x) => x.status !== 200)) {
          denied += 1;
          const line = `HTTP/1.1 ${r.status} ${r.reason}`;
          if (line !== deny.statusLine) {
            findings.push({ message: `status line ${line}, the page ${deny.statusLine}` });
          }
          const names = Object.keys(r.headers);
          const shown = deny.fields.map((f) => f.name);
          if (JSON.stringify(names) !== JSON.stringify(shown)) {
            findings.push({ message: `headers ${names.join(', ')}, the page ${shown.join(', ')}` });
          }
          for (const f of deny.fields) {
            if (r.headers[f.name] !== f.value) {
              findings.push({ message: `${f.name}: ${r.headers[f.name]}, the page ${f.value}` });
            }
          }
          // The body itself: as many bytes as the content-length the page shows.
          const length = deny.fields.find((f) => f.name === 'content-length')?.value;
          if (String(r.bodyBytes) !== length) {
            findings.push({
              message: `body of ${r.bodyBytes} bytes, the page's content-length ${length}`,
            });
          }
        }
        return findings;
      },
    });
    expect(report.failures).toEqual([]);
    const requests = CASES.reduce((n, c) => n + c.groups.reduce((m, g) => m + g.count, 0), 0);
    expect(report.requests).toBe(requests);
    // The count the README's proof table states.
    expect(report.requests).toBe(proofCount('HAProxy stick-table', 'timedRequests'));
    // Every request was judged once (no replay after a judgement: this judge has no timing
    // findings), so these are the real haproxy's denied responses, each compared above.
    expect(denied).toBe(proofCount('HAProxy stick-table', 'denied'));
    console.info(
      `haproxy vs core: ${report.requests} requests compared (${denied} denied responses' status line, headers and body length compared), 0 disagreements; ${report.attempts} attempt(s), ${report.widened} key(s) judged at their measured times, ${report.retried} replayed`,
    );
  }, 90_000);

  it('the built-in reply of every deny_status is the one the page shows', async () => {
    let compared = 0;
    for (const s of [...HAPROXY_DENY_STATUSES, undefined]) {
      const config = entry(1, 1000, s === undefined ? {} : { denyStatus: s });
      const deny = shownDeny(config);
      // With the standard headers added, the page shows the same reply: the export sends none.
      expect(shownDeny(config, true)).toEqual(deny);
      const r = await get(statusPort, s === undefined ? '/default' : `/${s}`, '127.0.0.1');
      const where = `deny_status ${s ?? '(none)'}`;
      expect(`HTTP/1.1 ${r.status} ${r.reason}`, where).toBe(deny.statusLine);
      const names = Object.keys(r.headers);
      expect(names, where).toEqual(deny.fields.map((f) => f.name));
      for (const f of deny.fields) expect(r.headers[f.name], `${where}: ${f.name}`).toBe(f.value);
      // The body's real length is the content-length the page shows.
      const length = deny.fields.find((f) => f.name === 'content-length')?.value;
      expect(length, where).toMatch(/^[0-9]+$/);
      expect(String(r.bodyBytes), `${where}: body bytes`).toBe(length);
      compared += 1;
    }
    console.info(`haproxy deny replies vs the page: ${compared} statuses compared`);
    // The count the README's proof table states (every deny_status, and the default).
    expect(compared).toBe(proofCount('HAProxy stick-table', 'denyReplies'));
  }, 15_000);

  it('real haproxy accepts every exported config with no warning (haproxy -c), for random limiters', async () => {
    const rng = seeded(13);
    const checkDir = mkdtempSync(path.join(tmpdir(), 'rll-haproxy-c-'));
    try {
      const frontends: string[] = [];
      for (let i = 0; i < 25; i += 1) {
        const status = HAPROXY_DENY_STATUSES[int(rng, 0, HAPROXY_DENY_STATUSES.length - 1)];
        const config = entry(int(rng, 1, 1_000_000), int(rng, 2, 86_400_000), {
          ...(rng() < 0.7 ? { expireMs: int(rng, 1, 86_400_000) } : {}),
          ...(rng() < 0.8 && status !== undefined ? { denyStatus: status } : {}),
        });
        frontends.push(frontendOf(config, `check${i}`, 20_000 + i));
      }
      const checkFile = path.join(checkDir, 'haproxy.cfg');
      writeFileSync(checkFile, GLOBAL + frontends.join('\n'));
      const result = await check(checkFile);
      expect(result.output).toMatch(/Configuration file is valid/);
      expect(result.output).not.toMatch(/ALERT|WARNING/);
      expect(result.code).toBe(0);
    } finally {
      rmSync(checkDir, { recursive: true, force: true });
    }
  }, 15_000);
});
