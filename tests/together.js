/**
 * Runs the npm scripts named on the command line two at a time, in the order given: each starts as
 * soon as one of the two slots is free (`node tests/together.js test:server lint typecheck`). Each
 * script's output is held and printed whole when it ends; every script runs even after one fails,
 * so a run reports every failure, and the run fails when any failed.
 *
 * `npm test` starts the real-server proofs (one file at a time, much of it waiting on nginx,
 * Redis, haproxy, PostgreSQL and Go) and ESLint, then `tsc` and prettier as slots free up: on a
 * 2-core machine each of these checks keeps one core busy, so the proofs' timed requests are never
 * beside a job that takes both cores (like the build), and neither core waits while a check is
 * left. On a quiet machine the proofs take longest and the three checks run one after another
 * beside them; on a busy one, where ESLint outlasts the proofs, `tsc` starts in the proofs' slot.
 */
import { spawn } from 'node:child_process';

/** Scripts run at once: one per core of the 2-core machines the tests are sized for. */
const SLOTS = 2;

/** Runs one npm script with its output held; resolves true when it passed. */
function run(name) {
  return new Promise((resolve) => {
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
  });
}

const queue = process.argv.slice(2);
if (queue.length === 0) {
  process.stderr.write('usage: node tests/together.js script [script …]\n');
  process.exit(2);
}

/** One slot: takes the next script from the queue until none is left; true when all passed. */
async function slot() {
  let ok = true;
  for (let name = queue.shift(); name !== undefined; name = queue.shift())
    ok = (await run(name)) && ok;
  return ok;
}

const results = await Promise.all(Array.from({ length: SLOTS }, slot));
process.exit(results.every(Boolean) ? 0 : 1);
