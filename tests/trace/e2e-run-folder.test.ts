import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ATTACK_DIR, RUN_ENV, endRun, runDir, runFile, startRun } from '../e2e/runFolder';

// The browser tests' folders for the files they make (tests/e2e/runFolder.ts), in a folder of this
// test's own: two runs of the browser tests from two checkouts at once, each with its global setup
// and teardown (tests/e2e/setup.ts, teardown.ts).
let root = '';
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'rll-run-folder-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const allRunning = () => true;

describe('the browser tests’ run folders', () => {
  it('give two runs at once folders of their own; one run’s teardown leaves the other’s file', () => {
    const a: Record<string, string | undefined> = {};
    const b: Record<string, string | undefined> = {};
    const dirA = startRun(a, 4101, root, allRunning);
    const dirB = startRun(b, 4102, root, allRunning);
    expect(dirA).not.toBe(dirB);
    // Each worker of a run finds the same folder again from the environment the runner passes on.
    expect(runDir({ [RUN_ENV]: a[RUN_ENV] }, root)).toBe(dirA);
    // Both runs write the streamed log, each in its folder, and the shared kept files stay at the root.
    for (const dir of [dirA, dirB]) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'combined-1.1GB.log'), 'log');
    }
    writeFileSync(join(root, 'bomb-3GB.log.gz'), 'kept');
    // Run B ends first: run A, still reading, keeps its file.
    endRun(b, root);
    expect(existsSync(join(dirA, 'combined-1.1GB.log'))).toBe(true);
    expect(existsSync(dirB)).toBe(false);
    endRun(a, root);
    expect(readdirSync(root)).toEqual(['bomb-3GB.log.gz']);
  });

  it('are named under the shared folder, by the run’s process id', () => {
    expect(runDir({ [RUN_ENV]: '4206' })).toBe(join(ATTACK_DIR, 'run-4206'));
    expect(ATTACK_DIR).toBe(join(tmpdir(), 'rate-limit-lab-attacks'));
  });

  it('left behind by a run that was stopped are removed when a run starts; a running one’s stay', () => {
    // A process that has ended (its id is free), and this one (running).
    const ended = spawnSync('true').pid;
    for (const pid of [ended, process.pid])
      mkdirSync(join(root, `run-${pid}`), { recursive: true });
    mkdirSync(join(root, 'not-a-run'));
    const env: Record<string, string | undefined> = {};
    const dir = startRun(env, 1, root);
    expect(dir).toBe(join(root, 'run-1'));
    expect(env[RUN_ENV]).toBe('1');
    expect(readdirSync(root).sort()).toEqual(['not-a-run', `run-${process.pid}`]);
  });

  it('hold the small files a test writes for itself, two runs each its own copy', () => {
    const a: Record<string, string | undefined> = {};
    const b: Record<string, string | undefined> = {};
    startRun(a, 4101, root, allRunning);
    startRun(b, 4102, root, allRunning);
    const pathA = runFile('small.log', 'a', a, root);
    const pathB = runFile('small.log', 'b', b, root);
    expect(pathA).toBe(join(runDir(a, root), 'small.log'));
    expect(pathB).not.toBe(pathA);
    expect(readFileSync(pathA, 'utf8')).toBe('a');
    expect(readFileSync(pathB, 'utf8')).toBe('b');
    endRun(a, root);
    endRun(b, root);
    expect(readdirSync(root)).toEqual([]);
  });

  it('are where the browser tests write their own files: none straight into the shared folder', () => {
    // The shared folder keeps only the slow, never-changing hostile logs (attacks.ts `made`, which
    // writes under a name of its own and renames); a spec's own file there would be written and
    // read by two runs at once.
    const e2e = join(__dirname, '..', 'e2e');
    const specs = readdirSync(e2e).filter((f) => f.endsWith('.ts') && f !== 'runFolder.ts');
    const straight = specs.filter((f) =>
      /join\(\s*ATTACK_DIR\s*,/.test(readFileSync(join(e2e, f), 'utf8')),
    );
    expect(specs.length).toBeGreaterThan(20);
    expect(straight).toEqual([]);
  });

  it('cannot be found without the run’s name, and say so', () => {
    expect(() => runDir({}, root)).toThrow(
      `${RUN_ENV} is not set: a run's own files have no folder (the browser tests' global setup, tests/e2e/setup.ts, sets it)`,
    );
    expect(() => runDir({ [RUN_ENV]: '../..' }, root)).toThrow(
      `${RUN_ENV} is "../..", not a process id`,
    );
  });
});
