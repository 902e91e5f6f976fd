/**
 * The simulator's fast path (speed): keys found by a small integer (useKeyIndex,
 * decideKey, stateSizeKey) decide and measure exactly as the public `decide` / `stateSize`; and
 * `sameStateAs`, which lets a run drop its "beyond the limit" oracle, only says yes when the two
 * limiters really decide every later request alike.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Decision, Limiter } from '../../src/core';
import { configArb, FC_SEED, KINDS, runs, traceArb } from './arbitraries';
import type { TraceEvent } from './arbitraries';

vi.setConfig({ testTimeout: 120_000 });

const opts = (numRuns: number) => ({ seed: FC_SEED, numRuns: runs(numRuns) });

/** k0 – k2 have slots; k3 does not (a key outside the run's list still works, through the Map). */
const INDEX = new Map([
  ['k0', 0],
  ['k1', 1],
  ['k2', 2],
]);

const slot = (key: string): number => INDEX.get(key) ?? -1;

/** Non-decreasing times only (what a run without clock jumps feeds). */
const monotonic = (trace: readonly TraceEvent[]): TraceEvent[] => {
  let t = Number.NEGATIVE_INFINITY;
  return trace.map((e) => {
    t = Math.max(t, e.nowMs);
    return { ...e, nowMs: t };
  });
};

const states = (l: Limiter): Array<[string, unknown]> =>
  [...l.keys()].sort().map((k) => [k, l.getState(k)]);

describe('keys by index', () => {
  for (const kind of KINDS) {
    it(`${kind}: decideKey and stateSizeKey give exactly what decide and stateSize give`, () => {
      fc.assert(
        fc.property(
          configArb[kind],
          traceArb({ keys: 4, maxLength: 40 }),
          fc.integer({ min: 0, max: 40 }),
          (config: AlgorithmConfig, trace, cloneAt) => {
            const plain = createLimiter(config);
            const fast = createLimiter(config);
            fast.useKeyIndex(INDEX);
            trace.forEach(({ nowMs, key }, i) => {
              const want = plain.decide(nowMs, key);
              expect(fast.decideKey(nowMs, key, slot(key))).toEqual(want);
              for (const k of ['k0', 'k1', 'k2', 'k3']) {
                const size = plain.stateSize(nowMs, k);
                expect(fast.stateSizeKey(nowMs, k, slot(k))).toEqual(size);
                // A fixed-size algorithm's keySizeMax is the most a key ever takes.
                const max = plain.keySizeMax;
                if (max !== null) {
                  expect(size.bytes).toBeLessThanOrEqual(max.bytes);
                  expect(size.entries).toBeLessThanOrEqual(max.entries);
                }
              }
              // … and exactly what the key takes right after it passed a request.
              const max = plain.keySizeMax;
              if (max !== null && want.outcome !== 'reject')
                expect(plain.stateSize(nowMs, key)).toEqual(max);
              if (i === cloneAt) {
                // Forgetting and restoring a key keeps its slot in step with the Map.
                const s = plain.getState(key);
                fast.setState(key, undefined);
                fast.setState(key, s);
              }
            });
            expect(states(fast)).toEqual(states(plain));
            const end = trace[trace.length - 1]?.nowMs ?? 0;
            fast.prune(end);
            plain.prune(end);
            expect(states(fast)).toEqual(states(plain));
            for (const k of ['k0', 'k1', 'k2', 'k3'])
              expect(fast.stateSizeKey(end, k, slot(k))).toEqual(plain.stateSize(end, k));
          },
        ),
        opts(60),
      );
    });
  }
});

it('fixed-size algorithms say their size; logs and counters that vary do not', () => {
  const size = (c: AlgorithmConfig) => createLimiter(c).keySizeMax;
  expect(size({ kind: 'fixed-window', limit: 3, windowMs: 1000 })).toEqual({
    entries: 1,
    bytes: 16,
  });
  expect(size({ kind: 'sliding-window-counter', limit: 3, windowMs: 1000 })).toEqual({
    entries: 1,
    bytes: 32,
  });
  expect(
    size({ kind: 'token-bucket', maxTokens: 3, tokensPerFill: 1, fillIntervalMs: 1000 }),
  ).toEqual({ entries: 1, bytes: 16 });
  expect(size({ kind: 'gcra', count: 3, periodMs: 1000, burst: 1 })).toEqual({
    entries: 1,
    bytes: 16,
  });
  expect(
    size({ kind: 'leaky-bucket', rate: 3, rateUnit: 'r/s', burst: 1, delay: 'nodelay' }),
  ).toEqual({ entries: 1, bytes: 64 });
  expect(size({ kind: 'sliding-log', limit: 3, windowMs: 1000 })).toBeNull();
  expect(size({ kind: 'calendar-windows', minute: 3 })).toBeNull();
});

it("decide hands out a Decision of its own; decideKey the limiter's reused one", () => {
  const l = createLimiter({ kind: 'fixed-window', limit: 2, windowMs: 1000 });
  const a = l.decide(0, 'k');
  const b = l.decide(0, 'k');
  expect(a).not.toBe(b);
  expect([a.remaining, b.remaining]).toEqual([1, 0]);
  const c = l.decideKey(0, 'k', -1);
  expect(c.outcome).toBe('reject');
  // The earlier public decisions are untouched by later ones.
  expect([a.outcome, a.remaining, b.outcome]).toEqual(['admit', 1, 'admit']);
  expect(l.decideKey(1000, 'k', -1)).toBe(c);
  expect(c.outcome).toBe('admit');
});

describe('sameStateAs', () => {
  for (const kind of KINDS) {
    it(`${kind}: says yes only when both decide every later request alike`, () => {
      let yes = 0;
      fc.assert(
        fc.property(
          configArb[kind],
          traceArb({ keys: 3, maxLength: 20 }),
          traceArb({ keys: 3, maxLength: 10 }),
          traceArb({ keys: 3, maxLength: 40 }),
          (config: AlgorithmConfig, common, extra, later) => {
            const a = createLimiter(config);
            const head = monotonic(common);
            for (const { nowMs, key } of head) a.decide(nowMs, key);
            const b = a.clone();
            expect(a.sameStateAs(b, head[head.length - 1]?.nowMs ?? 0)).toBe(true);
            // b alone sees some more requests, then both see the same ones, times only growing.
            const rest = monotonic([...head.slice(-1), ...extra, ...later]).slice(1);
            const onlyB = rest.slice(0, extra.length);
            const both = rest.slice(extra.length);
            for (const { nowMs, key } of onlyB) b.decide(nowMs, key);
            both.forEach(({ nowMs, key }, i) => {
              if (a.sameStateAs(b, nowMs)) {
                if (onlyB.length > 0) yes += 1;
                // From here on, every decision must be the same on copies of both.
                const ca = a.clone();
                const cb = b.clone();
                const da: Decision[] = [];
                const db: Decision[] = [];
                for (const e of both.slice(i)) {
                  da.push(ca.decide(e.nowMs, e.key));
                  db.push(cb.decide(e.nowMs, e.key));
                }
                expect(db).toEqual(da);
              }
              a.decide(nowMs, key);
              b.decide(nowMs, key);
            });
          },
        ),
        opts(60),
      );
      // Not vacuous: after diverging, the two limiters were found alike again in some runs.
      expect(yes).toBeGreaterThan(0);
    });
  }

  it('says no across algorithms or configs', () => {
    const fw = createLimiter({ kind: 'fixed-window', limit: 2, windowMs: 1000 });
    expect(
      fw.sameStateAs(createLimiter({ kind: 'fixed-window', limit: 3, windowMs: 1000 }), 0),
    ).toBe(false);
    expect(
      fw.sameStateAs(createLimiter({ kind: 'sliding-log', limit: 2, windowMs: 1000 }), 0),
    ).toBe(false);
    expect(
      fw.sameStateAs(createLimiter({ kind: 'fixed-window', limit: 2, windowMs: 1000 }), 0),
    ).toBe(true);
  });
});
