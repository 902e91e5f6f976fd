import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import {
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  createSimCache,
  defaultScenario,
  simulate,
  validateScenario,
} from '../../src/sim';
import type { Scenario, SimTrace } from '../../src/sim';
import { REJECT, DELAY, replayTrace, simTraceOf, traceSourceOf } from '../../src/trace';

const T0 = 1_700_000_000_000;

/** A trace from (ms offset, key) rows, sorted. */
function traceOf(rows: Array<[number, string]>) {
  const sorted = [...rows].sort((a, b) => a[0] - b[0]);
  const keys: string[] = [];
  const keyId = Uint32Array.from(
    sorted.map(([, k]) => {
      if (!keys.includes(k)) keys.push(k);
      return keys.indexOf(k);
    }),
  );
  return {
    count: sorted.length,
    arrivalMs: Float64Array.from(sorted.map((r) => T0 + r[0])),
    keyId,
    keys,
  };
}

function traceScenario(sim: SimTrace, extra: Scenario['sources'] = []): Scenario {
  return {
    ...defaultScenario(),
    sources: [traceSourceOf(sim, 'access.log', 1234), ...extra],
  };
}

const CONFIGS: AlgorithmConfig[] = [
  { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 3, delay: 1 },
  { kind: 'token-bucket', maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 400 },
  { kind: 'fixed-window', limit: 2, windowMs: 1000 },
  { kind: 'gcra', count: 2, periodMs: 1000, burst: 1 },
];

describe('a trace as a traffic source', () => {
  it('every request keeps its time and key: the lane decides as a direct replay does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.constantFrom('a', 'b', 'c')), {
          minLength: 1,
          maxLength: 200,
        }),
        (rows) => {
          const trace = traceOf(rows);
          const sim = simTraceOf(trace);
          const result = simulate(CONFIGS, traceScenario(sim), 60_000, { traces: [sim] });
          expect(result.arrivals.count).toBe(trace.count);
          expect(result.truncation).toEqual([]);
          result.lanes.forEach((lane, i) => {
            const direct = replayTrace(trace, CONFIGS[i] as AlgorithmConfig);
            for (let r = 0; r < trace.count; r += 1) {
              const o = lane.columns.outcome[r] as number;
              const want = direct.outcome[r] as number;
              expect(o === OUTCOME_REJECT).toBe(want === REJECT);
              expect(o === OUTCOME_DELAY).toBe(want === DELAY);
              if (o === OUTCOME_DELAY) expect(lane.columns.waitMs[r]).toBe(direct.delayMs[r]);
              const key =
                result.keyNames[result.clientKey[result.arrivals.client[r] as number] as number];
              expect(key).toBe(trace.keys[trace.keyId[r] as number]);
            }
            expect(lane.metrics.first.rejected).toBe(direct.rejected);
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it('without the trace the source sends nothing, the result names the file, the rest runs', () => {
    const sim = simTraceOf(
      traceOf([
        [0, 'a'],
        [5, 'b'],
      ]),
    );
    const sc = traceScenario(sim, [{ kind: 'burst', atMs: 100, count: 3 }]);
    const result = simulate(CONFIGS.slice(0, 1), sc, 1000);
    expect(result.arrivals.count).toBe(3);
    expect(result.truncated).toBe(true);
    expect(result.truncation[0]).toContain('"access.log" (1234 bytes, 2 requests');
    expect(result.truncation[0]).toContain('drop that file on the page');
    // A trace with another hash is not taken for it.
    const other = simTraceOf(traceOf([[0, 'a']]));
    expect(simulate(CONFIGS.slice(0, 1), sc, 1000, { traces: [other] }).arrivals.count).toBe(3);
  });

  it('the file it names is quoted and cut like every untrusted text', () => {
    const sim = simTraceOf(traceOf([[0, 'a']]));
    // The longest name a link or a scenario may hold (the schema refuses control and bidi
    // characters before a run starts): the note shows its first 40 characters.
    const source = traceSourceOf(sim, `${'x'.repeat(196)}.log`, 1);
    const sc: Scenario = { ...defaultScenario(), sources: [source] };
    const note = simulate(CONFIGS.slice(0, 1), sc, 1000).truncation[0] ?? '';
    expect(note).toContain(`the access log "${'x'.repeat(40)}…" (1 bytes, 1 request`);
    expect(note).not.toMatch(/x{41}/u);
  });

  it('a trace longer than the run is cut at the run end, and the result says how many were left', () => {
    const sim = simTraceOf(
      traceOf([
        [0, 'a'],
        [999, 'a'],
        [1000, 'a'],
        [4000, 'b'],
      ]),
    );
    const result = simulate(CONFIGS.slice(0, 1), traceScenario(sim), 1000, { traces: [sim] });
    expect(result.arrivals.count).toBe(2);
    expect(result.truncation).toEqual([
      `The access log "access.log" goes on past the run's end: the stage replays its first 2 requests, not the 2 requests after them. Pick the span it replays on the log's overview.`,
    ]);
  });

  it('mixes with generated sources: trace keys stay, the client model keys the rest', () => {
    const sim = simTraceOf(
      traceOf([
        [0, 'x'],
        [10, 'client-1'],
        [20, 'y'],
      ]),
    );
    const sc: Scenario = {
      ...traceScenario(sim, [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 30 }]),
      clients: { count: 2, keying: 'per-client', assign: 'round-robin' },
    };
    const r = simulate(CONFIGS.slice(2, 3), sc, 100, { traces: [sim] });
    const keyOf = (i: number) => r.keyNames[r.clientKey[r.arrivals.client[i] as number] as number];
    const seen = Array.from({ length: r.arrivals.count }, (_, i) => [
      r.arrivals.timeMs[i],
      r.arrivals.source[i],
      keyOf(i),
    ]);
    expect(seen).toEqual([
      [0, 0, 'x'],
      [0, 1, 'client-1'],
      [10, 0, 'client-1'],
      [10, 1, 'client-2'],
      [20, 0, 'y'],
      [20, 1, 'client-1'],
    ]);
    // 'client-1' from the trace is the client model's key: one key to the limiter.
    expect(r.keyNames).toEqual(['client-1', 'client-2', 'x', 'y']);
  });

  it('a cache gives the same result, and loading the trace later recomputes', () => {
    const sim = simTraceOf(
      traceOf([
        [0, 'a'],
        [1, 'a'],
        [2, 'b'],
        [3, 'a'],
      ]),
    );
    const sc = traceScenario(sim);
    const cache = createSimCache();
    const without = simulate(CONFIGS, sc, 1000, { cache });
    expect(without.arrivals.count).toBe(0);
    const withTrace = simulate(CONFIGS, sc, 1000, { cache, traces: [sim] });
    const fresh = simulate(CONFIGS, sc, 1000, { traces: [sim] });
    expect(withTrace.arrivals.count).toBe(4);
    expect(withTrace.lanes.map((l) => [...l.columns.outcome.subarray(0, 4)])).toEqual(
      fresh.lanes.map((l) => [...l.columns.outcome.subarray(0, 4)]),
    );
  });

  it('many keys (over 65,535) keep their identity', () => {
    const n = 70_000;
    const keys = Array.from({ length: n }, (_, i) => `k${i}`);
    const sim: SimTrace = {
      hash: '0123456789abcdef',
      timeMs: Int32Array.from({ length: n }, (_, i) => i * 20),
      keyId: Uint32Array.from({ length: n }, (_, i) => n - 1 - i),
      keys,
    };
    const sc = { ...defaultScenario(), sources: [traceSourceOf(sim, 'big.log', 1)] };
    const r = simulate([CONFIGS[2] as AlgorithmConfig], sc, n * 20, { traces: [sim] });
    expect(r.clientKey).toBeInstanceOf(Uint32Array);
    expect(r.keyNames[r.clientKey[r.arrivals.client[0] as number] as number]).toBe(`k${n - 1}`);
    expect(r.lanes[0]?.metrics.first.rejected).toBe(0);
  });

  it('validation: a bad fingerprint and two traces are refused with the field named', () => {
    const sim = simTraceOf(traceOf([[0, 'a']]));
    const good = traceSourceOf(sim, 'a.log', 10);
    expect(validateScenario(traceScenario(sim))).toEqual([]);
    const issues = validateScenario({
      ...defaultScenario(),
      sources: [{ ...good, hash: 'XYZ' }, good],
    });
    expect(issues.map((i) => i.path)).toEqual(['sources[0].hash', 'sources']);
  });
});
