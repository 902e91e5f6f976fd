import type { MouseEvent } from 'react';

/** A drawn mark's centre, in its SVG's px. */
interface Placed {
  x: number;
  y: number;
}

/**
 * The mark a click on a band of moving marks means: the index of the one nearest the pointer
 * within `radius` px (the single marks' hit radius), or −1. Moving marks drawn as paths
 * (`MovingMarks`) have no element of their own to click: the band under them takes the click.
 */
export function markAt(marks: readonly Placed[], e: MouseEvent<SVGElement>, radius = 12): number {
  const m = e.currentTarget.closest('svg')?.getScreenCTM();
  if (!m) return -1;
  const inv = m.inverse();
  return nearestMark(
    marks,
    inv.a * e.clientX + inv.c * e.clientY + inv.e,
    inv.b * e.clientX + inv.d * e.clientY + inv.f,
    radius,
  );
}

/** The index of the mark nearest (x, y) within `radius` px, or −1 (px of the marks' drawing). */
export function nearestMark(marks: readonly Placed[], x: number, y: number, radius = 12): number {
  let best = -1;
  let bestD = radius * radius;
  marks.forEach((c, i) => {
    const d = (c.x - x) ** 2 + (c.y - y) ** 2;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  });
  return best;
}
