/**
 * What the proofs against golang.org/x/time/rate share: Debian's `go` and x/time's source in GOPATH
 * mode (GO111MODULE=off GOPATH=/usr/share/gocode, TOOLCHAIN.md), a loud line when either is missing
 * (`.ci/run` installs golang-go and golang-golang-x-time-dev), and running one Go program with its
 * input on stdin.
 */
import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findBinary } from './servers';

export const GO = findBinary('go');
export const GOPATH = '/usr/share/gocode';
const X_TIME = path.join(GOPATH, 'src/golang.org/x/time/rate/rate.go');

/**
 * What is missing for a Go proof (undefined when nothing is), said loudly on the console for the
 * proof named `what` in `file`.
 */
export function goMissing(what: string, file: string): string | undefined {
  const missing =
    GO === undefined ? 'go (Debian golang-go)' : !existsSync(X_TIME) ? X_TIME : undefined;
  if (missing !== undefined) {
    const line = '!'.repeat(78);
    console.warn(
      `\n${line}\n!! SKIPPED: ${what} (${file})\n!! ${missing} is not installed (.ci/run installs golang-go and golang-golang-x-time-dev).\n${line}\n`,
    );
  }
  return missing;
}

/** The environment `go` runs in: GOPATH mode, its build cache in `cache`. */
export function goEnv(cache: string): NodeJS.ProcessEnv {
  return { ...process.env, GO111MODULE: 'off', GOPATH, GOCACHE: cache, GOFLAGS: '' };
}

/** `go run` of `source` (written to `dir`/prog.go) with `input` on stdin; resolves with stdout. */
export function runGo(dir: string, source: string, input: string): Promise<string> {
  const file = path.join(dir, 'prog.go');
  writeFileSync(file, source);
  return new Promise((resolve, reject) => {
    const child = execFile(
      GO as string,
      ['run', file],
      {
        cwd: dir,
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
        env: goEnv(path.join(dir, 'cache')),
      },
      (error, stdout, stderr) => {
        if (error !== null) reject(new Error(`go run failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
    child.stdin?.end(input);
  });
}
