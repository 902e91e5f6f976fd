/**
 * The nginx and HAProxy exports keyed as a loaded log is replayed (src/export/replayKey.ts), on the
 * real servers: a HAR whose requests carry (or lack) X-Forwarded-For and an X-Api-Key header, over
 * two paths, is read keyed by each kind of key; the export for that key is completed as its
 * comments say and checked by `nginx -t` / `haproxy -c` with no warning; then the same requests go
 * to the running server one at a time, and each must get the decision the stage's replay of the
 * log gave it (the simulator's lane with the system's empty-key rule). HAProxy does not track a
 * request whose key's sample fetch fails (a missing header): it is neither counted nor denied —
 * the lab's rule for it (src/systems/haproxy.ts emptyKey), which this proves; counting those
 * requests under one shared key instead (the replay without the rule) decides otherwise.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AlgorithmConfig,
  LeakyBucketConfig,
  SlidingWindowCounterConfig,
} from '../../src/core';
import { toHaproxy, toNginx } from '../../src/export';
import type { ReplayKey } from '../../src/export';
import type { KeySpec } from '../../src/trace';
import {
  REJECT,
  emptyKeyId,
  parseTrace,
  replayColumns,
  simTraceOf,
  traceSourceOf,
  virtualTimes,
} from '../../src/trace';
import { simLimiters } from '../../src/config/keys';
import { OUTCOME_REJECT, defaultScenario, simulate } from '../../src/sim';
import type { SystemId } from '../../src/systems';
import type { Server } from './servers';
import { proofCount } from '../systems/proofCounts';
import {
  findBinary,
  freePort,
  loudSkip,
  startNginxIn,
  startServer,
  writeNginxConf,
} from './servers';

const NGINX = findBinary('nginx');
const HAPROXY = findBinary('haproxy');
if (NGINX === undefined)
  loudSkip(
    'the nginx export keyed as the replay (tests/export/replay-key.server.test.ts)',
    'nginx',
  );
if (HAPROXY === undefined)
  loudSkip(
    'the HAProxy export keyed as the replay (tests/export/replay-key.server.test.ts)',
    'haproxy',
  );

/** Two requests of a key pass, the third within a minute is rejected (nginx drains 1 per 60 s). */
const NGINX_CONFIG: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/m',
  burst: 1,
  delay: 'nodelay',
  limitReqStatus: 429,
};

/** Two requests of a key per minute pass; the rest are denied (and counted). */
const HAPROXY_CONFIG: SlidingWindowCounterConfig = {
  kind: 'sliding-window-counter',
  limit: 2,
  windowMs: 60_000,
  anchor: 'entry',
  denyStatus: 429,
};

/**
 * One request: its X-Forwarded-For and X-Api-Key ('' sends none; a list sends one line per value,
 * in order) and its path.
 */
interface Req {
  xff: string | string[];
  apiKey: string | string[];
  path: string;
}

/** The header lines of a value of Req. */
const linesOf = (v: string | string[]): string[] =>
  typeof v === 'string' ? (v === '' ? [] : [v]) : v;

const REQS: Req[] = [
  { xff: 'a, p1', apiKey: 'k1', path: '/r/a' },
  { xff: '', apiKey: '', path: '/r/a' },
  { xff: 'a ,p2', apiKey: 'k1', path: '/r/b' },
  { xff: 'b', apiKey: 'k2', path: '/r/a' },
  { xff: 'a', apiKey: '', path: '/r/a' },
  { xff: 'c, p2', apiKey: 'k1', path: '/r/b' },
  { xff: '', apiKey: 'k2', path: '/r/a' },
  { xff: 'b, p1', apiKey: 'k1', path: '/r/b' },
  { xff: 'p1,  p2', apiKey: '', path: '/r/a' },
  { xff: '', apiKey: 'k2', path: '/r/b' },
  { xff: 'a, p1', apiKey: 'k3', path: '/r/a' },
  { xff: '', apiKey: '', path: '/r/b' },
  { xff: 'd, p2', apiKey: 'k1', path: '/r/a' },
  { xff: 'p1', apiKey: '', path: '/r/a' },
  // Headers sent on two lines: nginx 1.22 joins X-Forwarded-For's lines (", ") and reads any other
  // header's first line; HAProxy's req.hdr takes hops over all lines and req.fhdr(…,1) the first.
  // Keyed by the first line, e, e, e: the third is limited; by the last (what the lab read before),
  // a, f, g and k1, k3, k1 decide otherwise.
  { xff: ['e, p1', 'a, p2'], apiKey: ['k4', 'k1'], path: '/r/a' },
  { xff: ['e', 'f'], apiKey: ['k4', 'k3'], path: '/r/b' },
  { xff: ['e, p1', 'g'], apiKey: ['k4', 'k1'], path: '/r/a' },
  // An empty first hop and an empty X-Api-Key line: HAProxy 2.6 tracks an empty fetch as the key
  // "" (these three would share it, the third denied) unless the export skips it; nginx does not
  // account an empty key; the lab counts neither.
  { xff: ', b', apiKey: [''], path: '/r/a' },
  { xff: ' , c', apiKey: [''], path: '/r/b' },
  { xff: ',d', apiKey: [''], path: '/r/a' },
];

/** The log the lab reads: a HAR of those requests, 1 ms apart. */
function har(): string {
  const entries = REQS.map((r, i) => ({
    startedDateTime: `2026-12-06T18:00:00.${String(i).padStart(3, '0')}Z`,
    request: {
      method: 'GET',
      url: `http://example.test${r.path}`,
      headers: [
        ...linesOf(r.xff).map((value) => ({ name: 'X-Forwarded-For', value })),
        ...linesOf(r.apiKey).map((value) => ({ name: 'X-Api-Key', value })),
      ],
    },
    response: { status: 200 },
  }));
  return JSON.stringify({ log: { version: '1.2', entries } });
}

interface KeyCase {
  name: string;
  spec: KeySpec;
  /** Whether the product's export can key by it (else the export says why, and is not run). */
  nginx: boolean;
  haproxy: boolean;
}

const KEYS: KeyCase[] = [
  { name: 'xff-first', spec: [{ kind: 'xff-first' }], nginx: true, haproxy: true },
  { name: 'xff-last', spec: [{ kind: 'xff-last' }], nginx: true, haproxy: true },
  { name: 'path', spec: [{ kind: 'path' }], nginx: true, haproxy: true },
  { name: 'header', spec: [{ kind: 'field', name: 'x-api-key' }], nginx: true, haproxy: true },
  { name: 'all', spec: [], nginx: true, haproxy: true },
  {
    name: 'client-path',
    spec: [{ kind: 'client' }, { kind: 'path' }],
    nginx: true,
    haproxy: false,
  },
];

const replayKey = (spec: KeySpec): ReplayKey => ({ spec, format: 'har' });

function traceOf(spec: KeySpec) {
  return parseTrace(new TextEncoder().encode(har()), { name: 'requests.har', keySpec: spec });
}

/** What the stage decides for each request: the log keyed by `spec`, replayed by a lane of `system`. */
function stageDecisions(system: SystemId, config: AlgorithmConfig, spec: KeySpec): boolean[] {
  const trace = traceOf(spec);
  const sim = { ...simTraceOf(trace), emptyKeyId: emptyKeyId(trace) };
  const scenario = { ...defaultScenario(), sources: [traceSourceOf(sim, 'requests.har', 1)] };
  const result = simulate(simLimiters({ limiters: [{ system, config }] }), scenario, 60_000, {
    traces: [sim],
  });
  const lane = result.lanes[0];
  if (lane === undefined) throw new Error('no lane');
  expect(lane.columns.rows).toBe(REQS.length);
  return Array.from(
    lane.columns.outcome.subarray(0, lane.columns.rows),
    (o) => o !== OUTCOME_REJECT,
  );
}

/** The replay without any empty-key rule: requests with no key share the key `-`. */
function sharedKeyDecisions(config: AlgorithmConfig, spec: KeySpec): boolean[] {
  const trace = traceOf(spec);
  const replay = replayColumns(
    { timeMs: virtualTimes(trace), keyId: trace.keyId, keys: trace.keys },
    config,
  );
  return Array.from(replay.outcome, (o) => o !== REJECT);
}

function get(port: number, r: Req): Promise<number> {
  return new Promise((resolve, reject) => {
    // A list is sent as one header line per value (node's http writes each).
    const headers: Record<string, string | string[]> = {};
    if (linesOf(r.xff).length > 0) headers['X-Forwarded-For'] = linesOf(r.xff);
    if (linesOf(r.apiKey).length > 0) headers['X-Api-Key'] = linesOf(r.apiKey);
    const req = request(
      { host: '127.0.0.1', port, path: r.path, headers, agent: false, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end();
  });
}

/** Every request in order, one at a time: true for 200, false for 429. */
async function realDecisions(port: number): Promise<boolean[]> {
  const out: boolean[] = [];
  for (const r of REQS) {
    const status = await get(port, r);
    expect([200, 429]).toContain(status);
    out.push(status === 200);
  }
  return out;
}

function run(binary: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(binary, args, { timeout: 10_000 }, (error, stdout, stderr) => {
      resolve({
        code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
        output: stdout + stderr,
      });
    });
  });
}

describe('the exports say so when they cannot key as the replay', () => {
  it('HAProxy: a key of two parts keeps src and says the export keys by the client address', () => {
    const out = toHaproxy(HAPROXY_CONFIG, { replayKey: replayKey(KEYS[5]?.spec ?? []) });
    if (!out.ok) throw new Error(out.reason);
    expect(out.text).toContain('http-request track-sc0 src\n');
    expect(out.differences[0]).toBe(
      'The HAProxy export keys by the client address while the replay keys by client address + path: track-sc0 here tracks one sample fetch.',
    );
  });
});

describe.skipIf(NGINX === undefined)('nginx keyed as the replay, on a real nginx', () => {
  let server: Server | undefined;
  let dir = '';
  const ports: number[] = [];
  const cases = KEYS.filter((k) => k.nginx);
  let compared = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rll-nginx-replay-key-'));
    const html = path.join(dir, 'html');
    mkdirSync(path.join(html, 'r'), { recursive: true });
    writeFileSync(path.join(html, 'r', 'a'), 'a\n');
    writeFileSync(path.join(html, 'r', 'b'), 'b\n');
    const blocks: string[] = [];
    for (const k of cases) {
      const port = await freePort();
      ports.push(port);
      const out = toNginx(NGINX_CONFIG, {
        zone: k.name.replace(/-/g, '_'),
        zoneSize: '1m',
        replayKey: replayKey(k.spec),
      });
      if (!out.ok) throw new Error(out.reason);
      // As its comments say: the map and the zone in http { }, limit_req in the location.
      const text = out.text.split('\n');
      const start = text.indexOf('# In the http { } block:');
      const loc = text.indexOf('# In the server { } or location { } to limit:');
      const http = text.slice(start + 1, loc).filter((l) => l.trim() !== '');
      const location = text.slice(loc + 1).filter((l) => l.startsWith('limit_req'));
      blocks.push(...http);
      blocks.push(
        `server {\n  listen 127.0.0.1:${port};\n  root ${html};\n  location /r/ {\n    ${location.join('\n    ')}\n  }\n}`,
      );
    }
    // A variable is made by one map: the two hops' maps are written once each.
    writeNginxConf(dir, dedupeMaps(blocks).join('\n'), 64);
    for (const p of [dir, html, path.join(html, 'r')]) chmodSync(p, 0o755);
    server = await startNginxIn(NGINX as string, dir, ports[0] as number);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('nginx -t accepts every keyed export with no warning', async () => {
    const r = await run(NGINX as string, [
      '-t',
      '-p',
      dir,
      '-c',
      path.join(dir, 'nginx.conf'),
      '-e',
      path.join(dir, 'error.log'),
    ]);
    expect(r.output).toMatch(/test is successful/);
    expect(r.output).not.toMatch(/\[warn\]|\[emerg\]|\[alert\]/);
  });

  it.each(cases.map((k, i) => [k.name, k, i] as const))(
    'keyed by %s: real nginx decides every request as the stage',
    async (_, k, i) => {
      const real = await realDecisions(ports[i] as number);
      expect(stageDecisions('nginx', NGINX_CONFIG, k.spec)).toEqual(real);
      compared += real.length;
      // Something was limited, so the comparison can fail.
      expect(real.filter((ok) => !ok).length).toBeGreaterThan(0);
    },
    30_000,
  );

  it('compared every request of every key (the README’s count)', () => {
    expect(compared).toBe(cases.length * REQS.length);
    expect(compared).toBe(proofCount('nginx `limit_req`', 'replayKeyDecisions'));
    expect(REQS.filter((r) => linesOf(r.apiKey).join('') === '' && r.apiKey !== '')).toHaveLength(
      proofCount('nginx `limit_req`', 'replayKeyEmptyKey'),
    );
    expect(
      REQS.filter((r) => linesOf(r.xff).length > 1 && linesOf(r.apiKey).length > 1),
    ).toHaveLength(proofCount('nginx `limit_req`', 'replayKeyRepeatedLines'));
  });
});

/** The http { } lines with each `map … { … }` block written once. */
function dedupeMaps(lines: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i += 1) {
    const l = lines[i] as string;
    if (l.startsWith('map ')) {
      const end = lines.indexOf('}', i);
      const block = lines.slice(i, end + 1);
      if (!seen.has(l)) out.push(...block);
      seen.add(l);
      i = end;
    } else out.push(l);
  }
  return out;
}

describe.skipIf(HAPROXY === undefined)('HAProxy keyed as the replay, on a real haproxy', () => {
  let server: Server | undefined;
  let dir = '';
  let file = '';
  const ports: number[] = [];
  const cases = KEYS.filter((k) => k.haproxy);
  let compared = 0;
  /** What real haproxy decided, by key case. */
  const seen = new Map<string, boolean[]>();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rll-haproxy-replay-key-'));
    const parts = [
      'global\n    maxconn 256\n    nbthread 1\ndefaults\n    timeout connect 5s\n    timeout client 10s\n    timeout server 10s\n',
    ];
    for (const k of cases) {
      const port = await freePort();
      ports.push(port);
      const name = k.name.replace(/-/g, '_');
      const out = toHaproxy(HAPROXY_CONFIG, {
        frontend: name,
        size: '1k',
        replayKey: replayKey(k.spec),
      });
      if (!out.ok) throw new Error(out.reason);
      // Completed as its comment says: a bind line and default_backend to a backend in mode http.
      parts.push(
        [
          out.text.trimEnd(),
          `    bind 127.0.0.1:${port}`,
          `    default_backend app_${name}`,
          `backend app_${name}`,
          '    mode http',
          '    http-request return status 200',
          '',
        ].join('\n'),
      );
    }
    file = path.join(dir, 'haproxy.cfg');
    writeFileSync(file, parts.join('\n'));
    server = await startServer(HAPROXY as string, ['-f', file, '-db'], ports[0] as number);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('haproxy -c accepts every keyed export with no warning', async () => {
    const r = await run(HAPROXY as string, ['-c', '-f', file]);
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/Configuration file is valid/);
    expect(r.output).not.toMatch(/WARNING|ALERT/);
  });

  it.each(cases.map((k, i) => [k.name, k, i] as const))(
    'keyed by %s: real haproxy decides every request as the stage',
    async (_, k, i) => {
      const real = await realDecisions(ports[i] as number);
      seen.set(k.name, real);
      expect(stageDecisions('haproxy', HAPROXY_CONFIG, k.spec)).toEqual(real);
      compared += real.length;
      expect(real.filter((ok) => !ok).length).toBeGreaterThan(0);
    },
    30_000,
  );

  it('a request without the key header is not tracked: admitted and not counted, as the lab’s rule says', () => {
    const k = KEYS[3] as KeyCase;
    const real = seen.get(k.name);
    if (real === undefined) throw new Error('the header case did not run');
    // Real haproxy admitted every request without X-Api-Key …
    REQS.forEach((r, j) => {
      if (linesOf(r.apiKey).length === 0) expect(real[j], `request ${j + 1}`).toBe(true);
    });
    // … which the replay without the rule (those requests sharing one key) gets wrong.
    const shared = sharedKeyDecisions(HAPROXY_CONFIG, k.spec);
    expect(shared).not.toEqual(real);
    expect(
      REQS.filter((r, j) => linesOf(r.apiKey).length === 0 && !shared[j]).length,
    ).toBeGreaterThan(0);
  });

  it('a request whose key is empty (an empty first hop, an empty header line) is not tracked either', () => {
    const empty = REQS.flatMap((r, j) =>
      linesOf(r.apiKey).length === 1 && linesOf(r.apiKey)[0] === '' ? [j] : [],
    );
    expect(empty).toHaveLength(proofCount('HAProxy stick-table', 'replayKeyEmptyKey'));
    for (const name of ['xff-first', 'header']) {
      const real = seen.get(name);
      if (real === undefined) throw new Error(`the ${name} case did not run`);
      for (const j of empty) expect(real[j], `${name}: request ${j + 1}`).toBe(true);
    }
  });

  it('compared every request of every key (the README’s count)', () => {
    expect(compared).toBe(cases.length * REQS.length);
    expect(compared).toBe(proofCount('HAProxy stick-table', 'replayKeyDecisions'));
    expect(
      REQS.filter((r) => linesOf(r.xff).length > 1 && linesOf(r.apiKey).length > 1),
    ).toHaveLength(proofCount('HAProxy stick-table', 'replayKeyRepeatedLines'));
  });
});
