// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flowPhase, laneOf, matchReleases, stackColumns } from '../../src/viz/requests';
import { slide } from '../../src/viz/slide';
import type { VizRequest } from '../../src/viz';

function req(over: Partial<VizRequest> & Pick<VizRequest, 'id' | 'arrivalMs'>): VizRequest {
  return {
    key: 'default',
    outcome: 'admit',
    delayMs: 0,
    releaseMs: over.arrivalMs,
    retryAfterMs: 0,
    status: 200,
    attempt: 1,
    ...over,
  };
}

describe('flowPhase: where a request is, from the virtual clock alone', () => {
  const travel = 400;
  const linger = 300;

  it('an admitted request comes in, passes to the backend, stays, then goes', () => {
    const r = req({ id: 1, arrivalMs: 1000 });
    expect(flowPhase(r, 500, travel, linger)).toBeNull();
    expect(flowPhase(r, 700, travel, linger)).toEqual({ phase: 'incoming', progress: 0.25 });
    expect(flowPhase(r, 1000, travel, linger)).toEqual({ phase: 'to-backend', progress: 0 });
    expect(flowPhase(r, 1200, travel, linger)).toEqual({ phase: 'to-backend', progress: 0.5 });
    expect(flowPhase(r, 1400, travel, linger)).toEqual({ phase: 'at-backend', progress: 0 });
    expect(flowPhase(r, 1700, travel, linger)).toBeNull();
  });

  it('a delayed request waits in the limiter until its release', () => {
    const r = req({ id: 2, arrivalMs: 1000, outcome: 'delay', delayMs: 250, releaseMs: 1250 });
    expect(flowPhase(r, 1000, travel, linger)).toEqual({ phase: 'waiting', leftMs: 250 });
    expect(flowPhase(r, 1249, travel, linger)).toEqual({ phase: 'waiting', leftMs: 1 });
    expect(flowPhase(r, 1250, travel, linger)).toEqual({ phase: 'to-backend', progress: 0 });
  });

  it('a rejected request bounces back to the client', () => {
    const r = req({ id: 3, arrivalMs: 1000, outcome: 'reject', retryAfterMs: 900, status: 429 });
    expect(flowPhase(r, 1100, travel, linger)).toEqual({ phase: 'bounce', progress: 0.25 });
    expect(flowPhase(r, 1400, travel, linger)).toEqual({ phase: 'at-client', progress: 0 });
    expect(flowPhase(r, 1700, travel, linger)).toBeNull();
  });

  it('progress always lies in [0, 1) and a request is drawn for exactly travel + its wait + travel + linger', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('admit', 'delay', 'reject' as const),
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: -5000, max: 10000 }),
        (outcome, delayMs, travelMs, lingerMs, dt) => {
          const d = outcome === 'delay' ? Math.max(1, delayMs) : 0;
          const r = req({ id: 1, arrivalMs: 10_000, outcome, delayMs: d, releaseMs: 10_000 + d });
          const p = flowPhase(r, 10_000 + dt, travelMs, lingerMs);
          const end = (outcome === 'delay' ? d : 0) + travelMs + lingerMs;
          expect(p !== null).toBe(dt >= -travelMs && dt < end);
          if (p !== null && 'progress' in p) {
            expect(p.progress).toBeGreaterThanOrEqual(0);
            expect(p.progress).toBeLessThan(1);
          }
          if (p?.phase === 'waiting') expect(outcome).toBe('delay');
          if (p?.phase === 'bounce' || p?.phase === 'at-client') expect(outcome).toBe('reject');
        },
      ),
    );
  });
});

describe('matchReleases', () => {
  it('pairs each pending release with the delayed request of the same key leaving then', () => {
    const a = req({ id: 1, arrivalMs: 0, outcome: 'delay', delayMs: 100, releaseMs: 100 });
    const b = req({ id: 2, arrivalMs: 0, outcome: 'delay', delayMs: 100, releaseMs: 100 });
    const other = req({
      id: 3,
      arrivalMs: 0,
      key: 'b',
      outcome: 'delay',
      delayMs: 200,
      releaseMs: 200,
    });
    const m = matchReleases([100, 100, 200], [other, b, a], 'default');
    expect(m.map((q) => q.request?.id)).toEqual([1, 2, undefined]);
  });
});

describe('layout helpers', () => {
  it('laneOf spreads ids over lanes, also negative ones', () => {
    expect([0, 1, 2, 3, 4, 5].map((id) => laneOf(id, 4))).toEqual([0, 1, 2, 3, 0, 1]);
    expect(laneOf(-1, 4)).toBe(3);
  });

  it('stackColumns stacks marks on the same pixel column', () => {
    const s = stackColumns([10, 10.5, 30, 10], (x) => x, 6);
    expect(s.map((m) => m.level)).toEqual([0, 1, 0, 2]);
  });

  it('stackColumns with an origin: columns start there', () => {
    // 6 px columns from x = 2: [−1, 5) and [5, 11) once rounded; 4.9 and 5.1 fall apart.
    expect(stackColumns([4.9, 5.1, 3], (x) => x, 6, 2).map((m) => m.level)).toEqual([0, 0, 1]);
    expect(stackColumns([4.9, 5.1, 3], (x) => x, 6).map((m) => m.level)).toEqual([0, 1, 2]);
  });

  it('stackColumns: marks and origin sliding together keep every level', () => {
    // Whole-ms arrivals at 1 px per ms on a 7 px grid: no mark sits on a column boundary.
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 60 }),
        fc.integer({ min: -5000, max: 5000 }),
        (times, shift) => {
          const sorted = [...times].sort((a, b) => a - b);
          const at = (offset: number) =>
            stackColumns(sorted, (t) => t + offset, 7, offset).map((m) => m.level);
          expect(at(shift)).toEqual(at(0));
        },
      ),
    );
  });

  it('stackColumns gives the levels of a count per column, in any input order, and hands an unmoved object its entry again', () => {
    const reference = (xs: readonly number[], columnPx: number, origin: number) => {
      const heights = new Map<number, number>();
      return xs.map((x) => {
        const bin = Math.round((x - origin) / columnPx);
        const level = heights.get(bin) ?? 0;
        heights.set(bin, level + 1);
        return level;
      });
    };
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -500, max: 2000 }), { maxLength: 80 }),
        fc.boolean(),
        fc.integer({ min: -20, max: 20 }),
        (times, sort, origin) => {
          const xs = sort ? [...times].sort((a, b) => a - b) : times;
          const items = xs.map((x) => ({ x }));
          const first = stackColumns(items, (i) => i.x, 7, origin);
          expect(first.map((m) => m.level)).toEqual(reference(xs, 7, origin));
          expect(first.map((m) => m.item)).toEqual(items);
          // The same items again: the same entries; one moved: a new entry for it.
          const again = stackColumns(items, (i) => i.x, 7, origin);
          again.forEach((m, k) => expect(m).toBe(first[k]));
          if (items.length > 0) {
            const moved = stackColumns(items, (i) => (i === items[0] ? i.x + 0.5 : i.x), 7, origin);
            expect(moved[0]).not.toBe(first[0]);
            expect(moved[0]?.x).toBe(xs[0]! + 0.5);
          }
        },
      ),
    );
  });

  it('slide: the group plus the position in it is where the axis draws t, to 0.1 px', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 86_400_000 }),
        fc.integer({ min: -3000, max: 3000 }),
        fc.double({ min: -500, max: 1500, noNaN: true }),
        fc.double({ min: 0.001, max: 5, noNaN: true }),
        // A period of at most 20,000 px (the views use under 8,000): px() clamps at 100,000.
        fc.integer({ min: 1, max: 20_000 }),
        (nowMs, dt, nowPx, pxPerMs, periodPx) => {
          const s = slide(nowMs, nowPx, pxPerMs, Math.max(1, Math.floor(periodPx / pxPerMs)));
          const t = nowMs + dt;
          expect(Math.abs(s.shiftPx + s.at(t) - (nowPx + dt * pxPerMs))).toBeLessThanOrEqual(
            0.1001,
          );
        },
      ),
    );
  });

  it('slide: within one period a time keeps its place in the group while the clock moves', () => {
    const a = slide(12_000, 600, 0.34, 8000);
    const b = slide(15_999, 600, 0.34, 8000);
    expect(b.at(11_500)).toBe(a.at(11_500));
    expect(b.shiftPx).toBeCloseTo(a.shiftPx - 3999 * 0.34, 1);
    // The next period moves the base: positions change once, the drawing does not.
    const c = slide(16_000, 600, 0.34, 8000);
    expect(c.shiftPx + c.at(11_500)).toBeCloseTo(600 + (11_500 - 16_000) * 0.34, 1);
  });
});
