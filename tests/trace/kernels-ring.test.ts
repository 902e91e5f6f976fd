/**
 * The sliding log decided chunk by chunk (src/trace/kernels.ts, a ring of at most `limit` times per
 * key) makes core's decision for every request: on random traces over many keys, limits 1–50,
 * windows short and long, logRejected on and off, Caddy's last-millisecond pass, chunks of any size (splitting a key's window),
 * keys that first appear mid-stream, and with the keys' request counts known exactly, too low, or
 * not at all. And its arena is exactly as large as the planner counts it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { SlidingLogConfig } from '../../src/core';
import {
  RING_ARENA,
  kernelState,
  runKernel,
  slidingLogGrownWords,
  slidingLogRingWords,
} from '../../src/trace/kernels';
import type { KernelState } from '../../src/trace/kernels';
import { chunkInput } from './kernelInput';

/** Ascending whole-ms times and key ids: bursts at one ms, steady runs and long gaps. */
const traceArb = fc
  .record({
    keys: fc.integer({ min: 1, max: 40 }),
    steps: fc.array(
      fc.record({
        gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 }), fc.integer({ max: 5000 })),
        key: fc.nat(),
      }),
      { minLength: 1, maxLength: 600 },
    ),
  })
  .map(({ keys, steps }) => {
    let t = 0;
    const timeMs = new Int32Array(steps.length);
    const keyId = new Uint32Array(steps.length);
    steps.forEach((s, i) => {
      t += Math.max(0, s.gap);
      timeMs[i] = t;
      // Low ids more often: a few busy keys and a tail.
      keyId[i] = (s.key % 3 === 0 ? s.key % 2 : s.key) % keys;
    });
    return { timeMs, keyId, keys };
  });

/** Plain, logRejected, or Caddy's ring (lastMsPasses, which never goes with logRejected). */
const configArb: fc.Arbitrary<SlidingLogConfig> = fc
  .record({
    limit: fc.oneof(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 50 })),
    windowMs: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 51, max: 5000 })),
    mode: fc.constantFrom('plain', 'logRejected', 'caddy'),
  })
  .map(({ limit, windowMs, mode }): SlidingLogConfig =>
    mode === 'caddy'
      ? { kind: 'sliding-log', limit, windowMs, lastMsPasses: true }
      : { kind: 'sliding-log', limit, windowMs, logRejected: mode === 'logRejected' },
  );

/** Core's outcome of each request (0 admit, 2 reject), keys by name, one limiter for the trace. */
function coreOutcomes(timeMs: Int32Array, keyId: Uint32Array, c: SlidingLogConfig): number[] {
  const lim = createLimiter(c);
  return Array.from(timeMs, (t, i) =>
    lim.decide(t, `k${keyId[i] as number}`).outcome === 'admit' ? 0 : 2,
  );
}

/**
 * The kernel's outcomes with state carried over chunks of `chunk` requests; the key count each
 * chunk sees is the highest id so far + 1 (keys appear as they come). Returns the state too.
 */
function ringOutcomes(
  timeMs: Int32Array,
  keyId: Uint32Array,
  c: SlidingLogConfig,
  chunk: number,
  keyRequests: ArrayLike<number> | undefined,
): { outcome: number[]; state: KernelState; rejected: number } {
  const state = kernelState();
  const outcome: number[] = [];
  let seen = 0;
  let rejected = 0;
  for (let from = 0; from < timeMs.length; from += chunk) {
    const to = Math.min(timeMs.length, from + chunk);
    for (let i = from; i < to; i += 1) seen = Math.max(seen, (keyId[i] as number) + 1);
    const out = new Uint8Array(to - from);
    const io = chunkInput(timeMs.slice(from, to), keyId.slice(from, to), seen, {
      outcome: out,
      state,
      keyRequests,
    });
    const tally = runKernel(io, c);
    if (tally === null) throw new Error('no chunked kernel');
    rejected += tally.rejected;
    outcome.push(...out);
  }
  return { outcome, state, rejected };
}

function countsOf(keyId: Uint32Array, keys: number): Float64Array {
  const counts = new Float64Array(keys);
  for (const k of keyId) counts[k] = (counts[k] as number) + 1;
  return counts;
}

describe('the chunked sliding log equals core', () => {
  it('on random traces and configs, in chunks of any size, counts known or not', () => {
    fc.assert(
      fc.property(
        traceArb,
        configArb,
        fc.integer({ min: 1, max: 70 }),
        fc.constantFrom('exact', 'none', 'low'),
        ({ timeMs, keyId, keys }, c, chunk, known) => {
          const want = coreOutcomes(timeMs, keyId, c);
          const counts = countsOf(keyId, keys);
          // 'low': every count halved (rounded down) and the last key's missing: rings must grow.
          const keyRequests =
            known === 'exact'
              ? counts
              : known === 'low'
                ? counts.subarray(0, Math.max(0, keys - 1)).map((v) => Math.floor(v / 2))
                : undefined;
          const got = ringOutcomes(timeMs, keyId, c, chunk, keyRequests);
          expect(got.outcome).toEqual(want);
          expect(got.rejected).toBe(want.filter((o) => o === 2).length);
          const arena = got.state.arrays.get(RING_ARENA) as Int32Array;
          if (known === 'exact') {
            // Each ring made once at min(limit, requests): the arena never grew.
            expect(arena.length).toBe(slidingLogRingWords(c.limit, counts));
          }
          // Never more room per key than the limit; with counts known, exactly min(limit,
          // requests); else a ring doubles only when full, so to at most 2 × (requests − 1), or 4.
          const cap = got.state.arrays.get('ringCap') as Int32Array;
          // (A key that never came has no slot when it is past every id seen.)
          for (let k = 0; k < keys; k += 1) {
            const size = cap[k] ?? 0;
            const v = counts[k] as number;
            expect(size).toBeLessThanOrEqual(
              Math.min(c.limit, v === 0 ? 0 : Math.max(4, 2 * (v - 1))),
            );
            if (known === 'exact') expect(size).toBe(Math.min(c.limit, counts[k] as number));
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('a hammering key: logRejected keeps it out, without it the window frees a slot', () => {
    // limit 3, window 100: requests every 10 ms for one key.
    const n = 40;
    const timeMs = Int32Array.from({ length: n }, (_, i) => i * 10);
    const keyId = new Uint32Array(n);
    for (const logRejected of [false, true]) {
      const c: SlidingLogConfig = { kind: 'sliding-log', limit: 3, windowMs: 100, logRejected };
      const got = ringOutcomes(timeMs, keyId, c, 7, undefined).outcome;
      expect(got).toEqual(coreOutcomes(timeMs, keyId, c));
      const admitted = got.filter((o) => o === 0).length;
      // Without logRejected 3 pass every 100 ms (at 0, 10, 20, then 100, 110, 120, …): 12 of 40.
      // With it every request is logged and each one keeps the window full: only the first 3.
      expect(admitted).toBe(logRejected ? 3 : 12);
    }
  });

  it('Caddy: a hammering key passes in the ring’s last millisecond, unrecorded', () => {
    // limit 2, window 100: one request a ms for one key, in chunks of 7. Core decides; the ring
    // agrees; and the passes at age 99 are there (each window: 2 recorded, then 1 unrecorded
    // pass when the oldest is 99 ms old).
    const n = 400;
    const timeMs = Int32Array.from({ length: n }, (_, i) => i);
    const keyId = new Uint32Array(n);
    const c: SlidingLogConfig = {
      kind: 'sliding-log',
      limit: 2,
      windowMs: 100,
      lastMsPasses: true,
    };
    const got = ringOutcomes(timeMs, keyId, c, 7, undefined).outcome;
    expect(got).toEqual(coreOutcomes(timeMs, keyId, c));
    const plain = ringOutcomes(timeMs, keyId, { ...c, lastMsPasses: false }, 7, undefined).outcome;
    expect(got.filter((o) => o === 0).length).toBeGreaterThan(plain.filter((o) => o === 0).length);
  });

  it('an entry exactly windowMs old no longer counts (t − e ≥ windowMs expires it)', () => {
    const c: SlidingLogConfig = { kind: 'sliding-log', limit: 1, windowMs: 1000 };
    const timeMs = Int32Array.of(0, 999, 1000, 1000);
    const keyId = Uint32Array.of(0, 0, 0, 0);
    expect(ringOutcomes(timeMs, keyId, c, 1, undefined).outcome).toEqual([0, 2, 0, 2]);
  });

  it('grows rings from 4 by doubling up to the limit when counts are not known', () => {
    expect(slidingLogGrownWords(1)).toBe(1);
    expect(slidingLogGrownWords(4)).toBe(4);
    expect(slidingLogGrownWords(5)).toBe(4 + 5);
    expect(slidingLogGrownWords(50)).toBe(4 + 8 + 16 + 32 + 50);
    const c: SlidingLogConfig = { kind: 'sliding-log', limit: 50, windowMs: 10_000 };
    const timeMs = Int32Array.from({ length: 60 }, (_, i) => i);
    const keyId = new Uint32Array(60);
    const { state } = ringOutcomes(timeMs, keyId, c, 16, undefined);
    expect((state.arrays.get('ringCap') as Int32Array)[0]).toBe(50);
    // One key, every size it took left behind in the arena: exactly slidingLogGrownWords.
    expect(state.scalars.get('ringTop')).toBe(slidingLogGrownWords(50));
  });
});
