import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import { explainDecision } from '../../src/core/explain';
import type { AlgorithmConfig } from '../../src/core';

/** Decides each (t, key) and explains it from the state inspected just before. */
function explainAll(config: AlgorithmConfig, trace: ReadonlyArray<readonly [number, string]>) {
  const limiter = createLimiter(config);
  return trace.map(([t, key]) => {
    const before = limiter.inspect(t, key);
    const decision = limiter.decide(t, key);
    return { decision, explanation: explainDecision(before, decision) };
  });
}

describe('explainDecision', () => {
  it("fills Cloudflare's example into the sliding-window counter's rule", () => {
    const trace: Array<[number, string]> = [];
    for (let i = 0; i < 42; i += 1) trace.push([0, 'k']);
    for (let i = 0; i < 20; i += 1) trace.push([75_000, 'k']);
    const all = explainAll({ kind: 'sliding-window-counter', limit: 50, windowMs: 60_000 }, trace);
    // 15 s into the minute: 42 × 45/60 + 18 = 49.5 < 50 admits the 19th, and 50.5 rejects the 20th.
    expect(all[42 + 18]?.explanation.rule).toBe('42 × 45000/60000 + 18 = 49.5 < 50 → admit');
    expect(all[42 + 19]?.explanation.rule).toBe('42 × 45000/60000 + 19 = 50.5 ≥ 50 → reject');
  });

  it('shows nginx arithmetic: burst=5 passes six at once, the seventh is over', () => {
    const all = explainAll(
      { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 5, delay: 0 },
      Array.from({ length: 7 }, () => [0, 'k'] as const),
    );
    expect(all[0]?.explanation.rule).toBe('first request of this key: excess 0 → admit');
    expect(all[3]?.explanation.steps).toContain('delay = ⌊(3000 − 0) × 1000 / 1000⌋ = 3000 ms');
    expect(all[6]?.explanation.rule).toBe('excess 6000 > 5000 → reject');
  });

  it('states redis-cell TAT arithmetic for CL.THROTTLE user123 15 30 60', () => {
    const [first] = explainAll({ kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 }, [
      [0, 'user123'],
    ]);
    expect(first?.explanation.steps[0]).toBe(
      'T = period / count = 2000 ms; τ = T × (max_burst + 1) = 32000 ms',
    );
    expect(first?.explanation.rule).toBe('now 0 ms ≥ new TAT − τ = -30000 ms → admit');
  });

  it('always ends its rule with the outcome it explains, and never prints NaN', () => {
    const config = fc.oneof(
      fc.record({
        kind: fc.constant('fixed-window' as const),
        limit: fc.integer({ min: 1, max: 5 }),
        windowMs: fc.integer({ min: 1, max: 500 }),
      }),
      fc.record({
        kind: fc.constant('sliding-log' as const),
        limit: fc.integer({ min: 1, max: 5 }),
        windowMs: fc.integer({ min: 1, max: 500 }),
        logRejected: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('sliding-window-counter' as const),
        limit: fc.integer({ min: 1, max: 5 }),
        windowMs: fc.integer({ min: 1, max: 500 }),
      }),
      fc.record({
        kind: fc.constant('token-bucket' as const),
        maxTokens: fc.integer({ min: 1, max: 5 }),
        tokensPerFill: fc.integer({ min: 1, max: 3 }),
        fillIntervalMs: fc.integer({ min: 1, max: 300 }),
        refill: fc.constantFrom<Array<'continuous' | 'interval'>>('continuous', 'interval'),
        maxDelayMs: fc.integer({ min: 0, max: 300 }),
      }),
      fc.record({
        kind: fc.constant('leaky-bucket' as const),
        rate: fc.integer({ min: 1, max: 20 }),
        rateUnit: fc.constantFrom<Array<'r/s' | 'r/m'>>('r/s', 'r/m'),
        burst: fc.integer({ min: 0, max: 4 }),
        delay: fc.oneof(fc.constant<'nodelay'>('nodelay'), fc.integer({ min: 0, max: 4 })),
      }),
      fc.record({
        kind: fc.constant('gcra' as const),
        count: fc.integer({ min: 1, max: 7 }),
        periodMs: fc.integer({ min: 1, max: 900 }),
        burst: fc.integer({ min: 0, max: 3 }),
      }),
    );
    const trace = fc.array(fc.tuple(fc.integer({ min: 0, max: 200 }), fc.constantFrom('a', 'b')), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(config, trace, (c, steps) => {
        let t = 0;
        const timed = steps.map(([dt, key]) => [(t += dt), key] as const);
        for (const { decision, explanation } of explainAll(c, timed)) {
          expect(explanation.rule.endsWith(`→ ${decision.outcome}`)).toBe(true);
          expect([explanation.rule, ...explanation.steps].join('\n')).not.toMatch(
            /NaN|undefined|Infinity/,
          );
        }
      }),
      { numRuns: 300, seed: 11 },
    );
  });
});
