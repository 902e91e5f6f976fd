/**
 * Runs the npm scripts named on the command line at the same time (`node tests/together.js lint
 * typecheck`), each with its own output held and printed whole when it ends, and fails when any
 * fails. `npm test` pairs its jobs this way on a 2-core machine: ESLint (one process keeping one
 * core busy) beside the real-server proofs (one file at a time, much of it waiting on nginx, Redis,
 * haproxy, PostgreSQL and Go, so they leave that core's neighbour mostly free: their timed
 * requests are never beside a job that takes both cores, like the build), then `tsc` beside
 * prettier.
 */
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const runs = names.map(
  (name) =>
    new Promise((resolve) => {
      const started = process.hrtime.bigint();
      const child = spawn('npm', ['run', name], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => out.push(d));
      child.on('close', (code, signal) => {
        const s = Number(process.hrtime.bigint() - started) / 1e9;
        const ok = code === 0;
        process.stdout.write(
          `\n> ${name}: ${ok ? 'passed' : `FAILED (${signal ?? `exit ${code}`})`} in ${s.toFixed(1)} s\n`,
        );
        process.stdout.write(Buffer.concat(out));
        resolve(ok);
      });
    }),
);
const results = await Promise.all(runs);
process.exit(results.every(Boolean) ? 0 : 1);
