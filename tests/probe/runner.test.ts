/**
 * The runner against servers that misbehave, on loopback (a plain Node HTTP server, no binary
 * needed): connections reset, every request redirected, answers slow. The runner records what
 * happened to each request, and the verdict read back from its file names it; none is ever "as
 * configured". Bounded: each run is the plan's 4.3 s plus a 20 s timeout, the three at once.
 *
 * The server and the three runs share this process's event loop, and Node runs the timers that are
 * due before it polls for I/O: while the loop is blocked past a request's timeout, the answer (or
 * reset) waiting for it loses to the timeout, and the request is recorded as timed out (shown
 * below). Reading and judging a run's result is synchronous work (about 0.2 s of CPU, up to 3.9 s
 * of wall time seen at load 16), so the three runs are judged only once all three have sent and
 * heard everything. Judged as each ended, the first run's judging blocked the loop while the
 * others still had requests out, which a loaded machine can stretch past their timeout: a late
 * 302 became a timeout that way with a 5 s timeout, and a reset can the same way.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, readResult, resultText } from '../../src/probe';
import type { ProbeResult } from '../../src/probe';
import { runPlan } from '../../src/probe/cli/runner';
import type { RunOptions } from '../../src/probe/cli/runner';
import { planFor } from './proof';

const LINK = '?v=1&l=nginx:rate=10r/s,burst=5,nodelay,limit_req_status=429';
const SLOW_MS = 300;

/** How long the loop is kept busy after the `busyAfter`-th reset (longer than the timeout). */
const BUSY_MS = 800;
let resets = 0;
let busyAfter = 0;
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/reset') {
      req.socket.destroy();
      resets += 1;
      if (resets === busyAfter) {
        const end = performance.now() + BUSY_MS;
        while (performance.now() < end) {
          // the loop is busy, as while a run is judged
        }
      }
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

const PLAN = planFor(LINK, { kind: 'header', name: 'X-Forwarded-For' });

/** Runs the plan against `path`: the sealed result (nothing else is done meanwhile). */
function probePath(path: string, options: Partial<RunOptions> = {}): Promise<ProbeResult> {
  return runPlan({
    url: new URL(`${base}${path}`),
    plan: PLAN,
    link: LINK,
    timeoutMs: 20_000,
    align: false,
    version: 'test',
    ...options,
  });
}

/** A run's result read back from its file, and judged. */
function judged(sent: ProbeResult) {
  const read = readResult(resultText(sent), 'run.json');
  if (!read.ok) throw new Error(read.message);
  return { result: read.opened.result, verdict: judge(read.opened.plan, read.opened.result) };
}

/** How many requests of a run met each fate (`reset`, `timeout`, …; `null`: answered). */
function fates(sent: ProbeResult): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of sent.requests) out[String(r.error)] = (out[String(r.error)] ?? 0) + 1;
  return out;
}

describe('the runner against a server that misbehaves', { timeout: 60_000 }, () => {
  it('resets, redirects and slow answers are recorded and named', async () => {
    // All three sent and heard before any is judged (see the top of this file).
    const sent = await Promise.all([
      probePath('/reset'),
      probePath('/redirect'),
      probePath('/slow'),
    ]);
    const [reset, redirect, slow] = sent.map(judged) as [
      ReturnType<typeof judged>,
      ReturnType<typeof judged>,
      ReturnType<typeof judged>,
    ];

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

  it('a loop blocked past the timeout while a reset is due records it as timed out', async () => {
    // The server resets the 10th of 20 requests and then keeps the loop busy (as judging a run
    // does) for longer than the timeout: the client's timeout, due first, fires before its reset
    // is read. Without the block every request is reset. Why the runs above are judged only at
    // the end.
    const first20 = { ...PLAN, requests: PLAN.requests.slice(0, 20) };
    expect(fates(await probePath('/reset', { plan: first20 }))).toEqual({ reset: 20 });
    busyAfter = resets + 10;
    // The 10th at least (others sent before the loop was free again may be taken with it).
    const f = fates(await probePath('/reset', { plan: first20, timeoutMs: 500 }));
    expect(f.timeout).toBeGreaterThanOrEqual(1);
    expect((f.timeout ?? 0) + (f.reset ?? 0)).toBe(20);
  });
});
