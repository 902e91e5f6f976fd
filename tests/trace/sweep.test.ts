import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { ALGORITHM_KINDS } from '../../src/core';
import { DEFAULTS } from '../../src/config/defaults';
import { defaultScenario, simulate } from '../../src/sim';
import type { SimTrace } from '../../src/sim';
import { axisValues, belowP99, sweepCell, sweepPlan, traceSourceOf } from '../../src/trace';

function randomTrace(rows: Array<[number, number]>): SimTrace {
  const sorted = [...rows].sort((a, b) => a[0] - b[0]);
  return {
    hash: '00000000000000aa',
    timeMs: Int32Array.from(sorted.map((r) => r[0])),
    keyId: Uint32Array.from(sorted.map((r) => r[1])),
    keys: ['k0', 'k1', 'k2', 'k3', 'k4'],
  };
}

const BASES: AlgorithmConfig[] = [
  { kind: 'leaky-bucket', rate: 3, rateUnit: 'r/s', burst: 2, delay: 1 },
  { kind: 'token-bucket', maxTokens: 4, tokensPerFill: 2, fillIntervalMs: 1000 },
  { kind: 'gcra', count: 3, periodMs: 1000, burst: 2 },
  { kind: 'sliding-window-counter', limit: 4, windowMs: 1000 },
];

describe('sweep', () => {
  it('every cell equals the simulation of that config on the same trace (the main view)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 8000 }), fc.integer({ min: 0, max: 4 })), {
          minLength: 1,
          maxLength: 150,
        }),
        fc.constantFrom(...BASES),
        (rows, base) => {
          const trace = randomTrace(rows);
          const plan = sweepPlan(base, 4);
          expect(plan).not.toBeNull();
          if (plan === null) return;
          const below = belowP99(trace);
          const scenario = { ...defaultScenario(), sources: [traceSourceOf(trace, 't.log', 1)] };
          for (let xi = 0; xi < plan.x.values.length; xi += 1) {
            for (let yi = 0; yi < plan.y.values.length; yi += 1) {
              const config = plan.configAt(xi, yi);
              const cell = sweepCell(trace, config, 1000, below);
              const lane = simulate([config], scenario, 10_000, { traces: [trace] }).lanes[0];
              if (lane === undefined) throw new Error('no lane');
              expect(cell.offered).toBe(lane.metrics.first.offered);
              expect(cell.rejected).toBe(lane.metrics.first.rejected);
              expect(cell.delayed).toBe(lane.metrics.first.delayed);
              expect(cell.peakBackend).toBe(lane.metrics.peakBackend.count);
              expect(cell.p95DelayMs).toBe(lane.metrics.delay.p95Ms);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('the p99 share counts only keys at or under the p99 volume', () => {
    // 100 keys: key 0 sends 50 requests in one ms, the 99 others one each.
    const keys = Array.from({ length: 100 }, (_, i) => `k${i}`);
    const keyId: number[] = [];
    const timeMs: number[] = [];
    for (let i = 0; i < 50; i += 1) {
      keyId.push(0);
      timeMs.push(0);
    }
    for (let k = 1; k < 100; k += 1) {
      keyId.push(k);
      timeMs.push(k);
    }
    const trace: SimTrace = {
      hash: '00000000000000bb',
      timeMs: Int32Array.from(timeMs),
      keyId: Uint32Array.from(keyId),
      keys,
    };
    const below = belowP99(trace);
    expect(below[0]).toBe(0);
    expect(below.slice(1).every((b) => b === 1)).toBe(true);
    const cell = sweepCell(trace, { kind: 'fixed-window', limit: 1, windowMs: 1000 }, 1000, below);
    expect(cell.rejected).toBe(49);
    expect(cell.rejectedShare).toBeCloseTo(49 / 149, 12);
    expect(cell.rejectedShareP99).toBe(0);
  });

  it('axes are ascending whole values around the current setting', () => {
    expect(axisValues(0, 50, 6)).toEqual([0, 1, 3, 7, 19, 50]);
    expect(axisValues(1, 4, 20)).toEqual([1, 2, 3, 4]);
    const plan = sweepPlan({
      kind: 'leaky-bucket',
      rate: 10,
      rateUnit: 'r/s',
      burst: 20,
      delay: 'nodelay',
    });
    expect(plan?.x.values[0]).toBe(1);
    expect(plan?.x.values.at(-1)).toBe(100);
    expect(plan?.y.values[0]).toBe(2);
    expect(plan?.y.values.length).toBeLessThanOrEqual(20);
    // Every algorithm has a grid (anchored and calendar windows too: tests/trace/sweep-windows.test.ts).
    for (const kind of ALGORITHM_KINDS)
      expect(sweepPlan(DEFAULTS.limiter[kind]), kind).not.toBeNull();
  });
});
