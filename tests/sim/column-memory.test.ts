/**
 * Column memory (issue 11): the simulation worker makes lane columns in buffers the page has
 * finished with (ColumnPool, installColumnMemory). Whatever those buffers held, a run's columns
 * are the ones fresh memory gives: byte for byte, in the lean loop and the general one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { simulate } from '../../src/sim';
import type { LaneColumns, Scenario } from '../../src/sim';
import { installColumnMemory } from '../../src/sim/laneParts';
import { runPlainLane } from '../../src/sim/lanePlain';
import { installPlainLaneLoop } from '../../src/sim/simulate';
import { ColumnPool } from '../../src/store/columnPool';
import { scenario } from './helpers';

const TB: AlgorithmConfig = {
  kind: 'token-bucket',
  maxTokens: 10,
  tokensPerFill: 70,
  fillIntervalMs: 1000,
};
const SL: AlgorithmConfig = { kind: 'sliding-log', limit: 70, windowMs: 1000 };

afterEach(() => {
  installColumnMemory(null);
  installPlainLaneLoop(null);
});

// Retries: a lane's columns have room for more rows than it fills, and the rows past its last
// are in the columns too (zeros).
const base = scenario({
  seed: 7,
  sources: [{ kind: 'poisson', ratePerSec: 80, startMs: 0, endMs: 10_000 }],
});
const traffic: Scenario = {
  ...base,
  retry: { ...base.retry, onReject: 'immediate', maxAttempts: 2 },
};

function bytesOf(c: LaneColumns): number[][] {
  return [c.outcome, c.waitMs, c.remaining, c.resetMs, c.instance, c.arrivalMs].map((a) =>
    Array.from(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)),
  );
}

/** A pool holding `sets` sets of buffers of a lane's column sizes, every byte 0xab. */
function dirtyPool(n: number, sets: number): ColumnPool {
  const pool = new ColumnPool(1 << 26);
  for (let i = 0; i < sets; i += 1) {
    pool.keep([n, 4 * n, 4 * n, 4 * n].map((b) => new Uint8Array(b).fill(0xab).buffer));
  }
  return pool;
}

describe('lane columns made in recycled memory', () => {
  for (const lean of [false, true]) {
    it(`are the columns of fresh memory (${lean ? 'lean' : 'general'} loop)`, () => {
      if (lean) installPlainLaneLoop(runPlainLane);
      const fresh = simulate([TB, SL], traffic, 10_000);
      const n = fresh.lanes[0]?.columns.outcome.length ?? 0;
      expect(n).toBeGreaterThan(500);
      for (const lane of fresh.lanes)
        expect(lane.columns.outcome.length).toBeGreaterThan(lane.columns.rows);
      const pool = dirtyPool(n, 2);
      const before = pool.held;
      installColumnMemory(pool.take);
      const reused = simulate([TB, SL], traffic, 10_000);
      // Both lanes took their columns from the pool.
      expect(pool.held).toBe(before - 2 * 13 * n);
      reused.lanes.forEach((lane, i) => {
        expect(bytesOf(lane.columns)).toEqual(bytesOf(fresh.lanes[i]!.columns));
        expect(lane.metrics).toEqual(fresh.lanes[i]!.metrics);
      });
    });
  }

  it('a pool keeps no detached buffer and no more than its limit, and hands out exact sizes', () => {
    const pool = new ColumnPool(100);
    const detached = new ArrayBuffer(8);
    structuredClone(detached, { transfer: [detached] });
    pool.keep([detached, new ArrayBuffer(60), new ArrayBuffer(60), new ArrayBuffer(40)]);
    expect(pool.held).toBe(100);
    expect(pool.take(50)).toBeNull();
    const b = pool.take(40);
    expect(b?.byteLength).toBe(40);
    expect(pool.take(40)).toBeNull();
    expect(pool.held).toBe(60);
  });
});
