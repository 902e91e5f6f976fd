/**
 * Test vectors and the generated test files. The files are written to a
 * temporary folder and run for real: the Vitest file by a second Vitest with an adapter wired to
 * the project's own core limiter (it must pass), then with an adapter that is wrong (it must fail);
 * the Jest file (CommonJS, Jest's globals) by the real Jest (a pinned devDependency), with a
 * CommonJS adapter on the core bundled by esbuild: it must pass, fail with a wrong adapter and
 * refuse the unfilled one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { createLimiter } from '../../src/core';
import {
  MAX_VECTORS,
  VECTOR_FILE,
  testVectorFiles,
  testVectors,
  testVectorsJson,
} from '../../src/export/test-vectors';
import type { TestVectorFile } from '../../src/export/test-vectors';
import { defaultScenario, simulate } from '../../src/sim';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const NGINX: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 5,
  rateUnit: 'r/s',
  burst: 3,
  delay: 1,
};

/** Three clients, each its own key, bursts and a steady stream: admits, delays and rejects. */
export function vectorsOf(config: AlgorithmConfig, system: string, max?: number): TestVectorFile {
  const scenario = {
    ...defaultScenario(),
    clients: { ...defaultScenario().clients, count: 3, keying: 'per-client' as const },
    sources: [
      { kind: 'burst' as const, atMs: 500, count: 18 },
      { kind: 'poisson' as const, ratePerSec: 9, startMs: 1000, endMs: 6000 },
    ],
  };
  const result = simulate([{ name: 'lane', config }], scenario, 6000);
  return testVectors(result, 0, system, max);
}

/** A temporary folder that resolves the project's node_modules (for vitest itself). */
function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rll-vectors-'));
  dirs.push(dir);
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  // Its own (empty) config, so the project's setup files and include patterns stay out.
  writeFileSync(path.join(dir, 'vitest.config.mjs'), 'export default {};\n');
  return dir;
}

async function vitestIn(dir: string, extra: string[] = []): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(
      path.join(ROOT, 'node_modules/.bin/vitest'),
      ['run', '--root', dir, ...extra],
      { cwd: dir, timeout: 120_000, env: { ...process.env, CI: '1', NO_COLOR: '1' } },
    );
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

/**
 * Runs the real Jest (node_modules/jest, pinned in package.json) on `dir` alone: no config file of
 * the project, no transform (the generated file is plain CommonJS), no cache or watchman.
 */
async function jestIn(dir: string): Promise<{ code: number; out: string }> {
  const config = JSON.stringify({ rootDir: dir, transform: {}, testEnvironment: 'node' });
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        path.join(ROOT, 'node_modules/jest/bin/jest.js'),
        '--config',
        config,
        '--ci',
        '--no-cache',
        '--no-watchman',
      ],
      {
        cwd: dir,
        timeout: 180_000,
        env: { ...process.env, CI: '1', NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    );
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

describe('test vectors', () => {
  it('are the core limiter’s decisions on the run’s arrivals and keys, in order, and say where they stop', () => {
    const file = vectorsOf(NGINX, 'nginx');
    expect(file.format).toBe('rate-limit-lab/test-vectors');
    expect(file.limiter.config).toEqual(NGINX);
    expect(new Set(file.vectors.map((v) => v.key))).toEqual(
      new Set(['client-1', 'client-2', 'client-3']),
    );
    const outcomes = new Set(file.vectors.map((v) => v.outcome));
    expect(outcomes).toEqual(new Set(['admit', 'delay', 'reject']));
    // Replayed here: the same answers.
    const again = createLimiter(NGINX);
    for (const v of file.vectors) {
      const d = again.decide(v.t, v.key);
      expect([d.outcome, d.delayMs, d.retryAfterMs, d.remaining]).toEqual([
        v.outcome,
        v.delayMs,
        v.retryAfterMs,
        v.remaining,
      ]);
    }
    for (let i = 1; i < file.vectors.length; i += 1)
      expect(file.vectors[i]!.t).toBeGreaterThanOrEqual(file.vectors[i - 1]!.t);
    expect(JSON.parse(testVectorsJson(file))).toEqual(file);
    const cut = vectorsOf(NGINX, 'nginx', 10);
    expect(cut.vectors).toHaveLength(10);
    expect(cut.notes.at(-1)).toMatch(/the file holds the first 10\.$/);
    expect(MAX_VECTORS).toBe(10_000);
  });

  it('the generated Vitest file passes against the project’s own limiter and fails against a wrong one', async () => {
    const file = vectorsOf(NGINX, 'nginx');
    const files = testVectorFiles(file);
    const core = path.join(ROOT, 'src/core/index.ts');
    const adapter = (config: AlgorithmConfig) =>
      `import { createLimiter } from ${JSON.stringify(core)};\n` +
      `export function makeLimiter() {\n  const l = createLimiter(${JSON.stringify(config)});\n` +
      `  return { decide: (t: number, key: string) => l.decide(t, key) };\n}\n`;

    const good = tempDir();
    writeFileSync(path.join(good, VECTOR_FILE), files[`vitest/${VECTOR_FILE}`]!);
    writeFileSync(
      path.join(good, 'rate-limit.vectors.test.ts'),
      files['vitest/rate-limit.vectors.test.ts']!,
    );
    writeFileSync(path.join(good, 'rate-limit-adapter.ts'), adapter(NGINX));
    const pass = await vitestIn(good);
    expect(pass.out).toMatch(/1 passed/);
    expect(pass.code).toBe(0);

    // burst 2 instead of 3: some requests are decided differently and the test says which.
    writeFileSync(path.join(good, 'rate-limit-adapter.ts'), adapter({ ...NGINX, burst: 2 }));
    const fail = await vitestIn(good);
    expect(fail.code).not.toBe(0);
    expect(fail.out).toMatch(/vector \d+ \(t=\d+ ms, key client-\d\): outcome reject, expected/);

    // The adapter as downloaded refuses to run until filled in.
    writeFileSync(path.join(good, 'rate-limit-adapter.ts'), files['vitest/rate-limit-adapter.ts']!);
    const empty = await vitestIn(good);
    expect(empty.code).not.toBe(0);
    expect(empty.out).toMatch(/wrap your limiter in makeLimiter/);
  }, 240_000);

  it('the generated Jest file (CommonJS, Jest globals) runs under the real Jest: passes, fails when wrong', async () => {
    const file = vectorsOf(NGINX, 'nginx');
    const files = testVectorFiles(file);
    const dir = mkdtempSync(path.join(tmpdir(), 'rll-jest-vectors-'));
    dirs.push(dir);
    // The three files exactly as downloaded (jest/), the adapter filled in below.
    writeFileSync(path.join(dir, VECTOR_FILE), files[`jest/${VECTOR_FILE}`]!);
    writeFileSync(
      path.join(dir, 'rate-limit.vectors.test.js'),
      files['jest/rate-limit.vectors.test.js']!,
    );
    // The core, bundled to CommonJS by esbuild (installed with vite).
    await run(
      path.join(ROOT, 'node_modules/.bin/esbuild'),
      [
        path.join(ROOT, 'src/core/index.ts'),
        '--bundle',
        '--format=cjs',
        '--platform=node',
        `--outfile=${path.join(dir, 'core.cjs')}`,
      ],
      { cwd: ROOT },
    );
    const adapter = (config: AlgorithmConfig) =>
      `const { createLimiter } = require('./core.cjs');\n` +
      `module.exports = { makeLimiter: () => createLimiter(${JSON.stringify(config)}) };\n`;

    writeFileSync(path.join(dir, 'rate-limit-adapter.js'), adapter(NGINX));
    const pass = await jestIn(dir);
    expect(pass.out).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(pass.code).toBe(0);

    // burst 2 instead of 3: Jest fails and names the vectors that differ.
    writeFileSync(path.join(dir, 'rate-limit-adapter.js'), adapter({ ...NGINX, burst: 2 }));
    const fail = await jestIn(dir);
    expect(fail.code).not.toBe(0);
    expect(fail.out).toMatch(/Tests:\s+1 failed, 1 total/);
    expect(fail.out).toMatch(/vector \d+ \(t=\d+ ms, key client-\d\): outcome reject, expected/);

    // The adapter as downloaded refuses to run until filled in.
    writeFileSync(path.join(dir, 'rate-limit-adapter.js'), files['jest/rate-limit-adapter.js']!);
    const empty = await jestIn(dir);
    expect(empty.code).not.toBe(0);
    expect(empty.out).toMatch(/wrap your limiter in makeLimiter/);
  }, 240_000);
});
