/**
 * Core benchmark: decisions per second for each algorithm with 1 key and with 10,000 keys, next to
 * two peers doing the same work (rate-limiter-flexible's RateLimiterMemory, limiter's TokenBucket)
 * and a plain inline token-bucket loop as the floor. Prints figures and ratios; asserts nothing
 * (targets are in the README and the closing note, not in a timed test).
 */
import { fork } from 'node:child_process';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { TokenBucket } from 'limiter';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Limiter } from '../../src/core';

/** 100 requests per second, in each algorithm's own words. */
export const BENCH_CONFIGS: readonly AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 100, windowMs: 1000 },
  { kind: 'sliding-log', limit: 100, windowMs: 1000 },
  { kind: 'sliding-window-counter', limit: 100, windowMs: 1000 },
  { kind: 'token-bucket', maxTokens: 100, tokensPerFill: 100, fillIntervalMs: 1000 },
  { kind: 'leaky-bucket', rate: 100, rateUnit: 'r/s', burst: 50, delay: 'nodelay' },
  { kind: 'gcra', count: 100, periodMs: 1000, burst: 50 },
];

const TARGET_1KEY: Record<string, number> = {
  'fixed-window': 25e6,
  'sliding-log': 10e6,
  'sliding-window-counter': 10e6,
  'token-bucket': 25e6,
  'leaky-bucket': 25e6,
  gcra: 25e6,
};

const KEYS = Array.from({ length: 10_000 }, (_, i) => `client-${i}`);

/** Best of `rounds` timed runs of `fn(n)`, in operations per second. */
function opsPerSec(
  n: number,
  rounds: number,
  fn: (n: number) => number,
): { ops: number; sink: number } {
  let best = 0;
  let sink = 0;
  for (let r = 0; r < rounds; r += 1) {
    const start = performance.now();
    sink += fn(n);
    const seconds = (performance.now() - start) / 1000;
    best = Math.max(best, n / seconds);
  }
  return { ops: best, sink };
}

/** One key, 4 requests per virtual ms (4,000 r/s offered against 100 r/s: mostly rejects). */
function oneKey(limiter: Limiter, n: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i += 1) {
    if (limiter.decide(i >> 2).outcome !== 'reject') admitted += 1;
  }
  return admitted;
}

/** 10,000 keys in turn, 10 requests per virtual ms (1 r/s per key: mostly admits). */
function manyKeys(limiter: Limiter, n: number): number {
  let admitted = 0;
  for (let i = 0; i < n; i += 1) {
    if (limiter.decide((i / 10) | 0, KEYS[i % 10_000]).outcome !== 'reject') admitted += 1;
  }
  return admitted;
}

/** The floor: an inline continuous token bucket, one key, no API around it. */
function inlineFloor(n: number): number {
  let tokens = 100;
  let last = 0;
  let admitted = 0;
  for (let i = 0; i < n; i += 1) {
    const t = i >> 2;
    tokens = Math.min(100, tokens + (t - last) * 0.1);
    last = t;
    if (tokens >= 1) {
      tokens -= 1;
      admitted += 1;
    }
  }
  return admitted;
}

async function rlfOpsPerSec(n: number, keys: readonly string[]): Promise<number> {
  const limiter = new RateLimiterMemory({ points: 100, duration: 1 });
  const start = performance.now();
  for (let i = 0; i < n; i += 1) {
    try {
      await limiter.consume(keys[i % keys.length] as string);
    } catch {
      // a RateLimiterRes rejection: this request was limited
    }
  }
  return n / ((performance.now() - start) / 1000);
}

function limiterOpsPerSec(n: number, keys: readonly string[]): number {
  const buckets = new Map<string, TokenBucket>();
  let admitted = 0;
  const start = performance.now();
  for (let i = 0; i < n; i += 1) {
    const key = keys[i % keys.length] as string;
    let bucket = buckets.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket({ bucketSize: 100, tokensPerInterval: 100, interval: 'second' });
      buckets.set(key, bucket);
    }
    if (bucket.tryRemoveTokens(1)) admitted += 1;
  }
  const ops = n / ((performance.now() - start) / 1000);
  return admitted >= 0 ? ops : 0;
}

function fmt(ops: number): string {
  return ops >= 1e6 ? `${(ops / 1e6).toFixed(1)} M/s` : `${(ops / 1e3).toFixed(0)} k/s`;
}

function pad(s: string, n: number): string {
  return s.padEnd(n);
}

/** Sliding log memory: stored entries after short and long runs, with and without logRejected. */
function slidingLogMemory(): void {
  console.log('\nSliding log memory (limit 100 / 1 s, offered 1,000 r/s, one key):');
  for (const logRejected of [false, true]) {
    for (const seconds of [10, 1000]) {
      const limiter = createLimiter({
        kind: 'sliding-log',
        limit: 100,
        windowMs: 1000,
        logRejected,
      });
      for (let t = 0; t < seconds * 1000; t += 1) limiter.decide(t);
      const size = limiter.stateSize(seconds * 1000 - 1);
      console.log(
        `  logRejected=${String(logRejected).padEnd(5)} after ${String(seconds * 1000).padStart(7)} requests: ` +
          `${size.entries} entries, ${size.bytes} bytes`,
      );
    }
  }
}

/** Runs one measurement in a child process, so each algorithm is timed with a JIT of its own. */
function measureInChild(job: Job): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = fork(process.argv[1] as string, [], {
      env: { ...process.env, BENCH_JOB: JSON.stringify(job) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => resolve(Number(m)));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0)
        reject(new Error(`benchmark child for ${JSON.stringify(job)} exited with ${code}`));
    });
  });
}

interface Job {
  what: 'one-key' | 'many-keys' | 'floor' | 'limiter-1' | 'limiter-10k' | 'rlf-1' | 'rlf-10k';
  config?: AlgorithmConfig;
}

const N = 5_000_000;
const ROUNDS = 5;
const PEER_N = 300_000;

/** The child side: performs `job` and sends ops/s to the parent. Returns false when not a child. */
export async function runBenchChild(): Promise<boolean> {
  const raw = process.env.BENCH_JOB;
  if (raw === undefined || process.send === undefined) return false;
  const job = JSON.parse(raw) as Job;
  let ops: number;
  switch (job.what) {
    case 'one-key':
      ops = opsPerSec(N, ROUNDS, (n) =>
        oneKey(createLimiter(job.config as AlgorithmConfig), n),
      ).ops;
      break;
    case 'many-keys':
      ops = opsPerSec(N, ROUNDS, (n) =>
        manyKeys(createLimiter(job.config as AlgorithmConfig), n),
      ).ops;
      break;
    case 'floor':
      ops = opsPerSec(N, ROUNDS, inlineFloor).ops;
      break;
    case 'limiter-1':
      ops = Math.max(...[0, 1, 2].map(() => limiterOpsPerSec(PEER_N * 5, ['default'])));
      break;
    case 'limiter-10k':
      ops = Math.max(...[0, 1, 2].map(() => limiterOpsPerSec(PEER_N * 5, KEYS)));
      break;
    case 'rlf-1':
      ops = await rlfOpsPerSec(PEER_N, ['default']);
      break;
    case 'rlf-10k':
      ops = await rlfOpsPerSec(PEER_N, KEYS);
      break;
  }
  process.send(ops);
  return true;
}

export async function runCoreBench(): Promise<void> {
  console.log(
    `Core decisions per second: best of ${ROUNDS} runs of ${N.toLocaleString('en-US')} decisions, ` +
      'each algorithm in a process of its own\n',
  );
  const floor = await measureInChild({ what: 'floor' });
  const rlf1 = await measureInChild({ what: 'rlf-1' });
  const rlf10k = await measureInChild({ what: 'rlf-10k' });
  const lim1 = await measureInChild({ what: 'limiter-1' });
  const lim10k = await measureInChild({ what: 'limiter-10k' });

  console.log(
    `${pad('algorithm', 24)}${pad('1 key', 12)}${pad('target', 10)}${pad('10k keys', 12)}` +
      `${pad('÷rlf(1)', 10)}${pad('÷limiter(1)', 13)}${pad('÷floor', 8)}${pad('÷rlf(10k)', 11)}÷limiter(10k)`,
  );
  const misses: string[] = [];
  for (const config of BENCH_CONFIGS) {
    const one = await measureInChild({ what: 'one-key', config });
    const many = await measureInChild({ what: 'many-keys', config });
    const target = TARGET_1KEY[config.kind] ?? 0;
    const r = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
    console.log(
      `${pad(config.kind, 24)}${pad(fmt(one), 12)}${pad(fmt(target), 10)}${pad(fmt(many), 12)}` +
        `${pad(r(one, rlf1), 10)}${pad(r(one, lim1), 13)}${pad(r(one, floor), 8)}${pad(r(many, rlf10k), 11)}${r(many, lim10k)}`,
    );
    if (one < target) misses.push(`${config.kind}: ${fmt(one)} < ${fmt(target)} (1 key)`);
    if (one < 10 * rlf1) misses.push(`${config.kind}: < 10× rate-limiter-flexible (1 key)`);
    if (one < 2 * lim1) misses.push(`${config.kind}: < 2× limiter (1 key)`);
  }
  console.log(
    `\nPeers: rate-limiter-flexible RateLimiterMemory ${fmt(rlf1)} (1 key), ${fmt(rlf10k)} (10k keys); ` +
      `limiter TokenBucket ${fmt(lim1)} (1 key), ${fmt(lim10k)} (10k keys, a Map of buckets); ` +
      `inline token-bucket floor ${fmt(floor)}.`,
  );
  slidingLogMemory();
  console.log(
    misses.length === 0 ? '\nAll core targets met.' : `\nMissed targets:\n  ${misses.join('\n  ')}`,
  );
}
