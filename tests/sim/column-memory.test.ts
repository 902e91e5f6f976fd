/**
 * Column memory: the simulation worker makes lane columns in buffers the page has
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

  it('stocks, while idle, the buffers the last run asked for, so the next run of that lane takes them all', () => {
    installPlainLaneLoop(runPlainLane);
    const pool = new ColumnPool(1 << 26);
    installColumnMemory(pool.take);
    pool.beginRun();
    const fresh = simulate([TB], traffic, 10_000);
    // Nothing kept yet: the run asked for its four columns and found none.
    expect(pool.held).toBe(0);
    const n = fresh.lanes[0]!.columns.outcome.length;
    // Two sets planned, written in slices of 1,000 bytes; none kept before it is written whole.
    expect(pool.planStock(1 << 20, 2)).toBe(2 * 13 * n);
    expect(pool.stockStep(1000)).toBe(true);
    expect(pool.held).toBe(0);
    // Slices cross buffers: every call but the last writes 1,000 bytes.
    let calls = 2;
    while (pool.stockStep(1000)) calls += 1;
    expect(calls).toBe(Math.ceil((2 * 13 * n) / 1000));
    expect(pool.held).toBe(2 * 13 * n);
    // Planned again with the stock there: nothing more to make.
    expect(pool.planStock(1 << 20, 2)).toBe(0);
    pool.beginRun();
    const again = simulate([{ ...TB, maxTokens: 11 }], traffic, 10_000);
    expect(pool.held).toBe(13 * n);
    const plain = (() => {
      installColumnMemory(null);
      return simulate([{ ...TB, maxTokens: 11 }], traffic, 10_000);
    })();
    expect(bytesOf(again.lanes[0]!.columns)).toEqual(bytesOf(plain.lanes[0]!.columns));
  });

  it('stocks fewer sets, or none, past its byte limits; a plan cut short keeps what was written', () => {
    const pool = new ColumnPool(1000);
    pool.beginRun();
    expect(pool.take(100)).toBeNull();
    expect(pool.take(300)).toBeNull();
    // Two sets are 800 bytes: over 500, one set is made instead.
    expect(pool.planStock(500, 2)).toBe(400);
    // Over the limit asked for: nothing.
    expect(pool.planStock(399, 2)).toBe(0);
    expect(pool.stockStep(1 << 20)).toBe(false);
    expect(pool.held).toBe(0);
    // Half of the 300-byte buffer written, then a new plan: the buffer joins the pool (it is
    // zeros either way) and counts against what the plan makes.
    expect(pool.planStock(1000, 1)).toBe(400);
    expect(pool.stockStep(150)).toBe(true);
    expect(pool.planStock(1000, 1)).toBe(100);
    expect(pool.held).toBe(300);
    const b = pool.take(300);
    expect(b?.byteLength).toBe(300);
    expect([...new Uint8Array(b!)].every((x) => x === 0)).toBe(true);
    // The pool's own limit: 1000 bytes held at most.
    pool.keep([new ArrayBuffer(900)]);
    expect(pool.planStock(1000, 1)).toBe(0);
  });
});
