/**
 * Requests with an empty key on a real nginx: the lab's own export keyed by X-Forwarded-For
 * (`limit_req_zone $http_x_forwarded_for …`), an access log in nginx's `main` format where some
 * lines have no X-Forwarded-For (logged `-`), read by the lab keyed by that header. nginx skips a
 * request whose key is empty (ngx_http_limit_req_module.c: `if (key.len == 0) continue;`), so it
 * neither limits nor counts it; the lab's replay with nginx's rule must decide every request as
 * nginx does. Counting them under one shared key (what the lab did before) would reject most of
 * them, which this test also shows. The stage's replay (the simulator's lane, with the lane's
 * system rule) is compared with nginx too, request by request.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeakyBucketConfig } from '../../src/core';
import { toNginx } from '../../src/export';
import { systemById } from '../../src/systems';
import {
  REJECT,
  emptyKeyId,
  emptyKeyOutcome,
  parseTrace,
  replayColumns,
  replayWithEmptyKey,
  simTraceOf,
  traceSourceOf,
  virtualTimes,
} from '../../src/trace';
import { simLimiters } from '../../src/config/keys';
import { OUTCOME_REJECT, defaultScenario, simulate } from '../../src/sim';
import type { Server } from './servers';
import { findBinary, freePort, loudSkip, startNginxIn, writeNginxConf } from './servers';
import { proofCount } from '../systems/proofCounts';

const NGINX = findBinary('nginx');
if (NGINX === undefined)
  loudSkip('the nginx empty-key comparison (tests/export/nginx-empty-key.server.test.ts)', 'nginx');

/**
 * 1 r/m with burst=1 nodelay: two requests of one key pass, the third within a minute is rejected
 * (nginx drains 16 milli-requests a second, so a test taking seconds cannot flip a decision).
 */
const CONFIG: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/m',
  burst: 1,
  delay: 'nodelay',
  limitReqStatus: 429,
};

/** X-Forwarded-For per request, in order; '' sends none (the log says `-`). */
const XFF = ['a', '', 'a', '', 'b', 'a', '', '', 'b', '', 'b', '', 'a', '', 'c', ''];

/** The log the lab reads: one `main` line per request, the same second, XFF or `-`. */
function accessLog(): string {
  return XFF.map(
    (x) =>
      `10.0.0.9 - - [06/Dec/2026:18:00:00 +0000] "GET /r/ HTTP/1.1" 200 3 "-" "test" "${x === '' ? '-' : x}"`,
  ).join('\n');
}

/** What the lab decides for each request, keyed by X-Forwarded-For, with or without nginx's rule. */
function labDecisions(rule: boolean): boolean[] {
  const trace = parseTrace(new TextEncoder().encode(accessLog()), {
    name: 'access.log',
    keySpec: [{ kind: 'xff-first' }],
  });
  const columns = { timeMs: virtualTimes(trace), keyId: trace.keyId, keys: trace.keys };
  const outcome = emptyKeyOutcome(systemById('nginx')?.emptyKey);
  const id = emptyKeyId(trace);
  const replay =
    rule && outcome !== null && id >= 0
      ? replayWithEmptyKey(columns, CONFIG, { id, outcome })
      : replayColumns(columns, CONFIG);
  return Array.from(replay.outcome, (o) => o !== REJECT);
}

/**
 * What the stage decides for each request when it replays the same log with an nginx lane (the
 * simulator's own loop, as the page runs it): the lane's system rule comes from `simLimiters`.
 */
function stageDecisions(): boolean[] {
  const trace = parseTrace(new TextEncoder().encode(accessLog()), {
    name: 'access.log',
    keySpec: [{ kind: 'xff-first' }],
  });
  const sim = { ...simTraceOf(trace), emptyKeyId: emptyKeyId(trace) };
  const scenario = { ...defaultScenario(), sources: [traceSourceOf(sim, 'access.log', 1)] };
  const result = simulate(simLimiters({ limiters: [{ config: CONFIG }] }), scenario, 60_000, {
    traces: [sim],
  });
  const lane = result.lanes[0];
  if (lane === undefined) throw new Error('no lane');
  return Array.from(
    lane.columns.outcome.subarray(0, lane.columns.rows),
    (o) => o !== OUTCOME_REJECT,
  );
}

function get(port: number, xff: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/r/',
        headers: xff === '' ? {} : { 'X-Forwarded-For': xff },
        agent: false,
        timeout: 10_000,
      },
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

describe.skipIf(NGINX === undefined)('requests without the key header on a real nginx', () => {
  let server: Server | undefined;
  let dir = '';
  let port = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'rll-nginx-empty-'));
    port = await freePort();
    const out = toNginx(CONFIG, { key: '$http_x_forwarded_for', zone: 'xff', zoneSize: '1m' });
    if (!out.ok) throw new Error(out.reason);
    const lines = out.text.split('\n').filter((l) => l.startsWith('limit_req'));
    const html = path.join(dir, 'html');
    mkdirSync(path.join(html, 'r'), { recursive: true });
    writeFileSync(path.join(html, 'r', 'index.html'), 'ok\n');
    writeNginxConf(
      dir,
      `  ${lines.filter((l) => l.startsWith('limit_req_zone ')).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    root ${html};
    location /r/ {
      ${lines.filter((l) => !l.startsWith('limit_req_zone ')).join('\n      ')}
    }
  }`,
      64,
    );
    // nginx's workers run as an unprivileged user when started as root: let them read the files.
    for (const p of [dir, html, path.join(html, 'r')]) chmodSync(p, 0o755);
    server = await startNginxIn(NGINX as string, dir, port);
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  it('admits and does not count every request with an empty key, as the lab now decides', async () => {
    const real: boolean[] = [];
    // One at a time, in the log's order: nginx sees them as the lab replays them.
    for (const x of XFF) {
      const status = await get(port, x);
      expect([200, 429]).toContain(status);
      real.push(status === 200);
    }
    const lab = labDecisions(true);
    expect(lab).toEqual(real);
    // The stage's replay of the same log with an nginx lane decides each request alike.
    expect(stageDecisions()).toEqual(real);
    // Every request without the header passed, and the keyed ones were limited.
    XFF.forEach((x, i) => {
      if (x === '') expect(real[i]).toBe(true);
    });
    expect(real.filter((ok) => !ok).length).toBeGreaterThan(0);
    // Without nginx's rule (one shared key `-`) the lab rejects requests nginx admitted.
    const shared = labDecisions(false);
    expect(shared).not.toEqual(real);
    expect(XFF.filter((x, i) => x === '' && !shared[i]).length).toBe(6);
    // The counts the README's proof table states.
    expect(real.length).toBe(proofCount('nginx `limit_req`', 'emptyKeyRequests'));
    expect(XFF.filter((x) => x === '').length).toBe(
      proofCount('nginx `limit_req`', 'emptyKeyUnaccounted'),
    );
  }, 60_000);
});
