/**
 * The probe's expected Traefik 429: `X-Retry-In` is Go's `Duration.String()` of the delay
 * x/time/rate's float64 bucket gives after the key's whole history, so the verdict's expectation
 * replays that bucket over the plan's own arrivals at the model's decision times (verdict.ts).
 */
import { describe, expect, it } from 'vitest';
import type { TokenBucketConfig } from '../../src/core';
import { MODEL_DAY_MS, judge } from '../../src/probe';
import { deriveConfig, systemById } from '../../src/systems';
import { goDelaysNs, goSeconds } from '../../src/systems/respond/goRate';
import { goDurationNs } from '../../src/systems/respond/traefik';
import { fakeRun, linkOf, planOf } from './fake';

const traefik = systemById('traefik');
if (traefik === undefined) throw new Error('traefik is registered');

describe('the probe’s expected Traefik 429', () => {
  it('carries Go’s X-Retry-In for the plan’s own arrivals, to the byte', () => {
    // 6 per 1 s, burst 2: maxDelay 83.333333 ms, every wait a fraction of a ms.
    const config = deriveConfig(traefik, {
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 6,
      fillIntervalMs: 1000,
    }) as TokenBucketConfig;
    const link = linkOf({ system: 'traefik', config });
    const plan = planOf(link);
    // A gateway on paper answering as Traefik would: its 429s carry x/time/rate's delay after
    // each key's requests, at the whole ms the gateway read its clock (fakeRun's).
    const run = fakeRun(plan, link, { jitterMs: 0 });
    const rtl = (config.tokensPerFill * 1e9) / (config.fillIntervalMs * 1e6);
    const maxDelayNs = config.maxDelayNs ?? (config.maxDelayMs ?? 0) * 1e6;
    const byKey = new Map<number, number[]>();
    const sent = new Map<number, { retryAfter: string; retryIn: string }>();
    const requests = run.requests.map((o) => {
      const slot = plan.requests[o.i]?.slot ?? 0;
      const times = byKey.get(slot) ?? [];
      times.push(Math.floor(MODEL_DAY_MS + o.sentMs + 0.4));
      byKey.set(slot, times);
      if (o.status !== 429) return o;
      const ns = goDelaysNs(rtl, config.maxTokens, maxDelayNs, times, config.idleResetS ?? 0).at(
        -1,
      ) as number;
      const headers: Array<[string, string]> = [
        ['Retry-After', String(Math.ceil(goSeconds(ns)))],
        ['X-Retry-In', goDurationNs(ns)],
      ];
      sent.set(o.i, { retryAfter: headers[0]?.[1] ?? '', retryIn: headers[1]?.[1] ?? '' });
      return { ...o, headers };
    });
    const v = judge(plan, { ...run, requests });
    let compared = 0;
    let fractional = 0;
    for (const [i, { retryAfter, retryIn }] of sent) {
      const fields = v.expected[i]?.fields ?? [];
      expect(fields.find((f) => f.name === 'X-Retry-In')?.value, `request ${i}`).toBe(retryIn);
      expect(fields.find((f) => f.name === 'Retry-After')?.value, `request ${i}`).toBe(retryAfter);
      if (!/^\d+ms$/.test(retryIn)) fractional += 1;
      compared += 1;
    }
    expect(v.overall).toBe('as-configured');
    expect(compared).toBeGreaterThanOrEqual(10);
    console.info(`${compared} 429s, ${fractional} with a fraction of a ms`);
    expect(fractional).toBeGreaterThanOrEqual(5);
  });
});
