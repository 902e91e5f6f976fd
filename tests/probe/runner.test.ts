/**
 * The runner against servers that misbehave, on loopback (a plain Node HTTP server, no binary
 * needed): connections reset, every request redirected, answers slow. The runner records what
 * happened to each request, and the verdict read back from its file names it; none is ever "as
 * configured". Bounded: each run is the plan's 4.3 s plus a 20 s timeout, the three at once. The
 * timeout is not what is tested (no answer here is slower than 300 ms): it is long enough that a
 * machine busy with other jobs, where the server and the runner share this one process, does not
 * turn a late 302 into a timed-out request (it did at 5 s).
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, readResult, resultText } from '../../src/probe';
import { runPlan } from '../../src/probe/cli/runner';
import { planFor } from './proof';

const LINK = '?v=1&l=nginx:rate=10r/s,burst=5,nodelay,limit_req_status=429';
const SLOW_MS = 300;

let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/reset') {
      req.socket.destroy();
    } else if (req.url === '/redirect') {
      res.writeHead(302, { location: 'http://127.0.0.1/login' }).end();
    } else {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'), SLOW_MS);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs the plan against `path` and judges the result read back from its file. */
async function probePath(path: string) {
  const plan = planFor(LINK, { kind: 'header', name: 'X-Forwarded-For' });
  const sent = await runPlan({
    url: new URL(`${base}${path}`),
    plan,
    link: LINK,
    timeoutMs: 20_000,
    align: false,
    version: 'test',
  });
  const read = readResult(resultText(sent), 'run.json');
  if (!read.ok) throw new Error(read.message);
  return { result: read.opened.result, verdict: judge(read.opened.plan, read.opened.result) };
}

describe('the runner against a server that misbehaves', { timeout: 60_000 }, () => {
  it('resets, redirects and slow answers are recorded and named', async () => {
    const [reset, redirect, slow] = await Promise.all([
      probePath('/reset'),
      probePath('/redirect'),
      probePath('/slow'),
    ]);

    // Every request reset; any other fate is listed whole (it once failed at load ~23 unseen).
    expect(
      reset.result.requests
        .filter((r) => !(r.status === null && r.error === 'reset'))
        .map((r) => ({ i: r.i, status: r.status, error: r.error, detail: r.detail })),
    ).toEqual([]);
    expect(reset.verdict.overall).toBe('inconclusive');
    expect(reset.verdict.headline).toMatch(
      /^No verdict: 71 requests got no answer \(71 had the connection reset by the server/,
    );

    expect(
      redirect.result.requests.filter((r) => r.status !== 302).map((r) => r.error ?? r.status),
    ).toEqual([]);
    expect(redirect.verdict.overall).toBe('inconclusive');
    expect(redirect.verdict.headline).toContain(
      'every request was redirected (302 to "http://127.0.0.1/login")',
    );

    // On a loaded machine a few may time out; every answer is the server's 200.
    const answered = slow.result.requests.filter((r) => r.status !== null);
    expect(answered.length).toBeGreaterThan(60);
    expect(answered.every((r) => r.status === 200)).toBe(true);
    expect(slow.verdict.overall).not.toBe('as-configured');
    expect(
      slow.verdict.findings.some((f) => f.check === 'timing' && f.status === 'inconclusive'),
    ).toBe(true);
  });
});
