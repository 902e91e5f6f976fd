/**
 * "Leaving ingress-nginx": the answer is measured on the run. The burst numbers are worked out by
 * hand from the two rules (DESIGN.md; src/systems/traefik.ts): nginx limit_req burst=50 nodelay
 * passes burst + 1 = 51 simultaneous requests; Traefik's bucket of 50 passes 50, and the 51st would
 * wait 100 ms for a token, more than its maxDelay of 50 ms, so it is rejected.
 */
import { describe, expect, it } from 'vitest';
import { experimentById } from '../../src/config/experiments';
import type { Experiment, ExperimentInputs } from '../../src/config/experiments';
import { simulate, OUTCOME_DELAY } from '../../src/sim';
import { createPlaygroundStore } from '../../src/store';

function get(): Experiment {
  const e = experimentById('leaving-ingress-nginx');
  if (e === undefined) throw new Error('missing');
  return e;
}

const run = (inputs: ExperimentInputs) =>
  simulate(
    inputs.limiters.map((l) => ({ name: l.name ?? l.config.kind, config: l.config })),
    inputs.scenario,
    inputs.untilMs,
  );

const fact = (facts: Array<{ label: string; value: string }>, label: string) =>
  facts.find((f) => f.label === label)?.value;

describe('Leaving ingress-nginx', () => {
  it('the burst: 51 pass under ingress-nginx, 50 under Traefik; the status and headers each rejected client reads', () => {
    const e = get();
    const result = run(e.inputs);
    const a = e.measure(result);
    expect(fact(a.facts, 'ingress-nginx limit-rps 10: burst passed at once')).toBe('51 of 60');
    expect(fact(a.facts, 'Traefik limit-rps 10: burst passed at once')).toBe('50 of 60');
    expect(fact(a.facts, 'ingress-nginx limit-rps 10: a rejected client reads')).toBe(
      '503, no headers',
    );
    // The burst's 51st: Retry-After = ⌈100 ms⌉ s, X-Retry-In the reservation's 100 ms.
    expect(fact(a.facts, 'Traefik limit-rps 10: a rejected client reads')).toBe(
      '429, Retry-After: 1, X-Retry-In: 100ms',
    );
    expect(fact(a.facts, 'ingress-nginx limit-rps 10: delayed')).toBe('0');
  });

  it('every other number is the run’s own: counted again from the lanes here', () => {
    const e = get();
    const result = run(e.inputs);
    const a = e.measure(result);
    for (const lane of result.lanes) {
      const c = lane.columns;
      let delayed = 0;
      let max = 0;
      for (let r = 0; r < c.rows; r += 1) {
        if (c.outcome[r] === OUTCOME_DELAY) {
          delayed += 1;
          max = Math.max(max, c.waitMs[r] as number);
        }
      }
      const t = lane.metrics.total;
      expect(fact(a.facts, `${lane.name}: passed`)).toBe(
        `${t.admitted + t.delayed} of ${t.offered}`,
      );
      expect(fact(a.facts, `${lane.name}: rejected`)).toMatch(new RegExp(`^${t.rejected} with`));
      if (lane.config.kind === 'token-bucket') {
        // Traefik's waits are real and capped by maxDelay (50 ms for 10 r/s).
        expect(delayed).toBeGreaterThan(0);
        expect(max).toBeLessThanOrEqual(50);
        expect(fact(a.facts, `${lane.name}: delayed`)).toBe(`${delayed}, up to ${max} ms`);
      }
    }
    expect(a.headline).toContain(
      'Same traffic, same annotation: ingress-nginx limit-rps 10 passes 51 of the 60-request burst at once',
    );
  });

  it('follows edits: a larger burst multiplier changes the measured burst', () => {
    const e = get();
    const edited = structuredClone(e.inputs);
    const nginx = edited.limiters[0];
    if (nginx?.config.kind !== 'leaky-bucket') throw new Error('lane 0 is nginx');
    nginx.config = { ...nginx.config, burst: 100 };
    const a = e.measure(run(edited));
    expect(fact(a.facts, 'ingress-nginx limit-rps 10: burst passed at once')).toBe('60 of 60');
  });

  it('loads into the store with the Traefik lane as the Traefik system', () => {
    const store = createPlaygroundStore();
    store.getState().loadExperiment('leaving-ingress-nginx');
    const st = store.getState();
    expect(st.mode).toBe('compare');
    expect(st.limiters.map((l) => l.system)).toEqual([undefined, 'traefik']);
    expect(st.tMs).toBe(1200);
  });
});
