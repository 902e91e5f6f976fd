import { memo } from 'react';
import type { Outcome } from '../core';
import { px } from './format';

/** One moving request mark: the shape of `OutcomeMark` (or the pending ring), where it is now. */
export interface MovingMark {
  outcome: Outcome | 'pending';
  /** Centre, in the SVG's px. */
  x: number;
  y: number;
  /** Mark width, px (as `OutcomeMark`'s `size`). */
  size: number;
  /** 0–1, in steps of 0.1 (the marks of one opacity share a path). */
  opacity: number;
}

/** One mark's outline as path commands, with `OutcomeMark`'s geometry (viz.css draws them). */
function segment(m: MovingMark): string {
  const h = m.size / 2;
  const x = px(m.x);
  const y = px(m.y);
  if (m.outcome === 'admit' || m.outcome === 'pending') {
    // The ring of a pending mark sits half its stroke inside, as RequestMark draws it.
    const r = m.outcome === 'admit' ? h : h - 0.5;
    return `M${px(x - r)},${y}a${r},${r} 0 1,0 ${px(2 * r)},0a${r},${r} 0 1,0 ${px(-2 * r)},0`;
  }
  if (m.outcome === 'delay') {
    const s = (m.size * 0.9) / 2;
    return `M${px(x - s)},${px(y - s)}h${px(2 * s)}v${px(2 * s)}h${px(-2 * s)}z`;
  }
  const d = h * 0.85;
  return (
    `M${px(x - d)},${px(y - d)}L${px(x + d)},${px(y + d)}` +
    `M${px(x - d)},${px(y + d)}L${px(x + d)},${px(y - d)}`
  );
}

/**
 * The request marks on their way through a playing strip, as a few paths: one per outcome and
 * opacity. Every one of them moves every frame; as paths, a frame rewrites a handful of `d`
 * attributes instead of one element per mark, and draws no canvas (issue 11: the strips' canvases
 * cost about 0.5 ms of main-thread time per frame each, copying their pixels out, and a frame
 * scrolled to lanes 3–4 took about 1.1 ms more CPU with them than with these paths, measured A/B).
 * Decorative: the strip's label says what it shows, and the marks a person can focus are drawn as
 * single SVG marks whenever the clock stands still. The view export copies these paths as they are.
 */
export const MovingMarks = memo(function MovingMarks({ marks }: { marks: readonly MovingMark[] }) {
  const groups = new Map<string, { outcome: MovingMark['outcome']; opacity: number; d: string }>();
  for (const m of marks) {
    const key = `${m.outcome}@${m.opacity}`;
    const group = groups.get(key);
    if (group === undefined)
      groups.set(key, { outcome: m.outcome, opacity: m.opacity, d: segment(m) });
    else group.d += segment(m);
  }
  return (
    <g
      className="rl-moving-marks"
      data-testid="moving-marks"
      data-count={marks.length}
      aria-hidden="true"
    >
      {[...groups].map(([key, g]) => (
        <path
          key={key}
          className={`rl-mark rl-mark--${g.outcome}`}
          d={g.d}
          {...(g.opacity < 1 ? { opacity: g.opacity } : {})}
        />
      ))}
    </g>
  );
});
