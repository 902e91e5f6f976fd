/**
 * The generated Go test file runs: `go test` on it, with an adapter wrapping the real
 * golang.org/x/time/rate (x/time 0.3.0 from Debian, GOPATH mode: GO111MODULE=off
 * GOPATH=/usr/share/gocode, TOOLCHAIN.md) for a token-bucket limiter that waits up to 150 ms
 * (Traefik's Reserve pattern). The adapter answers every field — outcome, delayMs from
 * `Reservation.DelayFrom` (the fake-clock form of `Delay`), retryAfterMs, remaining from
 * `TokensAt` — and the file must pass comparing all of them; an adapter wrong in any one field must
 * fail and name the vector and field. Skips loudly without Go.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { VECTOR_FILE, testVectorFiles, testVectors } from '../../src/export/test-vectors';
import { defaultScenario, simulate } from '../../src/sim';
import { GO, goEnv, goMissing } from './goRate';
import { proofCount } from '../systems/proofCounts';

const run = promisify(execFile);
const missing = goMissing(
  'the generated Go test file',
  'tests/export/test-vectors.go.server.test.ts',
);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** 4 tokens, 10 a second: one every 100 ms, continuous; a request waits up to 150 ms. */
const BUCKET: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 4,
  tokensPerFill: 10,
  fillIntervalMs: 1000,
  refill: 'continuous',
  maxDelayMs: 150,
};

/** Ways to get one field wrong (each must make the generated test fail on that field). */
type Wrong = 'none' | 'burst' | 'delay-seconds' | 'retry-full-wait' | 'remaining-ceil';

/**
 * Arrivals 37 or 66 ms past each 100 ms (so no request lands on the instant a token arrives, where
 * x/time/rate's float64 arithmetic could round either way, and the tokens left are fractions),
 * several at once, two keys.
 */
function vectors() {
  const timesMs: number[] = [];
  for (let k = 0; k < 240; k += 1) timesMs.push(37 + 100 * Math.floor((k * 3) / 10) + 29 * (k % 2));
  timesMs.sort((a, b) => a - b);
  const scenario = {
    ...defaultScenario(),
    clients: { ...defaultScenario().clients, count: 2, keying: 'per-client' as const },
    sources: [{ kind: 'manual' as const, timesMs }],
  };
  return testVectors(simulate([{ name: 'bucket', config: BUCKET }], scenario, 20_000), 0, 'envoy');
}

function adapter(wrong: Wrong): string {
  const burst = wrong === 'burst' ? 3 : 4;
  // Whole ms, rounded up (the core's delay and retry rule); the wrong adapter reports whole
  // seconds, as a Retry-After header would.
  const delayMs =
    wrong === 'delay-seconds'
      ? '(d.Nanoseconds() + 999999999) / 1e9 * 1000'
      : '(d.Nanoseconds() + 999999) / 1e6';
  const retryNs = wrong === 'retry-full-wait' ? 'd' : 'd - maxDelay';
  const remaining =
    wrong === 'remaining-ceil' ? 'int64(math.Ceil(tokens))' : 'int64(math.Floor(tokens))';
  return `package ratelimit

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

const maxDelay = 150 * time.Millisecond

type xTimeAdapter struct{ byKey map[string]*rate.Limiter }

func NewVectorAdapter() VectorAdapter { return &xTimeAdapter{byKey: map[string]*rate.Limiter{}} }

func ms(v int64) *int64 { return &v }

func (a *xTimeAdapter) Decide(nowMs int64, key string) VectorDecision {
	lim, ok := a.byKey[key]
	if !ok {
		lim = rate.NewLimiter(rate.Limit(10), ${burst})
		a.byKey[key] = lim
	}
	now := time.Unix(1700000000, 0).Add(time.Duration(nowMs) * time.Millisecond)
	r := lim.ReserveN(now, 1)
	d := r.DelayFrom(now)
	if d > maxDelay {
		r.CancelAt(now)
		wait := ${retryNs}
		return VectorDecision{Outcome: "reject", DelayMs: ms(0), RetryAfterMs: ms((wait.Nanoseconds() + 999999) / 1e6), Remaining: ms(0)}
	}
	tokens := lim.TokensAt(now)
	remaining := int64(0)
	if tokens > 0 {
		remaining = ${remaining}
	}
	if d > 0 {
		return VectorDecision{Outcome: "delay", DelayMs: ms(${delayMs}), RetryAfterMs: ms(0), Remaining: ms(remaining)}
	}
	return VectorDecision{Outcome: "admit", DelayMs: ms(0), RetryAfterMs: ms(0), Remaining: ms(remaining)}
}
`;
}

async function goTest(dir: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(GO as string, ['test', '-count=1', '-v', '.'], {
      cwd: dir,
      timeout: 180_000,
      env: goEnv(path.join(tmpdir(), 'rll-go-cache')),
    });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

describe.skipIf(missing !== undefined)('the generated Go test file', () => {
  it('passes with an adapter wrapping golang.org/x/time/rate on every field, fails with one field wrong', async () => {
    const file = vectors();
    const outcomes = new Set(file.vectors.map((v) => v.outcome));
    expect(outcomes).toEqual(new Set(['admit', 'delay', 'reject']));
    const n = file.vectors.length;
    const files = testVectorFiles(file);
    const dir = mkdtempSync(path.join(tmpdir(), 'rll-go-vectors-'));
    dirs.push(dir);
    mkdirSync(path.join(dir, 'testdata'));
    writeFileSync(path.join(dir, 'testdata', VECTOR_FILE), files[`go/testdata/${VECTOR_FILE}`]!);
    writeFileSync(
      path.join(dir, 'ratelimit_vectors_test.go'),
      files['go/ratelimit_vectors_test.go']!,
    );

    writeFileSync(path.join(dir, 'ratelimit_adapter_test.go'), adapter('none'));
    const pass = await goTest(dir);
    expect(pass.out).toMatch(/^ok\s/m);
    expect(pass.code).toBe(0);
    // Every field of every vector was compared, not just the outcome.
    expect(pass.out).toContain(
      `compared: outcome ${n}, delayMs ${n}, retryAfterMs ${n}, remaining ${n}`,
    );
    // The count the README's proof table states.
    expect(n).toBe(proofCount('Go `x/time/rate`', 'vectors'));
    console.info(
      `generated Go test on golang.org/x/time/rate 0.3.0: ${n} vectors × 4 fields compared (${file.vectors.filter((v) => v.outcome === 'delay').length} delayed, ${file.vectors.filter((v) => v.outcome === 'reject').length} rejected), 0 differences`,
    );

    const wrong: Array<[Wrong, RegExp]> = [
      ['burst', /outcome (reject|delay), expected (admit|delay)/],
      ['delay-seconds', /: delayMs \d+, expected \d+/],
      ['retry-full-wait', /: retryAfterMs \d+, expected \d+/],
      ['remaining-ceil', /: remaining \d+, expected \d+/],
    ];
    for (const [how, says] of wrong) {
      writeFileSync(path.join(dir, 'ratelimit_adapter_test.go'), adapter(how));
      const fail = await goTest(dir);
      expect(fail.code, how).not.toBe(0);
      expect(fail.out, how).toMatch(/vector \d+ \(t=\d+ ms, key client-\d\)/);
      expect(fail.out, how).toMatch(says);
    }

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
