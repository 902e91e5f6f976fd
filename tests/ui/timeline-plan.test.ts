/**
 * the timeline plans its lanes without reducing a dense one (its own `LaneMarks` reduces
 * it, so a large result renders lane by lane in slices). The plan must choose exactly what the
 * single reduction chose before: individual marks iff at most 1,500 requests are in view, ≥ 3 px
 * each on average, and at most 2 of one outcome in a pixel column; and the counts drawn are
 * `outcomeColumns`'.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LaneColumns, SimResult } from '../../src/sim';
import { outcomeColumns } from '../../src/viz/laneSeries';
import { laneReduction, planLanes } from '../../src/viz/Timeline';

function lane(times: number[], outcomes: number[]): LaneColumns {
  const rows = times.length;
  return {
    rows,
    arrivalMs: Int32Array.from(times),
    origin: new Int32Array(rows),
    attempt: new Uint8Array(rows).fill(1),
    outcome: Uint8Array.from(outcomes),
    instance: new Uint8Array(rows),
    waitMs: new Int32Array(rows),
    remaining: new Int32Array(rows),
    resetMs: new Int32Array(rows),
  };
}

/** A result holding only what the plan reads: each lane's columns. */
function resultOf(lanes: LaneColumns[]): SimResult {
  return { lanes: lanes.map((columns) => ({ columns })) } as unknown as SimResult;
}

/** The choice as the timeline made it before, from one full reduction. */
function chosenBefore(columns: LaneColumns, fromMs: number, toMs: number, cols: number) {
  const agg = outcomeColumns(columns, fromMs, toMs, cols);
  const n = agg.end - agg.start;
  return { agg, individual: n <= 1500 && n * 3 <= cols && agg.maxCount <= 2 };
}

const rowsArb = fc.array(
  fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 2 })),
  {
    maxLength: 2500,
  },
);

describe('planLanes and laneReduction', () => {
  it('choose marks or bars as one full reduction did, and draw its counts (property)', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 0, max: 4000 }),
        fc.integer({ min: 1, max: 6000 }),
        fc.integer({ min: 1, max: 2000 }),
        (rows, fromMs, spanMs, cols) => {
          rows.sort((a, b) => a[0] - b[0]);
          // Fresh columns each run: the reductions are cached per columns object.
          const columns = lane(
            rows.map((r) => r[0]),
            rows.map((r) => r[1]),
          );
          const toMs = fromMs + spanMs;
          const want = chosenBefore(columns, fromMs, toMs, cols);
          const [plan] = planLanes(resultOf([columns]), [0], fromMs, toMs, cols);
          expect(plan?.individual).toBe(want.individual);
          // Marks are only ever drawn from a reduction made in the plan.
          if (plan?.individual === true) expect(plan.agg).not.toBeNull();
          const agg = plan?.agg ?? laneReduction(columns, fromMs, toMs, cols)?.agg;
          expect(agg).toEqual(want.agg);
          expect(laneReduction(columns, fromMs, toMs, cols)?.individual).toBe(want.individual);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves a dense lane unreduced, for its own render to reduce, and reuses any reduction', () => {
    const times: number[] = [];
    const outcomes: number[] = [];
    for (let i = 0; i < 60_000; i += 1) {
      times.push(Math.floor(i / 3));
      outcomes.push((i * 7919) % 3);
    }
    const dense = lane(times, outcomes);
    const sparse = lane([10, 500, 900], [0, 2, 1]);
    const result = resultOf([dense, sparse]);
    const plan = planLanes(result, [0, 1], 0, 20_000, 600);
    expect(plan.map((p) => [p.lane, p.individual, p.agg === null])).toEqual([
      [0, false, true],
      [1, true, false],
    ]);
    // The lane's render reduces it once; a plan after that takes the same reduction.
    const made = laneReduction(dense, 0, 20_000, 600);
    expect(made?.agg).toEqual(outcomeColumns(dense, 0, 20_000, 600));
    expect(planLanes(result, [0], 0, 20_000, 600)[0]?.agg).toBe(made?.agg);
    // Another width or range is another reduction.
    expect(planLanes(result, [0], 0, 20_000, 601)[0]?.agg).toBeNull();
    expect(laneReduction(dense, 0, 10_000, 600)?.agg).not.toBe(made?.agg);
  });
});
