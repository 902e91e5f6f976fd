/**
 * Experiment: leaving ingress-nginx for Traefik's ingress-nginx provider (the library: ./library.ts).
 *
 * The same annotation, `nginx.ingress.kubernetes.io/limit-rps: "10"`, as each controller renders it
 * (src/export/import-ingress-nginx.ts has the sources): ingress-nginx writes
 * `limit_req … rate=10r/s burst=50 nodelay` (burst = 10 × the default multiplier 5), Traefik v3.7.9
 * builds a rateLimit middleware {average 10, period 1s, burst 50}: a token bucket that makes a
 * request wait up to 1/(2·10) s = 50 ms for its token and answers 429 beyond that. ingress-nginx
 * answers 503 (limit-req-status-code's default). Every number in the answer is measured on the run.
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { OUTCOME_DELAY, OUTCOME_REJECT } from '../../sim';
import type { LaneResult, SimResult } from '../../sim';
import { systemById, systemOf } from '../../systems';
import { isGenericHeader, responseOf } from '../../systems/respond';
import { countsAnswer, inputs, scenario } from './define';
import type { Experiment } from './define';
import { list, n, passedIn, secs, status } from '../measure';

const RPS = 10;
const MULTIPLIER = 5;
const BURST_AT_MS = 1000;

const NGINX: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: RPS,
  rateUnit: 'r/s',
  burst: RPS * MULTIPLIER,
  delay: 'nodelay',
};

/** Traefik's middleware for limit-rps 10, with the fields Traefik computes (maxDelay, ttl). */
function traefikConfig(): AlgorithmConfig {
  const traefik = systemById('traefik');
  const base: AlgorithmConfig = {
    kind: 'token-bucket',
    maxTokens: RPS * MULTIPLIER,
    tokensPerFill: RPS,
    fillIntervalMs: 1000,
  };
  return traefik?.derive === undefined ? base : traefik.derive(base);
}

/** The system a lane of this experiment stands for: Traefik for a token bucket that waits. */
function laneSystem(lane: LaneResult) {
  const c = lane.config;
  if (c.kind === 'token-bucket' && (c.maxDelayMs ?? 0) > 0) {
    const traefik = systemById('traefik');
    if (traefik !== undefined) return traefik;
  }
  return systemOf({ config: c });
}

/** What one lane did: the burst, the waits, the rejections and what a rejected client reads. */
function laneFacts(result: SimResult, lane: LaneResult, burstAtMs: number | undefined) {
  const c = lane.columns;
  let delayed = 0;
  let maxDelay = 0;
  let rejected = 0;
  let firstReject = -1;
  for (let r = 0; r < c.rows; r += 1) {
    const o = c.outcome[r];
    if (o === OUTCOME_DELAY) {
      delayed += 1;
      maxDelay = Math.max(maxDelay, c.waitMs[r] as number);
    } else if (o === OUTCOME_REJECT) {
      rejected += 1;
      if (firstReject < 0) firstReject = r;
    }
  }
  const t = lane.metrics.total;
  const burst = burstAtMs === undefined ? null : passedIn(lane, burstAtMs, burstAtMs + 1);
  let headers = 'no headers';
  if (firstReject >= 0) {
    const decision: Decision = {
      outcome: 'reject',
      delayMs: 0,
      retryAfterMs: c.waitMs[firstReject] as number,
      remaining: c.remaining[firstReject] as number,
      limit: 0,
      resetMs: c.resetMs[firstReject] as number,
    };
    const sent = responseOf(laneSystem(lane))(lane.config, decision).fields.filter(
      (f) => !isGenericHeader(f.name),
    );
    if (sent.length > 0) headers = sent.map((f) => `${f.name}: ${f.value}`).join(', ');
  }
  return {
    name: lane.name,
    system: laneSystem(lane).name,
    offered: t.offered,
    passed: t.admitted + t.delayed,
    burst,
    delayed,
    maxDelay,
    rejected,
    status: status(lane),
    headers,
    arrivals: result.arrivals.count,
  };
}

export const leavingIngressNginx: Experiment = {
  id: 'leaving-ingress-nginx',
  title: 'Leaving ingress-nginx: what changes for your clients',
  question:
    'An Ingress says nginx.ingress.kubernetes.io/limit-rps: "10". Moving from ingress-nginx to Traefik’s ingress-nginx provider keeps the annotation: what do the same clients see now?',
  lookAt:
    'A burst of 60 at 1 s, then about 12 a second. Compare how many of the burst pass at once, the waits Traefik adds (nginx never delays with nodelay) and the status each rejected client reads.',
  inputs: inputs(
    [
      { name: 'ingress-nginx limit-rps 10', config: NGINX },
      { name: 'Traefik limit-rps 10', config: traefikConfig(), system: 'traefik' },
    ],
    scenario({
      sources: [
        { kind: 'burst', atMs: BURST_AT_MS, count: 60 },
        { kind: 'poisson', ratePerSec: 12, startMs: 2000, endMs: 20_000 },
      ],
      metrics: { windowMs: 1000, binMs: 250 },
    }),
    20_000,
  ),
  startAtMs: 1200,
  measure(result) {
    if (result.lanes.length < 2) return countsAnswer(result);
    const burstSource = result.scenario.sources.find((s) => s.kind === 'burst');
    const burstAt = burstSource?.kind === 'burst' ? burstSource.atMs : undefined;
    const per = result.lanes.map((lane) => laneFacts(result, lane, burstAt));
    const burstCount = burstSource?.kind === 'burst' ? burstSource.count : 0;
    const parts = per.map((p) => {
      const burst =
        p.burst === null ? '' : `${n(p.burst)} of the ${n(burstCount)}-request burst at once, `;
      const waits =
        p.delayed > 0 ? `delays ${n(p.delayed)} by up to ${secs(p.maxDelay)}` : 'delays none';
      return `${p.name} passes ${burst}${n(p.passed)} of ${n(p.offered)} in all, ${waits} and rejects ${n(p.rejected)} with ${p.status} (${p.headers})`;
    });
    return {
      headline: `Same traffic, same annotation: ${list(parts)}.`,
      facts: per.flatMap((p) => [
        ...(p.burst === null
          ? []
          : [
              {
                label: `${p.name}: burst passed at once`,
                value: `${n(p.burst)} of ${n(burstCount)}`,
              },
            ]),
        { label: `${p.name}: passed`, value: `${n(p.passed)} of ${n(p.offered)}` },
        {
          label: `${p.name}: delayed`,
          value: p.delayed > 0 ? `${n(p.delayed)}, up to ${secs(p.maxDelay)}` : '0',
        },
        { label: `${p.name}: rejected`, value: `${n(p.rejected)} with ${p.status}` },
        { label: `${p.name}: a rejected client reads`, value: `${p.status}, ${p.headers}` },
      ]),
    };
  },
};
