/**
 * The probe's model places calendar months and years on the UTC calendar of the run, as Kong does
 * (kong/tools/timestamp.lua get_timestamps, Kong 3.10.0: the UTC start of the month and year of
 * the request's wall time): a run that starts five seconds before a month ends sees Kong's month
 * counter start again at 00:00:00 UTC of the 1st, and the verdict's model must too.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import type { ObservedRequest } from '../../src/probe';
import { MODEL_DAY_MS, judge, modelOrigin, modelTime, resultOfRun } from '../../src/probe';
import { linkOf, planOf } from './fake';

/** A gateway that decides on the wall clock itself: each request at its epoch ms (origin 0). */
function realClockRun(link: string, config: AlgorithmConfig, epochStartMs: number) {
  const plan = planOf(link, { kind: 'header', name: 'X-Forwarded-For' }, 1);
  const server = createLimiter(config);
  const requests: ObservedRequest[] = plan.requests.map((q) => {
    const sentMs = q.atMs + 0.2;
    const d = server.decide(Math.floor(epochStartMs + sentMs + 0.4), 'key-0');
    return {
      i: q.i,
      sentMs,
      firstByteMs: sentMs + 0.8,
      status: d.outcome === 'reject' ? 429 : 200,
      headers: [],
      error: null,
    };
  });
  const result = resultOfRun(plan, {
    link,
    url: 'http://127.0.0.1:8080/',
    method: 'GET',
    runner: { kind: 'cli', version: 'test', crossOrigin: false },
    epochStartMs,
    end: 'complete',
    requests,
  });
  return { plan, result, requests };
}

describe('the probe model on the UTC calendar', () => {
  it('model time t of a run is the wall time origin + t, a whole number of days from 0', () => {
    const start = Date.UTC(2026, 0, 31, 23, 59, 58, 250);
    const o = modelOrigin(start);
    expect(o % 86_400_000).toBe(0);
    expect(o + modelTime(start, 1_750)).toBe(Date.UTC(2026, 1, 1, 0, 0, 0, 0));
    expect(modelTime(start, 0) - MODEL_DAY_MS).toBe(start % 86_400_000);
  });

  for (const [unit, start] of [
    ['month', Date.UTC(2026, 0, 31, 23, 59, 55, 0)],
    ['year', Date.UTC(2026, 11, 31, 23, 59, 55, 0)],
  ] as const) {
    it(`Kong ${unit}: a run across the end of the ${unit} is judged as configured`, () => {
      const config: AlgorithmConfig = {
        kind: 'calendar-windows',
        second: 2,
        [unit]: 6,
        counterTtl: true,
      };
      const link = linkOf({ system: 'kong', config });
      const { plan, result, requests } = realClockRun(link, config, start);
      // The run crosses the boundary and the server passed requests again after it.
      const boundary = start + 5_000;
      const after = requests.filter((r) => start + r.sentMs >= boundary);
      expect(after.length).toBeGreaterThan(0);
      expect(after.some((r) => r.status === 200)).toBe(true);
      // … which it would not have without the new period: 6 passed before it.
      const before = requests.filter((r) => start + r.sentMs < boundary);
      expect(before.filter((r) => r.status === 200)).toHaveLength(6);
      const v = judge(plan, result);
      // Every decision explained by the configuration (the paper gateway sends no headers, so
      // the header findings are left aside); the month or year starting again included.
      const decisions = v.findings.filter((f) => f.check !== 'headers');
      expect(decisions.map((f) => f.check)).toEqual(['burst', 'steady', 'status']);
      for (const f of decisions) expect(f.text).toMatch(/as configured$/);
      expect(v.diagnosis.configuredExplains).toBe(true);
    });
  }
});
