import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { simulate, defaultScenario, validateScenario } from '../../src/sim';
import type { SimTrace } from '../../src/sim';
import {
  REJECT,
  busiestStart,
  heldSpanSource,
  overviewBinMs,
  perBin,
  replayColumns,
  replayTrace,
  traceSourceOf,
} from '../../src/trace';

/** A trace of sorted whole-ms times and keys k0…k4. */
function columns(rows: [number, number][]) {
  const sorted = [...rows].sort((a, b) => a[0] - b[0]);
  return {
    timeMs: Int32Array.from(sorted, (r) => r[0] - (sorted[0]?.[0] ?? 0)),
    keyId: Uint32Array.from(sorted, (r) => r[1]),
    keys: ['k0', 'k1', 'k2', 'k3', 'k4'],
  };
}

const rowsArb = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: 0, max: 4 })),
  { minLength: 1, maxLength: 300 },
);

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 2, delay: 'nodelay' },
  { kind: 'fixed-window', limit: 3, windowMs: 10_000 },
  { kind: 'token-bucket', maxTokens: 2, tokensPerFill: 1, fillIntervalMs: 3000, maxDelayMs: 2000 },
  { kind: 'sliding-log', limit: 2, windowMs: 5000 },
];

describe('the overview of a trace', () => {
  it('counts every request once per minute bin, and rejections as the replay decides them', () => {
    fc.assert(
      fc.property(rowsArb, fc.constantFrom(...CONFIGS), (rows, config) => {
        const c = columns(rows);
        const bins = perBin(c.timeMs, 60_000);
        expect(bins.reduce((a, b) => a + b, 0)).toBe(c.timeMs.length);
        const last = c.timeMs[c.timeMs.length - 1] as number;
        expect(bins.length).toBe(Math.floor(last / 60_000) + 1);
        const source = heldSpanSource(c);
        const rejected = source.rejectionsPerBin(config, 60_000);
        // The same as core's limiter, request by request.
        const direct = replayTrace(
          { count: c.timeMs.length, arrivalMs: Float64Array.from(c.timeMs), ...c },
          config,
        );
        const want = new Uint32Array(bins.length);
        direct.outcome.forEach((o, i) => {
          const b = Math.floor((c.timeMs[i] as number) / 60_000);
          if (o === REJECT) want[b] = (want[b] as number) + 1;
        });
        expect([...rejected]).toEqual([...want]);
      }),
      { numRuns: 60 },
    );
  });

  it('the busiest span is the one holding the most requests (the earliest of equals)', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 200_000 }), (rows, length) => {
        const { timeMs } = columns(rows);
        const count = (s: number) => timeMs.filter((t) => t >= s && t < s + length).length;
        let best = 0;
        for (const t of timeMs)
          if (count(t) > count(best) || (count(t) === count(best) && t < best)) best = t;
        const got = busiestStart(timeMs, length);
        expect(count(got)).toBe(count(best));
        expect(got).toBe(best);
      }),
      { numRuns: 100 },
    );
  });

  it('bins are whole minutes, a few more for a trace of weeks', () => {
    expect(overviewBinMs(83 * 3_600_000)).toBe(60_000);
    expect(overviewBinMs(24 * 86_400_000)).toBe(6 * 60_000);
  });
});

describe('a span of a trace on the stage', () => {
  it('replays exactly the requests of [from, from + run), each from earlier, from idle limiters', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 0, max: 600_000 }),
        fc.integer({ min: 1, max: 300_000 }),
        (rows, fromMs, untilMs) => {
          const c = columns(rows);
          const sim: SimTrace = { hash: '0123456789abcdef', ...c };
          const source = { ...traceSourceOf(sim, 'a.log', 100), fromMs };
          const scenario = { ...defaultScenario(), sources: [source] };
          expect(validateScenario(scenario)).toEqual([]);
          const result = simulate(CONFIGS, scenario, untilMs, { traces: [sim] });
          // The span's requests, as the dry run takes them.
          const span = heldSpanSource(c).span(fromMs, untilMs);
          expect(result.arrivals.count).toBe(span.timeMs.length);
          expect([...result.arrivals.timeMs.subarray(0, result.arrivals.count)]).toEqual([
            ...span.timeMs,
          ]);
          expect(result.truncation).toEqual([]);
          result.lanes.forEach((lane, i) => {
            const replay = replayColumns({ ...span, keys: c.keys }, CONFIGS[i] as AlgorithmConfig);
            expect(lane.metrics.first.rejected).toBe(replay.rejected);
          });
          for (let r = 0; r < span.timeMs.length; r += 1) {
            const key =
              result.keyNames[result.clientKey[result.arrivals.client[r] as number] as number];
            expect(key).toBe(c.keys[c.keyId[span.first + r] as number]);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a span start outside a replay is refused, naming the field', () => {
    const sim: SimTrace = { hash: '0123456789abcdef', ...columns([[0, 0]]) };
    const source = { ...traceSourceOf(sim, 'a.log', 1), fromMs: -1 };
    expect(
      validateScenario({ ...defaultScenario(), sources: [source] }).map((i) => i.path),
    ).toEqual(['sources[0].fromMs']);
  });
});
