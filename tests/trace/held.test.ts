import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HELD_STATS_WINDOW_MS,
  arrivalsOf,
  costsOf,
  heldVirtualTimes,
  holdTrace,
  nameWorst,
  simTraceOf,
  topKeys,
  virtualTimes,
  windowStats,
  windowStatsById,
} from '../../src/trace';
import { builtFromRows as built } from './csvReport';

/** Ascending whole-ms arrivals from 2023 on, keys a–e, costs mostly 1. */
const rowsArb = (maxStep: number, cost: fc.Arbitrary<number>) =>
  fc
    .array(
      fc.tuple(
        fc.integer({ min: 0, max: maxStep }),
        fc.constantFrom('a', 'b', 'c', 'd', 'e'),
        cost,
      ),
      {
        minLength: 1,
        maxLength: 60,
      },
    )
    .map((steps) => {
      let t = 1_700_000_000_000;
      return steps.map(([d, k, c]): [number, string, number] => {
        t += d;
        return [t, k, c];
      });
    });

describe('the trace as the page holds it', () => {
  it('keeps every arrival exactly, the replay times, fingerprint, costs and statistics', () => {
    fc.assert(
      fc.property(rowsArb(5000, fc.constantFrom(1, 1, 1, 3)), (rows) => {
        const t = built(rows);
        const { held, replay } = holdTrace(built(rows));
        expect(held.times).toBeInstanceOf(Int32Array);
        expect(held.times.BYTES_PER_ELEMENT).toBe(4);
        expect(Array.from(arrivalsOf(held))).toEqual(Array.from(t.arrivalMs));
        expect(Array.from(heldVirtualTimes(held) ?? [])).toEqual(Array.from(virtualTimes(t)));
        expect(replay).toEqual({ ok: true, hash: simTraceOf(t).hash });
        const allOne = rows.every((r) => r[2] === 1);
        expect(held.cost === null).toBe(allOne);
        expect(Array.from(costsOf(held))).toEqual(Array.from(t.cost));
        expect(held.top).toEqual(topKeys(t, 5));
        expect(held.stats).toEqual(windowStats(t, HELD_STATS_WINDOW_MS, 5));
      }),
      { numRuns: 300 },
    );
  });

  it('requests per W from the held offsets equal those from the arrivals, for any W', () => {
    fc.assert(
      fc.property(rowsArb(3000, fc.constant(1)), fc.integer({ min: 1, max: 20_000 }), (rows, w) => {
        const t = built(rows);
        const { held } = holdTrace(built(rows));
        const fromHeld = nameWorst(
          windowStatsById({ ...held, keyCount: held.keys.length, arrivalMs: held.times }, w, 5),
          held.keys,
        );
        for (const x of fromHeld.worst) x.startMs += held.baseMs;
        expect(fromHeld).toEqual(windowStats(t, w, 5));
      }),
      { numRuns: 300 },
    );
  });

  it('a span over 24 days keeps the arrivals themselves and says why it cannot be replayed', () => {
    const rows: [number, string, number][] = [
      [1_700_000_000_000, 'a', 1],
      [1_700_000_000_000 + 2 ** 31, 'b', 1],
    ];
    const { held, replay } = holdTrace(built(rows));
    expect(held.times).toBeInstanceOf(Float64Array);
    expect(held.baseMs).toBe(0);
    expect(heldVirtualTimes(held)).toBeNull();
    expect(Array.from(arrivalsOf(held))).toEqual(rows.map((r) => r[0]));
    expect(replay.ok).toBe(false);
    expect(replay.ok ? '' : replay.message).toMatch(/24 days/);
  });

  it('a fractional arrival is kept as it is, not rounded, and is not replayed', () => {
    const rows: [number, string, number][] = [
      [1_700_000_000_000.5, 'a', 1],
      [1_700_000_000_002, 'b', 1],
    ];
    const { held, replay } = holdTrace(built(rows));
    expect(Array.from(arrivalsOf(held))).toEqual(rows.map((r) => r[0]));
    expect(replay).toEqual({
      ok: false,
      message: 'The trace cannot be replayed: its arrivals are not whole milliseconds.',
    });
  });
});
