/**
 * Calendar-windows cells that count every request (Envoy's service counts over-limit hits;
 * shadow mode counts all) share one counter per unit and alignment in a streamed sweep
 * (src/trace/kernels.ts CalendarCounter, calendarCounted; src/trace/streamSweep.ts SweepCells):
 * each request's outcome equals the calendar kernel's, chunk by chunk, and every cell of a grid
 * whose cells differ only in their limits equals core's limiter (sweepCell). And the calendar
 * kernel's loop for one or two units (Kong's and Envoy's grids), held and streamed, equals core.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig, CalendarWindowsConfig } from '../../src/core';
import type { SimTrace } from '../../src/sim';
import {
  SweepCells,
  belowP99,
  belowByName,
  fastSweepCell,
  prepareSweep,
  sweepCell,
  sweepPlan,
} from '../../src/trace';
import {
  CalendarCounter,
  calendarCounted,
  calendarUnitsOf,
  kernelState,
  runKernel,
} from '../../src/trace/kernels';
import { systemById } from '../../src/systems';
import { traceArb } from './sweepArbs';
import { chunkInput } from './kernelInput';

/** Calendar configs that count every request: countRejected, shadow mode, or both. */
const countingArb: fc.Arbitrary<CalendarWindowsConfig> = fc
  .record({
    second: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    minute: fc.option(fc.integer({ min: 1, max: 12 }), { nil: undefined }),
    hour: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
    day: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
    month: fc.option(fc.integer({ min: 1, max: 80 }), { nil: undefined }),
    align: fc.constantFrom('calendar' as const, 'epoch' as const),
    counting: fc.constantFrom('countRejected', 'shadowMode', 'both'),
    counterTtl: fc.boolean(),
  })
  .map(({ counting, ...r }) => {
    const out: Record<string, unknown> = { kind: 'calendar-windows' };
    for (const [f, v] of Object.entries(r)) if (v !== undefined) out[f] = v;
    if (!['second', 'minute', 'hour', 'day', 'month'].some((u) => u in out)) out.minute = 2;
    if (counting !== 'shadowMode') out.countRejected = true;
    if (counting !== 'countRejected') out.shadowMode = true;
    return out as unknown as CalendarWindowsConfig;
  });

/** The epoch ms time 0 stands for: 0, or a request 1 ms before a minute's and a month's edge. */
const originArb = fc.constantFrom(0, Date.UTC(2026, 0, 31, 23, 59, 59, 999));

/** Hands a trace's requests to the cells `chunk` at a time, as the streamed sweep reads them. */
function pushInChunks(cells: SweepCells, trace: SimTrace, chunk: number, originMs: number): void {
  const n = trace.timeMs.length;
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk);
    cells.push(
      trace.timeMs.slice(from, to),
      trace.keyId.slice(from, to),
      to - from,
      trace.keys,
      originMs,
    );
  }
}
/** A KernelInput over one chunk that records each request's outcome. */
function recordingInput(t: Int32Array, k: Uint32Array, keyCount: number, originMs: number) {
  return chunkInput(t, k, keyCount, {
    below: new Uint8Array(keyCount).fill(1),
    outcome: new Uint8Array(t.length),
    originMs,
  });
}

describe('calendar cells that count every request, from shared counts', () => {
  it('decide each request as the calendar kernel does, chunk by chunk', () => {
    fc.assert(
      fc.property(
        traceArb,
        fc.array(countingArb, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 40 }),
        originArb,
        (trace, configs, chunk, originMs) => {
          const n = trace.timeMs.length;
          const keyCount = trace.keys.length;
          const counters = new Map<string, CalendarCounter>();
          const counterOf = (c: CalendarWindowsConfig) =>
            calendarUnitsOf(c).map((u) => {
              const id = `${u} ${c.align ?? 'calendar'}`;
              if (!counters.has(id))
                counters.set(id, new CalendarCounter(u, c.align ?? 'calendar'));
              return counters.get(id) as CalendarCounter;
            });
          const shared = configs.map(counterOf);
          const states = configs.map(() => kernelState());
          for (let from = 0; from < n; from += chunk) {
            const to = Math.min(n, from + chunk);
            const t = trace.timeMs.slice(from, to);
            const k = trace.keyId.slice(from, to);
            const counts = new Map<CalendarCounter, Int32Array>();
            for (const c of counters.values()) counts.set(c, c.run(t, k, keyCount, originMs));
            configs.forEach((config, i) => {
              const want = recordingInput(t, k, keyCount, originMs);
              want.state = states[i];
              const wantTally = runKernel(want, config);
              const got = recordingInput(t, k, keyCount, originMs);
              const gotTally = calendarCounted(
                got,
                config,
                (shared[i] as CalendarCounter[]).map((c) => counts.get(c) as Int32Array),
              );
              expect(gotTally).toEqual(wantTally);
              expect(Array.from(got.outcome ?? [])).toEqual(Array.from(want.outcome ?? []));
              expect(Array.from(got.adm.subarray(0, gotTally.admitted))).toEqual(
                Array.from(want.adm.subarray(0, gotTally.admitted)),
              );
              // Without outcomes (as the sweep runs it: one or two units take a loop of their own).
              const bare = recordingInput(t, k, keyCount, originMs);
              bare.outcome = undefined;
              const bareTally = calendarCounted(
                bare,
                config,
                (shared[i] as CalendarCounter[]).map((c) => counts.get(c) as Int32Array),
              );
              expect(bareTally).toEqual(wantTally);
              expect(Array.from(bare.adm.subarray(0, bareTally.admitted))).toEqual(
                Array.from(want.adm.subarray(0, bareTally.admitted)),
              );
            });
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a grid of one config’s limits, streamed in chunks, equals core cell by cell', () => {
    fc.assert(
      fc.property(
        traceArb,
        countingArb,
        fc.integer({ min: 1, max: 40 }),
        originArb,
        (trace, base, chunk, originMs) => {
          // Cells that differ only in their limits share every counter; one without its longest
          // unit (the sweep's "none") shares the others; one with the other alignment, none.
          const units = calendarUnitsOf(base);
          const grid: AlgorithmConfig[] = [];
          for (const scale of [1, 2, 5]) {
            const c: Record<string, unknown> = { ...base };
            for (const u of units) c[u] = Math.max(1, Math.round((base[u] as number) / scale));
            grid.push(c as unknown as AlgorithmConfig);
          }
          // The other alignment counts in counters of its own.
          grid.push({ ...base, align: base.align === 'epoch' ? 'calendar' : 'epoch' });
          if (units.length > 1) {
            const c: Record<string, unknown> = { ...base };
            delete c[units[units.length - 1] as string];
            grid.push(c as unknown as AlgorithmConfig);
          }
          const counts = new Float64Array(trace.keys.length);
          for (const k of trace.keyId) counts[k] = (counts[k] as number) + 1;
          const cells = new SweepCells(grid, 1000, belowByName(trace.keys, counts));
          pushInChunks(cells, trace, chunk, originMs);
          const got = cells.finish();
          grid.forEach((c, i) => {
            expect(got[i]).toEqual({
              ok: true,
              result: sweepCell(trace, c, 1000, belowP99(trace), null, originMs),
            });
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('Envoy’s service: the 20 × 20 grid of its default config, streamed, equals core', () => {
    const system = systemById('envoy-global');
    const plan = system === undefined ? null : sweepPlan(system.defaultConfig, 20, system.params);
    expect(plan).not.toBeNull();
    if (plan === null) return;
    const grid: AlgorithmConfig[] = [];
    for (let x = 0; x < plan.x.values.length; x += 1)
      for (let y = 0; y < plan.y.values.length; y += 1) grid.push(plan.configAt(x, y));
    // Five keys, one much busier, over three hours: minute and hour limits both bite.
    const rows: [number, number][] = [];
    let t = 0;
    for (let i = 0; i < 6000; i += 1) {
      t += (i * 7919) % 3600;
      rows.push([t, i % 3 === 0 ? 0 : (i * 31) % 5]);
    }
    const keys = Array.from({ length: 5 }, (_, i) => `client-${i}`);
    const trace = {
      hash: '',
      timeMs: Int32Array.from(rows.map((r) => r[0])),
      keyId: Uint32Array.from(rows.map((r) => r[1])),
      keys,
    };
    const originMs = Date.UTC(2026, 2, 2, 0, 0, 30);
    const below = belowP99(trace);
    const cells = new SweepCells(grid, 1000, below);
    for (let from = 0; from < rows.length; from += 1000) {
      const to = Math.min(rows.length, from + 1000);
      cells.push(
        trace.timeMs.slice(from, to),
        trace.keyId.slice(from, to),
        to - from,
        keys,
        originMs,
      );
    }
    const got = cells.finish();
    const rejected = new Set<number>();
    grid.forEach((c, i) => {
      const want = sweepCell(trace, c, 1000, below, null, originMs);
      rejected.add(want.rejected);
      expect(got[i]).toEqual({ ok: true, result: want });
    });
    // The grid is not trivial: its cells reject different numbers of requests.
    expect(rejected.size).toBeGreaterThan(50);
  });
});

/** Calendar configs of one or two units (any of them), counting or not, either alignment. */
const upToTwoArb: fc.Arbitrary<CalendarWindowsConfig> = fc
  .record({
    units: fc.uniqueArray(fc.constantFrom('second', 'minute', 'hour', 'day', 'month', 'year'), {
      minLength: 1,
      maxLength: 2,
    }),
    limits: fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 30 })),
    align: fc.constantFrom('calendar' as const, 'epoch' as const),
    countRejected: fc.boolean(),
    counterTtl: fc.boolean(),
    shadowMode: fc.boolean(),
  })
  .map(({ units, limits, ...rest }) => {
    const out: Record<string, unknown> = { kind: 'calendar-windows', ...rest };
    units.forEach((u, i) => (out[u] = limits[i]));
    return out as unknown as CalendarWindowsConfig;
  });

describe('the calendar kernel with one or two units', () => {
  it('held, and streamed in chunks, equals core', () => {
    fc.assert(
      fc.property(
        traceArb,
        fc.array(upToTwoArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 40 }),
        originArb,
        (trace, configs, chunk, originMs) => {
          const below = belowP99(trace);
          const prep = prepareSweep({
            timeMs: trace.timeMs,
            keyId: trace.keyId,
            keyCount: trace.keys.length,
            originMs,
          });
          const cells = new SweepCells(configs, 1000, below);
          pushInChunks(cells, trace, chunk, originMs);
          const got = cells.finish();
          configs.forEach((c, i) => {
            const want = sweepCell(trace, c, 1000, below, null, originMs);
            expect(fastSweepCell(prep, c, 1000)).toEqual(want);
            expect(got[i]).toEqual({ ok: true, result: want });
          });
        },
      ),
      { numRuns: 1000 },
    );
  });
});
