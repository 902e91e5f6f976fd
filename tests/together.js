/**
 * Runs lanes of npm scripts at the same time (`node tests/together.js lint,typecheck test:server`):
 * each argument is a lane, its comma-separated scripts run one after another (every one of them,
 * even after one fails, so a run reports every failure), and the lanes run side by side. Each
 * script's output is held and printed whole when it ends; the run fails when any script fails.
 * `npm test` uses two lanes on a 2-core machine: ESLint, then `tsc`, then prettier (each one
 * process keeping one core busy) beside the real-server proofs (one file at a time, much of it
 * waiting on nginx, Redis, haproxy, PostgreSQL and Go, so they leave that core's neighbour mostly
 * free: their timed requests are never beside a job that takes both cores, like the build). The
 * proofs take about as long as the three checks one after the other, so neither lane waits long
 * for the other.
 */
import { spawn } from 'node:child_process';

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

/** Runs a lane's scripts one after another; resolves true when every one passed. */
async function lane(names) {
  let ok = true;
  for (const name of names) ok = (await run(name)) && ok;
  return ok;
}

const lanes = process.argv.slice(2).map((arg) => arg.split(',').filter((n) => n !== ''));
if (lanes.length === 0 || lanes.some((l) => l.length === 0)) {
  process.stderr.write('usage: node tests/together.js script[,script…] [script[,script…] …]\n');
  process.exit(2);
}
const results = await Promise.all(lanes.map(lane));
process.exit(results.every(Boolean) ? 0 : 1);
