import type { ClockModel } from './types';

/**
 * The cursor of a clock without jumps: one function for every run. A new closure per run changed
 * the call target of the lane loops' `wallAt` from one run to the next, and V8's optimised code
 * kept from the last run (the lane loop's, entered on stack replacement) was thrown away at that
 * call in every run ("wrong call target" deopts traced in the simulation worker, an
 * edit's lane loop running unoptimised until it was compiled again).
 */
const identity = (tMs: number): number => tMs;

/**
 * The time fed to the limiters: virtual time t for a monotonic clock, or wall(t) = t + Σ byMs over
 * the jumps at or before t. Steps for the jumps are kept sorted so a lookup is a binary search.
 */
export class WallClock {
  /** Jump times, ascending, distinct. */
  private readonly atMs: number[] = [];
  /** offsets[i]: the offset from atMs[i] on. */
  private readonly offsets: number[] = [];

  constructor(model: ClockModel) {
    if (model.mode !== 'wall') return;
    const sorted = model.jumps.slice().sort((a, b) => a.atMs - b.atMs);
    let offset = 0;
    for (const jump of sorted) {
      offset += jump.byMs;
      if (this.atMs.length > 0 && this.atMs[this.atMs.length - 1] === jump.atMs) {
        this.offsets[this.offsets.length - 1] = offset;
      } else {
        this.atMs.push(jump.atMs);
        this.offsets.push(offset);
      }
    }
  }

  /** True when wall time differs from virtual time somewhere. */
  get jumps(): boolean {
    return this.atMs.length > 0;
  }

  /** The wall time at virtual time t. */
  wallAt(tMs: number): number {
    const at = this.atMs;
    if (at.length === 0 || tMs < (at[0] as number)) return tMs;
    let lo = 0;
    let hi = at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((at[mid] as number) <= tMs) lo = mid;
      else hi = mid - 1;
    }
    return tMs + (this.offsets[lo] as number);
  }

  /** The first jump time strictly after t (Infinity when none). */
  nextJumpAfter(tMs: number): number {
    for (const a of this.atMs) if (a > tMs) return a;
    return Number.POSITIVE_INFINITY;
  }

  /**
   * A cursor for times that only grow (a lane's loop): O(1) per call instead of a search.
   * Calling it with a smaller t than before falls back to a search.
   */
  cursor(): (tMs: number) => number {
    const at = this.atMs;
    const offsets = this.offsets;
    if (at.length === 0) return identity;
    let i = -1;
    let lastT = Number.NEGATIVE_INFINITY;
    return (tMs) => {
      if (tMs < lastT) i = -1;
      lastT = tMs;
      while (i + 1 < at.length && (at[i + 1] as number) <= tMs) i += 1;
      return i < 0 ? tMs : tMs + (offsets[i] as number);
    };
  }
}
