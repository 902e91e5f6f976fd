/**
 * Paints the request-flow strips of a playing clock on their `OffscreenCanvas`es, off
 * the page's thread: the page lays each strip out and posts the frame (`FlowScene`); this worker
 * draws it. It loads the page's bundled fonts itself (a worker sees none of the page's), and draws
 * again when they arrive or the theme changes.
 */
import { paintFlow } from './flowScene';
import type { FlowPaintMessage, FlowPainted, FlowScene, FlowTheme } from './flowScene';

interface Strip {
  id: number;
  canvas: OffscreenCanvas;
  ctx: OffscreenCanvasRenderingContext2D;
  scene: FlowScene | null;
  dpr: number;
  /** The page has been told this strip has a frame on its canvas. */
  told: boolean;
}

const strips = new Map<number, Strip>();
let theme: FlowTheme | null = null;
/**
 * The fonts have loaded (or failed). Nothing is painted before: a canvas keeps the font it first
 * resolved for a `font` string, so text drawn while Inter was on its way stayed in the fallback
 * font after it had arrived (seen in Chromium 143).
 */
let fontsSettled = false;

function paint(strip: Strip): void {
  const { scene, canvas, ctx } = strip;
  if (scene === null || theme === null || !fontsSettled) return;
  const w = Math.round(scene.width * strip.dpr);
  const h = Math.round(scene.height * strip.dpr);
  // Setting a size clears the canvas and its state, so only when it changes.
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  ctx.setTransform(strip.dpr, 0, 0, strip.dpr, 0, 0);
  paintFlow(ctx, scene, theme);
  if (!strip.told) {
    // The page shows the canvas from now on (until then it kept the strip's SVG).
    strip.told = true;
    const painted: FlowPainted = { type: 'painted', id: strip.id };
    (self as unknown as Worker).postMessage(painted);
  }
}

function paintAll(): void {
  for (const strip of strips.values()) paint(strip);
}

self.onmessage = (e: MessageEvent<FlowPaintMessage>) => {
  const m = e.data;
  switch (m.type) {
    case 'attach': {
      const ctx = m.canvas.getContext('2d');
      if (ctx !== null)
        strips.set(m.id, { id: m.id, canvas: m.canvas, ctx, scene: null, dpr: m.dpr, told: false });
      break;
    }
    case 'draw':
      for (const f of m.frames) {
        const strip = strips.get(f.id);
        if (strip === undefined) continue;
        const still = f.still ?? strip.scene?.still;
        if (still === undefined) continue;
        strip.scene = { width: f.width, height: f.height, still, marks: f.marks, texts: f.texts };
        strip.dpr = m.dpr;
        paint(strip);
      }
      break;
    case 'detach':
      strips.delete(m.id);
      break;
    case 'theme':
      theme = m.theme;
      paintAll();
      break;
    case 'fonts': {
      // The digits as the page sets them (viz.css: font-variant-numeric: tabular-nums).
      const loads = m.faces.map((f) => {
        const face = new FontFace(f.family, `url(${JSON.stringify(f.url)}) format("woff2")`, {
          weight: String(f.weight),
          style: f.style,
          featureSettings: '"tnum"',
          ...(f.unicodeRange === '' ? {} : { unicodeRange: f.unicodeRange }),
        });
        (self as unknown as { fonts: FontFaceSet }).fonts.add(face);
        // A face that does not load leaves the next family of the stack to draw its letters.
        return face.load().catch(() => undefined);
      });
      void Promise.all(loads).then(() => {
        fontsSettled = true;
        paintAll();
      });
      break;
    }
  }
};
