/**
 * createLimiter(config, { originMs }): virtual time 0 stands for epoch ms originMs. The property
 * that defines it: a limiter with origin O decides at virtual t exactly as a limiter with origin 0
 * decides at t + O, and every time it shows (inspections, state snapshots) is that limiter's less O.
 * Algorithms without windows on the clock ignore the origin altogether.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { MAX_TIME_MS, createLimiter, createSharedLimiter } from '../../src/core';
import type { AlgorithmConfig, Inspection, Limiter } from '../../src/core';
import { configArb, FC_SEED, KINDS, runs } from './arbitraries';

vi.setConfig({ testTimeout: 120_000 });

const opts = (numRuns: number) => ({ seed: FC_SEED, numRuns: runs(numRuns) });

const ALIGNED = new Set(['fixed-window', 'calendar-windows']);
const aligned = (c: AlgorithmConfig): boolean =>
  ALIGNED.has(c.kind) || (c.kind === 'sliding-window-counter' && c.anchor !== 'entry');

/** Origins 1 ms before (and on) UTC edges of a second, minute, hour, day, month and year. */
const EDGES = [
  Date.UTC(2026, 11, 7, 15, 23, 48), // a second
  Date.UTC(2026, 11, 7, 15, 24), // a minute
  Date.UTC(2026, 11, 7, 16), // an hour
  Date.UTC(2026, 11, 8), // a day
  Date.UTC(2024, 2, 1), // 1 March of a leap year
  Date.UTC(2026, 1, 1), // a month
  Date.UTC(2027, 0, 1), // a year
];

const originArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...EDGES.map((e) => e - 1), ...EDGES) },
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 2 ** 42 }) }, // to the year 2109
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 120_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -(2 ** 42), max: -1 }) },
);

/** Virtual times from 0, in steps that cross second, minute, hour and day edges. */
const timesArb: fc.Arbitrary<number[]> = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(0) },
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 2000 }) },
      { weight: 2, arbitrary: fc.integer({ min: 1, max: 120_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 * 86_400_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: -3000, max: -1 }) },
    ),
    { minLength: 1, maxLength: 40 },
  )
  .map((steps) => {
    let t = 0;
    return steps.map((dt) => (t += dt));
  });

/** The fields of an inspection that are times (not lengths), shifted by `by`. */
function shifted(i: Inspection, by: number): Inspection {
  const o = structuredClone(i) as unknown as Record<string, unknown>;
  for (const f of ['nowMs', 'effectiveNowMs', 'windowStartMs', 'windowEndMs']) {
    if (typeof o[f] === 'number') o[f] = o[f] + by;
  }
  if (Array.isArray(o.windows)) {
    for (const w of o.windows as Record<string, number>[]) {
      w.startMs = (w.startMs as number) + by;
      w.endMs = (w.endMs as number) + by;
      w.expiresAtMs = (w.expiresAtMs as number) + by;
    }
  }
  return o as unknown as Inspection;
}

/** A calendar-windows state snapshot's times shifted by `by` (other kinds hold no times there). */
function shiftedState(l: Limiter, key: string, by: number): unknown {
  const s = structuredClone(l.getState(key)) as
    | { state: { lastMs?: number; counters?: ({ startMs: number; expiresAtMs: number } | null)[] } }
    | undefined;
  if (s?.state.counters === undefined) return s;
  s.state.lastMs = (s.state.lastMs as number) + by;
  for (const c of s.state.counters) {
    if (c === null) continue;
    c.startMs += by;
    c.expiresAtMs += by;
  }
  return s;
}

const keyOf = (i: number): string => (i % 3 === 1 ? 'b' : 'a');

describe('createLimiter(config, { originMs })', () => {
  for (const kind of KINDS) {
    it(`${kind}: at virtual t it decides as origin 0 at t + originMs, its times less originMs`, () => {
      fc.assert(
        fc.property(configArb[kind], originArb, timesArb, (config, origin, times) => {
          const placed = createLimiter(config, { originMs: origin });
          const isAligned = aligned(config);
          // Today's limiter at epoch times; a limiter without windows on the clock ignores the
          // origin, so it is compared at the same virtual times.
          const today = createLimiter(config);
          const by = isAligned ? origin : 0;
          times.forEach((t, i) => {
            const key = keyOf(i);
            expect(placed.inspect(t, key)).toEqual(shifted(today.inspect(t + by, key), -by));
            expect(placed.decide(t, key)).toEqual(today.decide(t + by, key));
            expect(placed.inspect(t, key)).toEqual(shifted(today.inspect(t + by, key), -by));
            if (config.kind === 'calendar-windows') {
              expect(placed.getState(key)).toEqual(shiftedState(today, key, -by));
            }
          });
          expect(placed.originMs).toBe(origin);
          // Copies keep the origin: a clone decides on as the original does.
          const copy = placed.clone();
          expect(copy.originMs).toBe(origin);
          expect(copy.sameStateAs(placed, times[times.length - 1] as number)).toBe(true);
          const last = (times[times.length - 1] as number) + 1;
          expect(copy.decide(last, 'a')).toEqual(today.decide(last + by, 'a'));
        }),
        opts(150),
      );
    });
  }

  it('places a minute window on the clock: two requests in two clock minutes, one apart', () => {
    const origin = Date.UTC(2026, 11, 7, 12, 0, 59, 900); // 12:00:59.900
    const l = createLimiter(
      { kind: 'fixed-window', limit: 1, windowMs: 60_000 },
      { originMs: origin },
    );
    expect(l.decide(0).outcome).toBe('admit');
    // 12:01:00.000, 100 ms later: a new window on the clock (a window from virtual 0 would reject).
    const d = l.decide(100);
    expect(d.outcome).toBe('admit');
    expect(d.resetMs).toBe(60_000);
    const i = l.inspect(100);
    expect(i.kind === 'fixed-window' && [i.windowStartMs, i.windowEndMs]).toEqual([100, 60_100]);
  });

  it('places calendar months on the real calendar', () => {
    // 31 January 2026 23:59:59.999 UTC: the month ends 1 ms after virtual 0.
    const origin = Date.UTC(2026, 1, 1) - 1;
    const l = createLimiter({ kind: 'calendar-windows', month: 1 }, { originMs: origin });
    expect(l.decide(0).outcome).toBe('admit');
    expect(l.decide(0).outcome).toBe('reject');
    expect(l.decide(1).outcome).toBe('admit'); // 1 February
    const i = l.inspect(1);
    expect(i.kind === 'calendar-windows' && i.windows[0]).toMatchObject({
      startMs: 1,
      endMs: 1 + 28 * 86_400_000, // February 2026 has 28 days
    });
  });

  it('the shared store keeps the origin (Traefik’s Redis bucket included)', () => {
    const c: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 1000 };
    expect(createSharedLimiter(c, { originMs: 1500 }).originMs).toBe(1500);
    const t = createSharedLimiter(
      { kind: 'token-bucket', maxTokens: 2, tokensPerFill: 1, fillIntervalMs: 100, idleResetS: 1 },
      { originMs: 7 },
    );
    expect(t.originMs).toBe(7);
    expect(t.clone().originMs).toBe(7);
  });

  it('rejects an origin that is not a whole number of ms in range, saying which', () => {
    const c: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 1000 };
    for (const bad of [0.5, Number.NaN, Infinity, MAX_TIME_MS + 1, -MAX_TIME_MS - 1, 2 ** 53]) {
      expect(() => createLimiter(c, { originMs: bad })).toThrow(RangeError);
      expect(() => createLimiter(c, { originMs: bad })).toThrow(/originMs must be a whole number/);
    }
    expect(() => createLimiter(c, { originMs: '5' as unknown as number })).toThrow(
      /originMs must be a whole number.*got .*5/,
    );
    expect(createLimiter(c, { originMs: -MAX_TIME_MS }).originMs).toBe(-MAX_TIME_MS);
    expect(createLimiter(c).originMs).toBe(0);
  });
});
