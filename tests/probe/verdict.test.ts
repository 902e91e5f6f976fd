import { describe, expect, it } from 'vitest';
import type { LimiterEntry } from '../../src/config';
import { judge } from '../../src/probe';
import { NGINX, fakeRun, linkOf, planOf } from './fake';

describe('verdict and diagnosis on a paper gateway', () => {
  it('a gateway that decides as configured is "as configured"', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const v = judge(plan, fakeRun(plan, link));
    expect(v.overall).toBe('as-configured');
    expect(v.headline).toBe(
      `As configured: all ${plan.requests.length} requests got the model's decision, status and headers.`,
    );
    expect(v.diagnosis.configuredExplains).toBe(true);
  });

  it('burst off by one: the diagnosis names burst 19', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const v = judge(
      plan,
      fakeRun(plan, link, { hypothesis: { config: { ...NGINX.config, burst: 19 } as never } }),
    );
    expect(v.overall).toBe('differs');
    expect(v.findings[0]?.text).toBe('burst: expected 21 to pass of 44 sent at once, got 20');
    expect(v.diagnosis.summary).toBe('Consistent with burst 19 (configured: burst 20).');
  });

  it('two replicas each with its own bucket: the diagnosis names them', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const v = judge(plan, fakeRun(plan, link, { hypothesis: { replicas: 2, state: 'local' } }));
    expect(v.overall).toBe('differs');
    expect(v.diagnosis.summary).toMatch(
      /^Consistent with 2 replicas each holding its own bucket of burst 20\./,
    );
  });

  it('status 503 for rejections: named as nginx’s default', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const v = judge(plan, fakeRun(plan, link, { rejectStatus: 503 }));
    expect(v.overall).toBe('differs');
    expect(v.findings.find((f) => f.check === 'status')?.text).toMatch(
      /^status: expected 429, got 503 \(nginx’s default: limit_req_status is not set\)/,
    );
  });
});

describe('the expected side of a verdict is the plan’s own', () => {
  /** nginx as the lab has it, and as served with nodelay left out. */
  const LAB: LimiterEntry = {
    config: {
      kind: 'leaky-bucket',
      rate: 10,
      rateUnit: 'r/s',
      burst: 5,
      delay: 'nodelay',
      limitReqStatus: 429,
    },
  };

  it('nodelay missing, answers read 20 ms late: the burst expects what the configuration passes', () => {
    const link = linkOf(LAB);
    const plan = planOf(link, { kind: 'address' });
    const run = fakeRun(plan, link, {
      hypothesis: { config: { ...LAB.config, delay: 0 } as never },
    });
    // A late harness: every first byte is read 20 ms after it came. The held answers then lie
    // well after a refill; what the configuration was expected to pass must not move with them.
    const late = {
      ...run,
      requests: run.requests.map((r) => ({
        ...r,
        firstByteMs: r.firstByteMs === null ? null : r.firstByteMs + 20,
      })),
    };
    const v = judge(plan, late);
    expect(v.findings.find((f) => f.check === 'burst')?.text).toBe(
      'burst: expected 6 to pass of 14 sent at once, got 1 at once and 5 delayed',
    );
    expect(v.findings.find((f) => f.check === 'refill')?.text).toBe(
      'refill: expected 6 to pass after the pause, got 1 at once and 5 delayed',
    );
    // Request by request, the burst's expectations are the plan's: 6 pass, 8 rejected.
    const burst = plan.requests.filter((q) => q.phase === 'burst').map((q) => v.expected[q.i]);
    expect(burst.filter((e) => e?.decision.outcome !== 'reject')).toHaveLength(6);
    expect(burst.filter((e) => e?.fit === false).every((e) => e?.atPlannedTime === true)).toBe(
      true,
    );
    expect(v.diagnosis.explanations[0]?.text).toBe('consistent with delay=0 (configured: nodelay)');
  });
});
