/**
 * Retained-memory benchmark: extreme scenarios a link can ask for, each simulated in a
 * child process started with --expose-gc, measuring what the result keeps alive after a full GC
 * (V8 heap plus typed-array buffers) against the run's own estimate (`memory`), which the
 * simulator enforces (MAX_RETAINED_BYTES). Then the slowest seek from scratch (a fresh Seeker, 20
 * moments spread over the run). Figures only: nothing here is a timed test.
 */
import { fork } from 'node:child_process';
import type { AlgorithmConfig } from '../../src/core';
import { MAX_RETAINED_BYTES, Seeker, defaultScenario, simulate } from '../../src/sim';
import type { Scenario } from '../../src/sim';

interface Extreme {
  name: string;
  limiters: AlgorithmConfig[];
  scenario: Scenario;
  untilMs: number;
}

const bucket: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 1000,
  tokensPerFill: 50_000,
  fillIntervalMs: 1000,
};
const SIX: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 50_000, windowMs: 1000 },
  { kind: 'sliding-log', limit: 1000, windowMs: 1000, logRejected: true },
  { kind: 'sliding-window-counter', limit: 50_000, windowMs: 1000 },
  bucket,
  { kind: 'leaky-bucket', rate: 50_000, rateUnit: 'r/s', burst: 100, delay: 10 },
  { kind: 'gcra', count: 50_000, periodMs: 1000, burst: 100 },
];
const fast = (endMs: number): Scenario['sources'] => [
  { kind: 'constant', ratePerSec: 100_000, startMs: 0, endMs },
];

export const EXTREMES: Extreme[] = [
  {
    name: '64 instances, shared-racy, rtt=1h, 100k r/s, token bucket',
    limiters: [bucket],
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      deployment: {
        instances: 64,
        balancer: 'round-robin',
        state: 'shared-racy',
        roundTripMs: 3_600_000,
      },
    },
    untilMs: 10_000,
  },
  {
    name: '64 instances, shared-racy, rtt=1h, 100k r/s, six limiters',
    limiters: SIX,
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      deployment: {
        instances: 64,
        balancer: 'random',
        state: 'shared-racy',
        roundTripMs: 3_600_000,
      },
    },
    untilMs: 10_000,
  },
  {
    name: 'racy sliding log (log_rejected, limit 1000), rtt=1h, 100k r/s',
    limiters: [{ kind: 'sliding-log', limit: 1000, windowMs: 60_000, logRejected: true }],
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      deployment: {
        instances: 8,
        balancer: 'round-robin',
        state: 'shared-racy',
        roundTripMs: 3_600_000,
      },
    },
    untilMs: 10_000,
  },
  {
    name: '64 local instances, 10,000 clients, six limiters, 100k r/s',
    limiters: SIX,
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      clients: { count: 10_000, keying: 'per-client', assign: 'random' },
      deployment: { instances: 64, balancer: 'random', state: 'local', roundTripMs: 0 },
    },
    untilMs: 10_000,
  },
  {
    name: 'fleet: 64 replicas, layered, store syncs every 60 s, 10,000 clients, six limiters, 100k r/s',
    limiters: SIX,
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      clients: { count: 10_000, keying: 'per-client', assign: 'random' },
      deployment: {
        instances: 64,
        balancer: 'hash',
        state: 'layered',
        roundTripMs: 0,
        fleet: {
          scale: [{ atMs: 5000, instances: 8 }],
          store: { rttMs: 60_000, jitterMs: 60_000, outages: [], onDown: 'local', syncMs: 60_000 },
        },
      },
    },
    untilMs: 10_000,
  },
  {
    name: 'fleet: 64 replicas, local limits, store down half the run, 10,000 clients, sliding log',
    limiters: [{ kind: 'sliding-log', limit: 1000, windowMs: 60_000, logRejected: true }],
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      clients: { count: 10_000, keying: 'per-client', assign: 'random' },
      deployment: {
        instances: 64,
        balancer: 'random',
        state: 'local',
        roundTripMs: 0,
        fleet: {
          store: { rttMs: 5, jitterMs: 5, outages: [{ fromMs: 0, toMs: 5000 }], onDown: 'local' },
        },
      },
    },
    untilMs: 10_000,
  },
  {
    name: 'retries: backoff, 100 attempts, 100k r/s, one limiter',
    limiters: [{ kind: 'fixed-window', limit: 10, windowMs: 1000 }],
    scenario: {
      ...defaultScenario(),
      sources: fast(10_000),
      retry: {
        onReject: 'backoff',
        maxAttempts: 100,
        backoffBaseMs: 1,
        backoffCapMs: 100,
        turnaroundMs: 0,
      },
    },
    untilMs: 10_000,
  },
];

interface Figures {
  retainedBytes: number;
  estimateBytes: number;
  simulateMs: number;
  worstSeekMs: number;
  /** CPU time of that slowest seek's process (GC threads included): less inflated by other load. */
  worstSeekCpuMs: number;
  truncation: string[];
}

const MB = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MB`;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
  (globalThis as { gc?: () => void }).gc?.();
}

function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** The child side: one extreme, its figures sent to the parent. Returns false when not a child. */
export function runMemoryChild(): boolean {
  const raw = process.env.BENCH_MEMORY_JOB;
  if (raw === undefined || process.send === undefined) return false;
  const x = EXTREMES[Number(raw)] as Extreme;
  gc();
  const before = used();
  const t0 = performance.now();
  const result = simulate(x.limiters, x.scenario, x.untilMs);
  const simulateMs = performance.now() - t0;
  gc();
  const retainedBytes = used() - before;
  let worstSeekMs = 0;
  let worstSeekCpuMs = 0;
  for (let k = 1; k <= 20; k += 1) {
    const seeker = new Seeker(result);
    const t = Math.floor((result.completeUntilMs * k) / 21);
    const s = performance.now();
    const c0 = process.cpuUsage();
    seeker.stateAt(t);
    const c = process.cpuUsage(c0);
    worstSeekMs = Math.max(worstSeekMs, performance.now() - s);
    worstSeekCpuMs = Math.max(worstSeekCpuMs, (c.user + c.system) / 1000);
  }
  const figures: Figures = {
    retainedBytes,
    estimateBytes: result.memory.resultBytes + result.memory.checkpointBytes,
    simulateMs,
    worstSeekMs,
    worstSeekCpuMs,
    truncation: result.truncation,
  };
  process.send(figures);
  return true;
}

function measure(index: number): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = fork(process.argv[1] as string, [], {
      env: { ...process.env, BENCH_MEMORY_JOB: String(index) },
      execArgv: ['--expose-gc'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => resolve(m as Figures));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`memory bench child ${index} exited with ${code}`));
    });
  });
}

export async function runMemoryBench(): Promise<void> {
  console.log(
    `Retained memory of extreme runs (after GC, heap + typed arrays) against the run's estimate; budget ${MB(MAX_RETAINED_BYTES)} per run. Seek = slowest of 20 seeks from scratch.\n`,
  );
  for (let i = 0; i < EXTREMES.length; i += 1) {
    const x = EXTREMES[i] as Extreme;
    const f = await measure(i);
    const ratio = f.estimateBytes > 0 ? f.retainedBytes / f.estimateBytes : 0;
    console.log(`${x.name}`);
    console.log(
      `  retained ${MB(f.retainedBytes)}, estimate ${MB(f.estimateBytes)} (retained/estimate ${ratio.toFixed(2)}), simulate ${f.simulateMs.toFixed(0)} ms, worst seek ${f.worstSeekMs.toFixed(1)} ms (${f.worstSeekCpuMs.toFixed(1)} ms CPU)`,
    );
    for (const line of f.truncation) console.log(`  cut: ${line}`);
  }
}
