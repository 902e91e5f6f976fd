import { describe, expect, it } from 'vitest';
import type { LimiterEntry } from '../../src/config';
import { judge } from '../../src/probe';
import { fakeRun, linkOf, planOf } from './fake';

const NGINX: LimiterEntry = {
  config: {
    kind: 'leaky-bucket',
    rate: 10,
    rateUnit: 'r/s',
    burst: 20,
    delay: 'nodelay',
    limitReqStatus: 429,
  },
};

describe('verdict and diagnosis on a paper gateway', () => {
  it('a gateway that decides as configured is "as configured"', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const v = judge(plan, fakeRun(plan, link));
    console.log(plan.phases, plan.requests.length, plan.durationMs);
    console.log(v.headline);
    for (const f of v.findings) console.log(f.status, f.text);
    console.log(v.diagnosis.summary, v.diagnosis.searched);
    expect(v.overall).toBe('as-configured');
  });
  it('burst off by one', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const t0 = performance.now();
    const v = judge(
      plan,
      fakeRun(plan, link, { hypothesis: { config: { ...NGINX.config, burst: 19 } as never } }),
    );
    console.log(performance.now() - t0);
    console.log(v.headline);
    for (const f of v.findings) console.log(f.status, f.text);
    console.log(v.diagnosis.summary, v.diagnosis.searched, v.diagnosis.explaining);
    expect(v.overall).toBe('differs');
  });
  it('two replicas', () => {
    const link = linkOf(NGINX);
    const plan = planOf(link);
    const t0 = performance.now();
    const v = judge(plan, fakeRun(plan, link, { hypothesis: { replicas: 2, state: 'local' } }));
    console.log(performance.now() - t0);
    console.log(v.headline);
    for (const f of v.findings) console.log(f.status, f.text);
    console.log(v.diagnosis.summary, v.diagnosis.searched, v.diagnosis.explaining);
  });
});
