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

/**
 * The part of a mark's outline after its first point, by outcome and size: the same for every mark
 * of a kind, so a frame writes only where each mark starts (issue 11: building each outline anew
 * was a fifth of what a playing page allocated, feeding the garbage collections in its slowest
 * frames).
 */
const rest = new Map<string, string>();

function restOf(outcome: MovingMark['outcome'], size: number): string {
  const key = outcome + size;
  let tail = rest.get(key);
  if (tail === undefined) {
    const h = size / 2;
    if (outcome === 'admit' || outcome === 'pending') {
      const r = outcome === 'admit' ? h : h - 0.5;
      tail = `a${r},${r} 0 1,0 ${px(2 * r)},0a${r},${r} 0 1,0 ${px(-2 * r)},0`;
    } else {
      const s = (size * 0.9) / 2;
      tail = `h${px(2 * s)}v${px(2 * s)}h${px(-2 * s)}z`;
    }
    rest.set(key, tail);
  }
  return tail;
}

/** One mark's outline as path commands, with `OutcomeMark`'s geometry (viz.css draws them). */
function segment(m: MovingMark): string {
  const h = m.size / 2;
  const x = px(m.x);
  const y = px(m.y);
  if (m.outcome === 'admit' || m.outcome === 'pending') {
    // The ring of a pending mark sits half its stroke inside, as RequestMark draws it.
    const r = m.outcome === 'admit' ? h : h - 0.5;
    return 'M' + px(x - r) + ',' + y + restOf(m.outcome, m.size);
  }
  if (m.outcome === 'delay') {
    const s = (m.size * 0.9) / 2;
    return 'M' + px(x - s) + ',' + px(y - s) + restOf(m.outcome, m.size);
  }
  const d = h * 0.85;
  const x0 = px(x - d);
  const x1 = px(x + d);
  const y0 = px(y - d);
  const y1 = px(y + d);
  return 'M' + x0 + ',' + y0 + 'L' + x1 + ',' + y1 + 'M' + x0 + ',' + y1 + 'L' + x1 + ',' + y0;
}

/** The groups' order: outcome, then opacity in tenths (0–10). */
const OUTCOMES: ReadonlyArray<MovingMark['outcome']> = ['admit', 'delay', 'reject', 'pending'];
const STEPS = 11;

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
  // One path per outcome and opacity, in the order each first appears (a slot per pair, not a
  // string key per mark).
  const paths: string[] = [];
  const order: number[] = [];
  for (let k = 0; k < marks.length; k += 1) {
    const m = marks[k] as MovingMark;
    const slot =
      OUTCOMES.indexOf(m.outcome) * STEPS +
      Math.min(STEPS - 1, Math.max(0, Math.round(m.opacity * 10)));
    const d = paths[slot];
    if (d === undefined) {
      order.push(slot);
      paths[slot] = segment(m);
    } else paths[slot] = d + segment(m);
  }
  return (
    <g
      className="rl-moving-marks"
      data-testid="moving-marks"
      data-count={marks.length}
      aria-hidden="true"
    >
      {order.map((slot) => {
        const outcome = OUTCOMES[Math.floor(slot / STEPS)] as MovingMark['outcome'];
        const opacity = (slot % STEPS) / 10;
        return (
          <path
            key={`${outcome}@${opacity}`}
            className={`rl-mark rl-mark--${outcome}`}
            d={paths[slot]}
            {...(opacity < 1 ? { opacity } : {})}
          />
        );
      })}
    </g>
  );
});
