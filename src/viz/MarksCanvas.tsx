import { useLayoutEffect, useRef } from 'react';
import type { Outcome } from '../core';
import { px } from './format';

/** One mark drawn on a `MarksCanvas`: the shape of `OutcomeMark` (or the pending ring). */
export interface CanvasMark {
  outcome: Outcome | 'pending';
  /** Centre, in the SVG's px. */
  x: number;
  y: number;
  /** Mark width, px (as `OutcomeMark`'s `size`). */
  size: number;
  /** 0–1. */
  opacity: number;
}

/** The colours a canvas drew with (read from the page's CSS, so the dark theme applies). */
interface Palette {
  admit: string;
  delay: string;
  reject: string;
  surface: string;
  muted: string;
}

/**
 * What each canvas last drew, for the view export (src/ui/share/viewExport.ts): a saved SVG or PNG
 * shows the same marks as SVG shapes. Keyed by the `<foreignObject>` that holds the canvas.
 */
const drawn = new WeakMap<Element, { marks: readonly CanvasMark[]; palette: Palette }>();

/**
 * The palette, read from the computed style once per theme: reading it every frame forced a style
 * recalculation in the middle of the frame (0.7 ms of each frame in the trace). The page switches
 * theme through `data-theme` on the root element (src/ui/app/theme.ts).
 */
let cached: { theme: string | null; palette: Palette } | null = null;

function palette(el: Element): Palette {
  const theme = document.documentElement.getAttribute('data-theme');
  if (cached !== null && cached.theme === theme) return cached.palette;
  const css = getComputedStyle(el);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  const p: Palette = {
    admit: v('--admit', '#0072b2'),
    delay: v('--delay', '#c98a00'),
    reject: v('--reject', '#d55e00'),
    surface: v('--surface', '#ffffff'),
    muted: v('--muted', '#5c5c66'),
  };
  cached = { theme, palette: p };
  return p;
}

/** Draws `marks` with the exact geometry of `OutcomeMark` (viz.css: stroke widths, round caps). */
function paint(ctx: CanvasRenderingContext2D, marks: readonly CanvasMark[], p: Palette): void {
  for (const m of marks) {
    ctx.globalAlpha = m.opacity;
    const h = m.size / 2;
    if (m.outcome === 'admit') {
      ctx.fillStyle = p.admit;
      ctx.beginPath();
      ctx.arc(m.x, m.y, h, 0, 2 * Math.PI);
      ctx.fill();
    } else if (m.outcome === 'delay') {
      const s = m.size * 0.9;
      ctx.fillStyle = p.delay;
      ctx.fillRect(m.x - s / 2, m.y - s / 2, s, s);
    } else if (m.outcome === 'reject') {
      const d = h * 0.85;
      ctx.strokeStyle = p.reject;
      ctx.lineWidth = 2.4;
      ctx.lineCap = 'round';
      ctx.beginPath();
      ctx.moveTo(m.x - d, m.y - d);
      ctx.lineTo(m.x + d, m.y + d);
      ctx.moveTo(m.x - d, m.y + d);
      ctx.lineTo(m.x + d, m.y - d);
      ctx.stroke();
    } else {
      ctx.fillStyle = p.surface;
      ctx.strokeStyle = p.muted;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      ctx.arc(m.x, m.y, h - 0.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
  }
  ctx.globalAlpha = 1;
}

/**
 * Many moving request marks on one canvas inside the SVG (issue 11: a frame changes a handful of
 * attributes, not hundreds). Each frame clears and redraws the canvas before the browser paints
 * (a layout effect), so it never lags the SVG around it. Decorative: the drawing's own label says
 * what it shows, and the marks a person can focus are drawn as SVG whenever the clock stands still.
 */
export function MarksCanvas({
  width,
  height,
  marks,
}: {
  width: number;
  height: number;
  marks: readonly CanvasMark[];
}) {
  const holder = useRef<SVGForeignObjectElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const w = px(width);
  const h = px(height);
  useLayoutEffect(() => {
    const fo = holder.current;
    const c = canvas.current;
    if (fo === null || c === null) return;
    const p = palette(fo);
    drawn.set(fo, { marks, palette: p });
    const ctx = c.getContext('2d');
    if (ctx === null) return;
    // A backing store at the device's pixel ratio (the SVG only ever scales down from its px size).
    const ratio = Math.max(1, Math.min(3, window.devicePixelRatio || 1));
    const bw = Math.ceil(w * ratio);
    const bh = Math.ceil(h * ratio);
    if (c.width !== bw || c.height !== bh) {
      c.width = bw;
      c.height = bh;
    }
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, w, h);
    paint(ctx, marks, p);
  }, [marks, w, h]);
  return (
    <foreignObject
      ref={holder}
      className="rl-marks-canvas"
      data-testid="marks-canvas"
      data-count={marks.length}
      x={0}
      y={0}
      width={w}
      height={h}
      aria-hidden="true"
      pointerEvents="none"
    >
      <canvas ref={canvas} style={{ display: 'block', width: `${w}px`, height: `${h}px` }} />
    </foreignObject>
  );
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * The marks a `MarksCanvas` (its `<foreignObject>`) last drew, as SVG shapes with inline colours
 * (the view export's copy of the canvas), or null when `el` is not one.
 */
export function canvasMarksAsSvg(el: Element, doc: Document): SVGGElement | null {
  const record = drawn.get(el);
  if (record === undefined) return null;
  const { marks, palette: p } = record;
  const g = doc.createElementNS(SVG_NS, 'g');
  g.setAttribute('class', 'rl-marks-canvas-copy');
  for (const m of marks) {
    const h = m.size / 2;
    let shape: SVGElement;
    if (m.outcome === 'admit' || m.outcome === 'pending') {
      shape = doc.createElementNS(SVG_NS, 'circle');
      shape.setAttribute('cx', String(px(m.x)));
      shape.setAttribute('cy', String(px(m.y)));
      shape.setAttribute('r', String(px(m.outcome === 'admit' ? h : h - 0.5)));
      shape.setAttribute(
        'style',
        m.outcome === 'admit'
          ? `fill:${p.admit}`
          : `fill:${p.surface};stroke:${p.muted};stroke-width:1.5`,
      );
    } else if (m.outcome === 'delay') {
      const s = m.size * 0.9;
      shape = doc.createElementNS(SVG_NS, 'rect');
      shape.setAttribute('x', String(px(m.x - s / 2)));
      shape.setAttribute('y', String(px(m.y - s / 2)));
      shape.setAttribute('width', String(px(s)));
      shape.setAttribute('height', String(px(s)));
      shape.setAttribute('style', `fill:${p.delay}`);
    } else {
      const d = h * 0.85;
      shape = doc.createElementNS(SVG_NS, 'path');
      shape.setAttribute(
        'd',
        `M${px(m.x - d)},${px(m.y - d)}L${px(m.x + d)},${px(m.y + d)}` +
          `M${px(m.x - d)},${px(m.y + d)}L${px(m.x + d)},${px(m.y - d)}`,
      );
      shape.setAttribute(
        'style',
        `fill:none;stroke:${p.reject};stroke-width:2.4;stroke-linecap:round`,
      );
    }
    shape.setAttribute('class', `rl-mark rl-mark--${m.outcome}`);
    if (m.opacity < 1) shape.setAttribute('opacity', String(m.opacity));
    g.appendChild(shape);
  }
  return g;
}
