import { px } from './format';

/**
 * Marks on a time axis that slides with the clock, drawn inside one group translated by `shiftPx`:
 * `at(t)` is a mark's x inside the group. Positions are relative to a base time that moves only
 * every `periodMs`, so from one frame to the next a mark's own attributes stay the same (its
 * element is left alone, a memoised mark skips rendering) and only the group's translate changes.
 */
export interface Slide {
  /** The group's x, px. */
  shiftPx: number;
  /** x of time `tMs` inside the group, px (0.1 px steps). */
  at: (tMs: number) => number;
  /** x of t = 0 inside the group, unrounded: the origin for `stackColumns`, so columns slide too. */
  zeroPx: number;
}

/**
 * For an axis that draws time t at `nowPx + (t − nowMs) · pxPerMs`: the group and the positions in
 * it. shiftPx + at(t) is that x to within 0.1 px, as long as `periodMs · pxPerMs` and the axis stay
 * well inside ±100,000 px (where `px` clamps); the views use a few widths.
 */
export function slide(nowMs: number, nowPx: number, pxPerMs: number, periodMs: number): Slide {
  const baseMs = Math.floor(nowMs / periodMs) * periodMs;
  return {
    shiftPx: px(nowPx - (nowMs - baseMs) * pxPerMs),
    at: (tMs) => px((tMs - baseMs) * pxPerMs),
    zeroPx: -baseMs * pxPerMs,
  };
}
