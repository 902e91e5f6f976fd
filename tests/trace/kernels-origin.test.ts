/**
 * Windows on the clock in the sweep's kernels: with `originMs` O (the epoch ms a replay's time 0
 * stands for), the clock-aligned algorithms (fixed window, the aligned sliding-window counter,
 * calendar windows, both alignments) decide each request at virtual time t as core decides it at
 * the clock's time t + O. The oracle is core itself on the shifted times. Origins include the
 * last millisecond before a minute, hour, day, month and year edge, where a window placed from the
 * first request and one placed on the clock differ most.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import { belowP99, fastOutcomes, fastSweepCell, prepareSweep, sweepCell } from '../../src/trace';
import type { SimTrace } from '../../src/sim';
import { kernelState, runKernel } from '../../src/trace/kernels';
import { configArb, traceArb, traceOf } from './sweepArbs';
import { pageSweep } from './pageSweep';
import { chunkInput } from './kernelInput';

const ALIGNED = (c: AlgorithmConfig): boolean =>
  c.kind === 'fixed-window' ||
  c.kind === 'calendar-windows' ||
  (c.kind === 'sliding-window-counter' && c.anchor !== 'entry');

/** One ms before each kind of edge, around now and in other years (a leap year's February too). */
const EDGES = [
  Date.UTC(2026, 11, 7, 15, 24, 0), // a minute
  Date.UTC(2026, 11, 7, 16, 0, 0), // an hour
  Date.UTC(2026, 11, 8), // a day
  Date.UTC(2027, 0, 1), // a month and a year
  Date.UTC(2024, 2, 1), // after a leap day
  Date.UTC(2025, 1, 1), // a month of 28 days next
].map((e) => e - 1);

const originArb = fc.oneof(
  fc.constantFrom(...EDGES),
  fc.constantFrom(...EDGES).chain((e) => fc.integer({ min: e - 70_000, max: e + 70_000 })),
  fc.integer({ min: 1_500_000_000_000, max: 1_900_000_000_000 }),
  fc.integer({ min: 0, max: 200_000 }),
);

/** Core's decisions of the trace at the clock's times t + O (the oracle). */
function coreAt(trace: SimTrace, config: AlgorithmConfig, originMs: number) {
  const limiter = createLimiter(config);
  const n = trace.timeMs.length;
  const outcome = new Uint8Array(n);
  const delayMs = new Float64Array(n);
  for (let i = 0; i < n; i += 1) {
    const d = limiter.decide(
      (trace.timeMs[i] as number) + originMs,
      trace.keys[trace.keyId[i] as number],
    );
    outcome[i] = d.outcome === 'admit' ? 0 : d.outcome === 'delay' ? 1 : 2;
    delayMs[i] = d.outcome === 'delay' ? d.delayMs : 0;
  }
  return { outcome, delayMs };
}

const prep = (trace: SimTrace, originMs: number) =>
  prepareSweep({
    timeMs: trace.timeMs,
    keyId: trace.keyId,
    keyCount: trace.keys.length,
    originMs,
  });

describe('the kernels place aligned windows on the clock', () => {
  it('every outcome of an aligned algorithm with origin O equals core at t + O', () => {
    const aligned = configArb.filter(ALIGNED);
    fc.assert(
      fc.property(traceArb, aligned, originArb, (trace, config, originMs) => {
        const fast = fastOutcomes(prep(trace, originMs), config);
        expect(fast).not.toBeNull();
        if (fast === null) return;
        const want = coreAt(trace, config, originMs);
        expect(Array.from(fast.outcome)).toEqual(Array.from(want.outcome));
        expect(Array.from(fast.delayMs)).toEqual(Array.from(want.delayMs));
      }),
      { numRuns: 1500 },
    );
  });

  it('every cell with origin O equals sweepCell with the same origin; the others ignore it', () => {
    fc.assert(
      fc.property(traceArb, configArb, originArb, (trace, config, originMs) => {
        const cell = fastSweepCell(prep(trace, originMs), config, 1000);
        expect(cell).toEqual(sweepCell(trace, config, 1000, belowP99(trace), null, originMs));
        if (!ALIGNED(config)) expect(cell).toEqual(fastSweepCell(prep(trace, 0), config, 1000));
      }),
      { numRuns: 800 },
    );
  });

  it('a streamed run in chunks keeps the origin: the chunks decide as core at t + O', () => {
    fc.assert(
      fc.property(
        traceArb,
        configArb.filter(ALIGNED),
        originArb,
        fc.integer({ min: 1, max: 40 }),
        (trace, config, originMs, size) => {
          const n = trace.timeMs.length;
          const state = kernelState();
          const outcome = new Uint8Array(n);
          for (let from = 0; from < n; from += size) {
            const to = Math.min(n, from + size);
            const out = new Uint8Array(to - from);
            runKernel(
              chunkInput(
                trace.timeMs.subarray(from, to),
                trace.keyId.subarray(from, to),
                trace.keys.length,
                { outcome: out, state, originMs },
              ),
              config,
            );
            outcome.set(out, from);
          }
          expect(Array.from(outcome)).toEqual(Array.from(coreAt(trace, config, originMs).outcome));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('Kong minutes, a log starting 1 ms before a minute: two windows, as Kong counts them', () => {
    // Two requests 2 ms apart across 12:00:00.000 UTC, one key, 1 a minute. Counted from the first
    // request they share one minute (the second is rejected); on the clock each has its own.
    const origin = Date.UTC(2026, 11, 7, 12, 0, 0) - 1;
    const trace = traceOf(
      [
        [0, 0],
        [2, 0],
      ],
      1,
    );
    const config: AlgorithmConfig = { kind: 'calendar-windows', minute: 1 };
    expect(Array.from(fastOutcomes(prep(trace, origin), config)?.outcome ?? [])).toEqual([0, 0]);
    expect(Array.from(fastOutcomes(prep(trace, 0), config)?.outcome ?? [])).toEqual([0, 2]);
    const fixed: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 60_000 };
    expect(fastSweepCell(prep(trace, origin), fixed, 1000).rejected).toBe(0);
    expect(fastSweepCell(prep(trace, 0), fixed, 1000).rejected).toBe(1);
  });

  it('Kong’s counter TTL never ends a month’s or a year’s counter within the kernels’ span', () => {
    // The kernels keep no counter end: a month's TTL (30 d) and a year's (365 d) are longer than
    // the longest span their Int32 times hold (2^31 − 1 ms, under 25 days), so a counter made at
    // time 0 still counts at the last time; core (the oracle) agrees, at the start of a 31-day
    // month and of a leap year.
    const last = 2 ** 31 - 1;
    const trace = traceOf(
      [
        [0, 0],
        [last, 0],
      ],
      1,
    );
    for (const [origin, config] of [
      [Date.UTC(2027, 0, 1), { kind: 'calendar-windows', month: 1, counterTtl: true }],
      [Date.UTC(2024, 0, 1), { kind: 'calendar-windows', year: 1, counterTtl: true }],
      [Date.UTC(2026, 11, 7), { kind: 'calendar-windows', day: 1, month: 5, counterTtl: true }],
    ] as const) {
      const fast = fastOutcomes(prep(trace, origin), config);
      const want = coreAt(trace, config, origin);
      expect(Array.from(fast?.outcome ?? [])).toEqual(Array.from(want.outcome));
      // A month's or year's counter still counts (rejected); a day's period has ended (admitted).
      expect(Array.from(want.outcome)).toEqual(config.day === undefined ? [0, 2] : [0, 0]);
    }
  });

  it('the page’s held sweep (runSweep, here without workers) gives its cells the origin', async () => {
    // Requests of one key every 400 ms from 1 ms before a minute; 5 a second, 20 a minute.
    const origin = Date.UTC(2026, 11, 7, 12, 0, 0) - 1;
    const trace = traceOf(
      Array.from({ length: 600 }, (_, i) => [Math.floor(i / 3) * 400 + (i % 3), 0] as const),
      1,
    );
    const configs: AlgorithmConfig[] = [
      { kind: 'calendar-windows', second: 2, minute: 50 },
      { kind: 'fixed-window', limit: 40, windowMs: 60_000 },
      { kind: 'sliding-window-counter', limit: 6, windowMs: 1000 },
    ];
    const cells = (originMs: number) => pageSweep(trace, configs, 1000, null, originMs);
    const got = await cells(origin);
    configs.forEach((c, i) => {
      const want = coreAt(trace, c, origin);
      expect(got[i]!.rejected).toBe(want.outcome.filter((o) => o === 2).length);
    });
    // Counted from the first request instead, the numbers differ.
    expect(await cells(0)).not.toEqual(got);
  });
});
