/**
 * A gateway on paper: answers a plan's requests as a given configuration would (through the core's
 * limiter), with a network's latency and a little seeded jitter, and seals the result file the
 * runner would write. The unit tests judge these; the real servers are in *.server.test.ts.
 */
import type { AlgorithmConfig } from '../../src/core';
import { rejectStatus } from '../../src/core';
import { encodeConfig, defaultConfig } from '../../src/config';
import { decodeConfig } from '../../src/config/url';
import type { LimiterEntry, PlaygroundConfig } from '../../src/config';
import type { Hypothesis, KeyMode, ObservedRequest, Plan, ProbeResult } from '../../src/probe';
import { MODEL_DAY_MS, ModelRun, buildPlan, resultOfRun, subjectOf } from '../../src/probe';
import { seeded } from '../export/gen';

/** A link whose first limiter is `entry`, with `instances` replicas of `state`. */
export function linkOf(
  entry: LimiterEntry,
  instances = 1,
  state: 'local' | 'shared-atomic' = 'local',
): string {
  const base = defaultConfig();
  const config: PlaygroundConfig = {
    ...base,
    limiters: [entry],
    scenario: {
      ...base.scenario,
      deployment: { ...base.scenario.deployment, instances, state },
    },
  };
  const link = `?${encodeConfig(config)}`;
  const back = decodeConfig(link);
  if (back.errors.length > 0) throw new Error(`bad test link ${link}: ${back.errors[0]?.message}`);
  return link;
}

/** The plan of lane 0 of `link`. */
export function planOf(
  link: string,
  key: KeyMode = { kind: 'header', name: 'X-Forwarded-For' },
  keySlots = 4,
): Plan {
  const subject = subjectOf(decodeConfig(link).config, 0);
  if (typeof subject === 'string') throw new Error(subject);
  const built = buildPlan(subject, { key, keySlots });
  if (!built.ok) throw new Error(built.reason);
  return built.plan;
}

/** How the paper gateway behaves. */
export interface FakeGateway {
  /** What really decides (default: the plan's own configuration). */
  hypothesis?: Partial<Hypothesis>;
  /** The status of a rejected request (default: the configured system's). */
  rejectStatus?: number;
  /** Headers per response (default: none). */
  headers?: (outcome: 'pass' | 'reject', retryAfterMs: number) => Array<[string, string]>;
  /** One-way latency, ms (default 0.4). */
  latencyMs?: number;
  /** Jitter of send times and latencies, ms (default 0.6). */
  jitterMs?: number;
  /** Answer every request with this status instead (a server that ignores the limit). */
  always?: number;
  seed?: number;
}

/** The sealed result the runner would write for `plan` against a gateway behaving as `g`. */
export function fakeRun(plan: Plan, link: string, g: FakeGateway = {}): ProbeResult {
  const rng = seeded(g.seed ?? 7);
  const jitter = g.jitterMs ?? 0.6;
  const latency = g.latencyMs ?? 0.4;
  const h: Hypothesis = {
    config: plan.subject.entry.config,
    replicas: plan.subject.replicas,
    state: plan.subject.state,
    offset: 0,
    keying: 'planned',
    ...g.hypothesis,
  };
  const run = ModelRun.start(h);
  const epochStartMs = 1_760_000_000_000 - (1_760_000_000_000 % 86_400_000);
  const requests: ObservedRequest[] = plan.requests.map((q) => {
    const sentMs = q.atMs + rng() * jitter;
    // The gateway reads its clock a moment later, in whole ms.
    const { decision } = run.decide({
      timeMs: Math.floor(MODEL_DAY_MS + sentMs + latency),
      slot: q.slot,
    });
    const status =
      g.always ??
      (decision.outcome === 'reject'
        ? (g.rejectStatus ?? rejectStatus(plan.subject.entry.config))
        : 200);
    const firstByteMs = sentMs + 2 * latency + rng() * jitter + decision.delayMs;
    return {
      i: q.i,
      sentMs,
      firstByteMs,
      status,
      headers:
        g.headers?.(decision.outcome === 'reject' ? 'reject' : 'pass', decision.retryAfterMs) ?? [],
      error: null,
    };
  });
  return resultOfRun(plan, {
    link,
    url: 'http://127.0.0.1:8080/',
    method: 'GET',
    runner: { kind: 'cli', version: 'test', crossOrigin: false },
    epochStartMs,
    end: 'complete',
    requests,
  });
}

/** nginx `limit_req` rate=10r/s burst=20 nodelay with `limit_req_status 429`: the usual subject. */
export const NGINX: LimiterEntry = {
  config: {
    kind: 'leaky-bucket',
    rate: 10,
    rateUnit: 'r/s',
    burst: 20,
    delay: 'nodelay',
    limitReqStatus: 429,
  },
};

/**
 * The benches' ~500-request result: NGINX at rate=80r/s burst=40 (500 requests planned), answered
 * by two replicas each with its own bucket, so the diagnosis searches its whole grid.
 */
export function twoReplicaResult(): { link: string; plan: Plan; result: ProbeResult } {
  const link = linkOf({
    config: { ...NGINX.config, rate: 80, burst: 40 } as LimiterEntry['config'],
  });
  const plan = planOf(link);
  return {
    link,
    plan,
    result: fakeRun(plan, link, { hypothesis: { replicas: 2, state: 'local' } }),
  };
}

export type { AlgorithmConfig };
