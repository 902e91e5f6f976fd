/**
 * Where a run of the browser tests keeps the files it makes, so that two checkouts running their
 * browser tests at once (each on its own E2E_PORT) never read or delete each other's. Files that
 * take long to write and never change (the hostile access logs) are kept in ATTACK_DIR for every
 * later run: each is written under a name of its writer's own and then renamed, so a reader never
 * sees half of one. A file one run makes for itself and deletes at its end (the 1.1 GB streamed
 * log) lives in the run's own folder, ATTACK_DIR/run-<id>, made by the global setup
 * (tests/e2e/setup.ts) and removed by the global teardown (tests/e2e/teardown.ts). So is a small
 * file a test writes for itself (`runFile`): written straight into ATTACK_DIR, two runs at once
 * would write and read one file.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the made files live (kept between runs: some take seconds to write). */
export const ATTACK_DIR = join(tmpdir(), 'rate-limit-lab-attacks');

/**
 * The environment variable that names the run. The global setup sets it in the test runner's
 * process before the workers start, and the runner passes its environment on to them.
 */
export const RUN_ENV = 'RATE_LIMIT_LAB_E2E_RUN';

type Env = Record<string, string | undefined>;

/** The folder of the run named in `env` (its id: the runner's process id). */
export function runDir(env: Env = process.env, root: string = ATTACK_DIR): string {
  const id = env[RUN_ENV];
  if (id === undefined || !/^[1-9]\d*$/.test(id))
    throw new Error(
      `${RUN_ENV} is ${id === undefined ? 'not set' : `"${id}", not a process id`}: a run's own files have no folder (the browser tests' global setup, tests/e2e/setup.ts, sets it)`,
    );
  return join(root, `run-${id}`);
}

/** Whether process `pid` is running (signal 0 only checks; EPERM: it runs as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Starts a run: names it after `pid` (the test runner's process, unique among the runs of this
 * moment) in `env`, and removes the folders of earlier runs whose process is gone (a run stopped
 * before its teardown leaves its folder behind). Folders of runs still going are left alone.
 * Returns the new run's folder (made when a file is first written to it).
 */
export function startRun(
  env: Env = process.env,
  pid: number = process.pid,
  root: string = ATTACK_DIR,
  isRunning: (pid: number) => boolean = running,
): string {
  let names: string[] = [];
  try {
    names = readdirSync(root);
  } catch {
    // No folder yet: nothing to clean.
  }
  for (const name of names) {
    const m = /^run-(\d+)$/.exec(name);
    if (m !== null && Number(m[1]) !== pid && !isRunning(Number(m[1])))
      rmSync(join(root, name), { recursive: true, force: true });
  }
  env[RUN_ENV] = String(pid);
  return runDir(env, root);
}

/** Ends the run named in `env`: removes its folder and everything in it. */
export function endRun(env: Env = process.env, root: string = ATTACK_DIR): void {
  rmSync(runDir(env, root), { recursive: true, force: true });
}

/**
 * Writes `text` to the file `name` in the folder of the run named in `env` (made if need be) and
 * returns its path: a file a test makes for itself, which no other run sees and the run's teardown
 * removes.
 */
export function runFile(
  name: string,
  text: string,
  env: Env = process.env,
  root: string = ATTACK_DIR,
): string {
  const dir = runDir(env, root);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}
