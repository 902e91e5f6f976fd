/**
 * The parsing worker holds a trace read in ranges with its per-window statistics computed by a
 * range worker from a copy of their input while it computes the fingerprint
 * (src/trace/held.ts `holdTraceBeside`): the result must be `holdTrace`'s, field for field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { holdTrace, windowStatsById } from '../../src/trace';
import type { WindowStatsById } from '../../src/trace';
import { holdTraceBeside } from '../../src/trace/held';
import type { StatsBeside } from '../../src/trace/held';
import { builtFromRows as built } from './csvReport';

/**
 * Ascending arrivals from 2023 on (whole ms, or with a fraction: then not replayable), keys named
 * so their first requests come out of id order, the empty key (`-`) among them.
 */
const rowsArb = fc
  .tuple(
    fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 1500 }),
        fc.constantFrom('e', 'd', '-', 'c', 'b', 'a'),
        fc.constantFrom(1, 1, 1, 3),
      ),
      { minLength: 1, maxLength: 80 },
    ),
    fc.boolean(),
  )
  .map(([steps, fractional]) => {
    let t = 1_700_000_000_000;
    return steps.map(([d, k, c], i): [number, string, number] => {
      t += d;
      return [fractional && i === steps.length - 1 ? t + 0.5 : t, k, c];
    });
  });

/** Statistics computed as another thread does: from a structured copy of their input. */
const elsewhere: StatsBeside = (input, windowMs, top) =>
  Promise.resolve(structuredClone(windowStatsById(structuredClone(input), windowMs, top)));

describe('holdTraceBeside', () => {
  it('holds a trace as holdTrace does, the statistics computed from a copy elsewhere', async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb, async (rows) => {
        const beside = await holdTraceBeside(built(rows), elsewhere);
        expect(beside).toEqual(holdTrace(built(rows)));
      }),
      { numRuns: 300 },
    );
  });

  it('uses the statistics computed elsewhere: names their keys and places their windows on the clock', async () => {
    const rows: [number, string, number][] = [
      [1_700_000_000_000, 'b', 1],
      [1_700_000_000_400, 'a', 1],
      [1_700_000_000_900, 'a', 1],
      [1_700_000_005_000, 'b', 1],
    ];
    // An answer holdTrace would not give (key 1's window at ms 400 after the first request), to
    // see it is the one shown.
    const answer: WindowStatsById = {
      windowMs: 1000,
      p50: 7,
      p90: 8,
      p99: 9,
      max: 9,
      worst: [{ keyId: 1, requests: 9, startMs: 400 }],
    };
    const { held } = await holdTraceBeside(built(rows), () => Promise.resolve(answer));
    expect(held.stats).toEqual({
      windowMs: 1000,
      p50: 7,
      p90: 8,
      p99: 9,
      max: 9,
      worst: [{ key: 'a', requests: 9, startMs: 1_700_000_000_400 }],
    });
  });

  it('computes the statistics itself when elsewhere fails, with the same result', async () => {
    const rows: [number, string, number][] = [
      [1_700_000_000_000, 'b', 1],
      [1_700_000_000_400, 'a', 1],
      [1_700_000_000_900, 'a', 2],
      [1_700_000_000_950, '-', 1],
    ];
    const failing: StatsBeside = () => Promise.reject(new Error('worker gone'));
    expect(await holdTraceBeside(built(rows), failing)).toEqual(holdTrace(built(rows)));
  });
});
