// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { flowPhase, laneOf, matchReleases, stackColumns } from '../../src/viz/requests';
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
});
