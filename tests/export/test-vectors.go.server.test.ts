/**
 * The generated Go test file runs: `go test` on it, with an adapter wrapping the real
 * golang.org/x/time/rate (x/time 0.3.0 from Debian, GOPATH mode: GO111MODULE=off
 * GOPATH=/usr/share/gocode, TOOLCHAIN.md) for a token-bucket limiter. It must pass; with a wrong
 * adapter (burst one smaller) it must fail and name the vector. Skips loudly without Go.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { VECTOR_FILE, testVectorFiles, testVectors } from '../../src/export/test-vectors';
import { defaultScenario, simulate } from '../../src/sim';
import { findBinary } from './servers';

const run = promisify(execFile);
const GO = findBinary('go');
const GOPATH = '/usr/share/gocode';
const X_TIME = path.join(GOPATH, 'src/golang.org/x/time/rate/rate.go');
const missing =
  GO === undefined ? 'go (Debian golang-go)' : !existsSync(X_TIME) ? X_TIME : undefined;
if (missing !== undefined) {
  const line = '!'.repeat(78);
  console.warn(
    `\n${line}\n!! SKIPPED: the generated Go test file (tests/export/test-vectors.go.server.test.ts)\n!! ${missing} is not installed (.ci/run installs golang-go and golang-golang-x-time-dev).\n${line}\n`,
  );
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** 4 tokens, 10 a second: one every 100 ms, continuous, no waiting (x/time/rate's Allow). */
const BUCKET: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 4,
  tokensPerFill: 10,
  fillIntervalMs: 1000,
  refill: 'continuous',
};

/**
 * Arrivals 37 ms past each 100 ms (so no request lands on the instant a token arrives, where
 * x/time/rate's float64 arithmetic could round either way), several at once, two keys.
 */
function vectors() {
  const timesMs: number[] = [];
  for (let k = 0; k < 240; k += 1) timesMs.push(37 + 100 * Math.floor((k * 3) / 10));
  const scenario = {
    ...defaultScenario(),
    clients: { ...defaultScenario().clients, count: 2, keying: 'per-client' as const },
    sources: [{ kind: 'manual' as const, timesMs }],
  };
  return testVectors(simulate([{ name: 'bucket', config: BUCKET }], scenario, 20_000), 0, 'envoy');
}

function adapter(burst: number): string {
  return `package ratelimit

import (
	"time"

	"golang.org/x/time/rate"
)

type xTimeAdapter struct{ byKey map[string]*rate.Limiter }

func NewVectorAdapter() VectorAdapter { return &xTimeAdapter{byKey: map[string]*rate.Limiter{}} }

func (a *xTimeAdapter) Decide(nowMs int64, key string) VectorDecision {
	lim, ok := a.byKey[key]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(10), ${burst})
		a.byKey[key] = lim
	}
	now := time.Unix(1700000000, 0).Add(time.Duration(nowMs) * time.Millisecond)
	if lim.AllowN(now, 1) {
		return VectorDecision{Outcome: "admit"}
	}
	return VectorDecision{Outcome: "reject"}
}
`;
}

async function goTest(dir: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(GO as string, ['test', '-count=1', '.'], {
      cwd: dir,
      timeout: 180_000,
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH,
        GOCACHE: path.join(tmpdir(), 'rll-go-cache'),
        GOFLAGS: '',
      },
    });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

describe.skipIf(missing !== undefined)('the generated Go test file', () => {
  it('passes with an adapter wrapping golang.org/x/time/rate, fails with a wrong one', async () => {
    const file = vectors();
    const outcomes = new Set(file.vectors.map((v) => v.outcome));
    expect(outcomes).toEqual(new Set(['admit', 'reject']));
    const files = testVectorFiles(file);
    const dir = mkdtempSync(path.join(tmpdir(), 'rll-go-vectors-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'testdata'));
    writeFileSync(path.join(dir, 'testdata', VECTOR_FILE), files[`go/testdata/${VECTOR_FILE}`]!);
    writeFileSync(
      path.join(dir, 'ratelimit_vectors_test.go'),
      files['go/ratelimit_vectors_test.go']!,
    );

    writeFileSync(path.join(dir, 'ratelimit_adapter_test.go'), adapter(4));
    const pass = await goTest(dir);
    expect(pass.out).toMatch(/^ok\s/m);
    expect(pass.code).toBe(0);

    writeFileSync(path.join(dir, 'ratelimit_adapter_test.go'), adapter(3));
    const fail = await goTest(dir);
    expect(fail.code).not.toBe(0);
    expect(fail.out).toMatch(
      /vector \d+ \(t=\d+ ms, key client-\d\): outcome reject, expected admit/,
    );

    // The adapter as downloaded panics until filled in.
    writeFileSync(
      path.join(dir, 'ratelimit_adapter_test.go'),
      files['go/ratelimit_adapter_test.go']!,
    );
    const empty = await goTest(dir);
    expect(empty.code).not.toBe(0);
    expect(empty.out).toMatch(/wrap your limiter in NewVectorAdapter/);
  }, 400_000);
});
