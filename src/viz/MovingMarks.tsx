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
 * of a kind, so a frame writes only where each mark starts (building each outline anew
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

/**
 * A coordinate in whole tenths of a px (`px`) as text: the texts of 0 to 2,000 px are made once and
 * kept, so writing the paths every frame makes no new number strings (the moving marks'
 * path strings were the largest allocation of a playing page, feeding the garbage collections in
 * its slowest frames).
 */
const tenths: string[] = [];
const TENTHS_KEPT = 20_000;

function text(v: number): string {
  const k = Math.round(v * 10);
  if (!(k >= 0 && k < TENTHS_KEPT)) return String(v);
  let t = tenths[k];
  if (t === undefined) tenths[k] = t = String(v);
  return t;
}

/** Writes the command `c` to (x, y) into `out` at `k`; returns where the next one goes. */
function line(out: string[], k: number, c: string, x: string, y: string): number {
  out[k] = c;
  out[k + 1] = x;
  out[k + 2] = ',';
  out[k + 3] = y;
  return k + 4;
}

/**
 * One mark's outline as path commands, with `OutcomeMark`'s geometry (viz.css draws them), written
 * into `out` from `n` on; returns where the next mark goes. The path is joined once.
 */
function segment(m: MovingMark, out: string[], n: number): number {
  const h = m.size / 2;
  const x = px(m.x);
  const y = px(m.y);
  let k = n;
  if (m.outcome === 'admit' || m.outcome === 'pending') {
    // The ring of a pending mark sits half its stroke inside, as RequestMark draws it.
    const r = m.outcome === 'admit' ? h : h - 0.5;
    out[k++] = 'M';
    out[k++] = text(px(x - r));
    out[k++] = ',';
    out[k++] = text(y);
    out[k++] = restOf(m.outcome, m.size);
    return k;
  }
  if (m.outcome === 'delay') {
    const s = (m.size * 0.9) / 2;
    out[k++] = 'M';
    out[k++] = text(px(x - s));
    out[k++] = ',';
    out[k++] = text(px(y - s));
    out[k++] = restOf(m.outcome, m.size);
    return k;
  }
  const d = h * 0.85;
  const x0 = text(px(x - d));
  const x1 = text(px(x + d));
  const y0 = text(px(y - d));
  const y1 = text(px(y + d));
  // M x0,y0 L x1,y1 M x0,y1 L x1,y0
  k = line(out, k, 'M', x0, y0);
  k = line(out, k, 'L', x1, y1);
  k = line(out, k, 'M', x0, y1);
  return line(out, k, 'L', x1, y0);
}

/** The groups' order: outcome, then opacity in tenths (0–10). */
const OUTCOMES: ReadonlyArray<MovingMark['outcome']> = ['admit', 'delay', 'reject', 'pending'];
const STEPS = 11;

/**
 * The pieces of each group's path, kept from frame to frame (with their room), and how many of
 * them the path being written has: a frame writes its pieces over the last frame's and joins them
 * once, instead of growing new arrays or strings mark by mark (allocation per frame).
 * Written and joined within one render.
 */
const pieces: string[][] = Array.from({ length: OUTCOMES.length * STEPS }, () => []);
const written: number[] = pieces.map(() => 0);

/** The path of group `slot` from its pieces written this render (what is left over is blanked). */
function joined(slot: number): string {
  const out = pieces[slot] as string[];
  const n = written[slot] as number;
  for (let k = n; k < out.length && out[k] !== ''; k += 1) out[k] = '';
  return out.join('');
}

/**
 * The request marks on their way through a playing strip, as a few paths: one per outcome and
 * opacity. Every one of them moves every frame; as paths, a frame rewrites a handful of `d`
 * attributes instead of one element per mark, and draws no canvas (the strips' canvases
 * cost about 0.5 ms of main-thread time per frame each, copying their pixels out, and a frame
 * scrolled to lanes 3–4 took about 1.1 ms more CPU with them than with these paths, measured A/B).
 * Decorative: the strip's label says what it shows, and the marks a person can focus are drawn as
 * single SVG marks whenever the clock stands still. The view export copies these paths as they are.
 */
export const MovingMarks = memo(function MovingMarks({ marks }: { marks: readonly MovingMark[] }) {
  // One path per outcome and opacity, in the order each first appears (a slot per pair, not a
  // string key per mark).
  const order: number[] = [];
  for (let k = 0; k < marks.length; k += 1) {
    const m = marks[k] as MovingMark;
    const slot =
      OUTCOMES.indexOf(m.outcome) * STEPS +
      Math.min(STEPS - 1, Math.max(0, Math.round(m.opacity * 10)));
    if (!order.includes(slot)) {
      order.push(slot);
      written[slot] = 0;
    }
    written[slot] = segment(m, pieces[slot] as string[], written[slot] as number);
  }
  const paths: string[] = [];
  for (const slot of order) paths[slot] = joined(slot);
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
