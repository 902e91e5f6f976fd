/**
 * Probe benchmark: the runner's send-time error on loopback at 500 requests/s, how long after its
 * plan's length a 30 s run ends, and how long the verdict and diagnosis of a ~500-request result
 * take. Figures only, each beside its target and the load average.
 *
 * The gateway is a plain Node HTTP server in a child process on 127.0.0.1 (answers at once), so
 * its work does not share the runner's event loop. The diagnosis is timed in Node, then in the
 * page as it runs it (probeBrowser.ts: the built page in the pinned Chromium, its worker, and the
 * longest main-thread task meanwhile; needs `npm run build` first).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Plan } from '../../src/probe';
import { judge, quantile } from '../../src/probe';
import { runPlan } from '../../src/probe/cli/runner';
import { NGINX, linkOf, planOf, twoReplicaResult } from '../probe/fake';
import { runProbeBrowserBench } from './probeBrowser';

const SERVER = `
const http = require('node:http');
const s = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
s.keepAliveTimeout = 60000;
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));
`;

const load = () => `load average ${loadavg()[0]?.toFixed(1)}`;

/** A loopback server in a child process; resolves with its port and a stop function. */
async function startServer(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error('the bench server did not start in 10 s')),
      10_000,
    );
    child.stdout.once('data', (b: Buffer) => {
      clearTimeout(timer);
      resolve(Number(b.toString().trim()));
    });
  });
  return { port, stop: () => child.kill() };
}

/** `plan` with its requests replaced by `count` evenly spaced ones, `stepMs` apart. */
function evenPlan(plan: Plan, count: number, stepMs: number): Plan {
  const template = plan.requests[0] as Plan['requests'][number];
  const requests = Array.from({ length: count }, (_, i) => ({
    ...template,
    i,
    atMs: i * stepMs,
    group: i,
  }));
  return { ...plan, requests, durationMs: (count - 1) * stepMs };
}

export async function runProbeBench(): Promise<void> {
  console.log('Probe (runner on loopback, verdict and diagnosis)');
  const link = linkOf(NGINX);
  const base = planOf(link);
  const server = await startServer();
  try {
    const url = new URL(`http://127.0.0.1:${server.port}/`);
    // 500 requests/s for 4 s (2,000 requests, one every 2 ms).
    const fast = evenPlan(base, 2000, 2);
    const sent = await runPlan({ url, plan: fast, link, align: false, timeoutMs: 5000 });
    const errors = sent.requests
      .map((r) => r.sentMs - (fast.requests[r.i]?.atMs ?? 0))
      .sort((a, b) => a - b);
    const answered = sent.requests.filter((r) => r.status === 200).length;
    console.log(
      `  send-time error at 500 requests/s: p50 ${quantile(errors, 0.5).toFixed(2)} ms, p95 ${quantile(errors, 0.95).toFixed(2)} ms, max ${(errors[errors.length - 1] ?? 0).toFixed(1)} ms (target p95 ≤ 2 ms); ${answered} of ${fast.requests.length} answered 200; ${load()}`,
    );

    // A 30 s plan: 20 requests/s for 30 s.
    const long = evenPlan(base, 601, 50);
    const t0 = performance.now();
    await runPlan({ url, plan: long, link, align: false, timeoutMs: 5000 });
    const took = (performance.now() - t0) / 1000;
    console.log(
      `  a plan of ${(long.durationMs / 1000).toFixed(0)} s ended after ${took.toFixed(2)} s (target ≤ 31 s); ${load()}`,
    );
  } finally {
    server.stop();
  }

  // The verdict and diagnosis of a ~500-request result (the search replays every candidate).
  const { plan, result } = twoReplicaResult();
  const times: number[] = [];
  let summary = '';
  for (let k = 0; k < 3; k += 1) {
    const t = performance.now();
    const v = judge(plan, result);
    times.push(performance.now() - t);
    summary = `${v.diagnosis.searched} configurations searched: ${v.diagnosis.summary}`;
  }
  times.sort((a, b) => a - b);
  console.log(
    `  verdict and diagnosis of a ${plan.requests.length}-request result: median ${(times[1] as number).toFixed(0)} ms of 3 (target ≤ 2,000 ms); ${load()}\n    (${summary})`,
  );
  await runProbeBrowserBench();
}
