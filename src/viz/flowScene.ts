import type { MovingMark } from './MovingMarks';

/**
 * The request-flow strip of a playing clock as plain data, and how a 2D canvas draws it.
 * `RequestFlow` lays the strip out once per frame; a still frame turns that layout into SVG, a
 * playing one hands it to a worker that paints it on the strip's `OffscreenCanvas`, so the page's
 * own thread neither renders nor lays out nor paints the strip's ~60 changing shapes and texts.
 * The shapes, colours, sizes and places are those of `RequestFlow`'s SVG and viz.css; the waiting
 * requests stay SVG marks over the canvas (focusable). Painted in layers (boxes and lines, texts,
 * marks) where the SVG goes part by part: nothing in the strip overlaps, so the picture is the same
 * (tests/e2e/flow-painted.spec.ts compares the two).
 */

/** One of the three boxes: client, limiter, backend (`.rl-station`). */
export interface FlowStation {
  kind: 'client' | 'limiter' | 'backend';
  name: string;
  /** Left edge and width, px, as the SVG's rect has them (in tenths of a px). */
  x: number;
  width: number;
  /** Where the name is centred, px (in tenths). */
  cx: number;
  top: number;
  bottom: number;
}

/** A text as the strip's SVG has it: `rl-label` (12 px, 600) or `rl-small` (11 px), muted or not. */
export interface FlowText {
  text: string;
  x: number;
  y: number;
  /** `rl-label`: 12 px, weight 600; otherwise 11 px (`rl-small`, `rl-request-label`). */
  label: boolean;
  muted: boolean;
  anchor: 'start' | 'middle';
  /** Drawn with `dy="0.35em"` (centred on `y`). */
  centred: boolean;
}

/** A line from (x0, y) to (x1, y). */
export interface FlowLine {
  x0: number;
  x1: number;
  y: number;
}

/** What does not move while the strip keeps its width: made once per width. */
export interface FlowStill {
  stations: readonly FlowStation[];
  /** The dashed line over the limiter's waiting requests (`.rl-hold-line`). */
  holdLine: FlowLine;
  /** The arrows client → limiter → backend, a head at x1 pointing right (`.rl-arrow`). */
  arrows: readonly FlowLine[];
}

/** One frame of a playing strip, in its SVG's px. */
export interface FlowScene {
  width: number;
  height: number;
  still: FlowStill;
  /**
   * Every request mark and the counts' outcome marks, drawn in this order, packed by `packMarks`
   * (a typed array is handed to the worker as it is; ~150 objects were copied one by one).
   */
  marks: Float32Array;
  texts: readonly FlowText[];
}

/** The theme's colours and the drawing's font, as the page's CSS resolves them. */
export interface FlowTheme {
  text: string;
  muted: string;
  surface: string;
  surface2: string;
  border: string;
  admit: string;
  delay: string;
  reject: string;
  backend: string;
  /** `--font-sans`, e.g. `'Inter', system-ui, sans-serif`. */
  font: string;
}

/** The CSS custom property each colour of `FlowTheme` comes from (src/ui/app/styles.css). */
export const THEME_VARIABLES: Readonly<Record<keyof FlowTheme, string>> = {
  text: '--text',
  muted: '--muted',
  surface: '--surface',
  surface2: '--surface-2',
  border: '--border',
  admit: '--admit',
  delay: '--delay',
  reject: '--reject',
  backend: '--backend',
  font: '--font-sans',
};

/** The numbers of one packed mark: x, y, size, opacity, outcome (index in `OUTCOMES`). */
const FIELDS = 5;
const OUTCOMES: ReadonlyArray<MovingMark['outcome']> = ['admit', 'delay', 'reject', 'pending'];

/** `marks` as `FlowScene.marks`. */
export function packMarks(marks: readonly MovingMark[]): Float32Array {
  const out = new Float32Array(marks.length * FIELDS);
  for (let i = 0, k = 0; i < marks.length; i += 1, k += FIELDS) {
    const m = marks[i] as MovingMark;
    out[k] = m.x;
    out[k + 1] = m.y;
    out[k + 2] = m.size;
    out[k + 3] = m.opacity;
    out[k + 4] = OUTCOMES.indexOf(m.outcome);
  }
  return out;
}

/** The marks of `FlowScene.marks`. */
export function unpackMarks(packed: Float32Array): MovingMark[] {
  const marks: MovingMark[] = [];
  for (let k = 0; k + FIELDS <= packed.length; k += FIELDS) {
    marks.push({
      x: packed[k] as number,
      y: packed[k + 1] as number,
      size: packed[k + 2] as number,
      opacity: packed[k + 3] as number,
      outcome: OUTCOMES[packed[k + 4] as number] ?? 'pending',
    });
  }
  return marks;
}

/** A mark as `OutcomeMark` (or `RequestMark`'s pending ring) draws it, with viz.css's paint. */
function paintMark(ctx: OffscreenCanvasRenderingContext2D, m: MovingMark, theme: FlowTheme) {
  const h = m.size / 2;
  ctx.globalAlpha = m.opacity;
  if (m.outcome === 'admit' || m.outcome === 'pending') {
    ctx.beginPath();
    ctx.arc(m.x, m.y, m.outcome === 'admit' ? h : h - 0.5, 0, 2 * Math.PI);
    if (m.outcome === 'admit') {
      ctx.fillStyle = theme.admit;
      ctx.fill();
    } else {
      // .rl-mark--pending: the surface inside, a muted ring of 1.5 px.
      ctx.fillStyle = theme.surface;
      ctx.fill();
      ctx.lineWidth = 1.5;
      ctx.strokeStyle = theme.muted;
      ctx.stroke();
    }
  } else if (m.outcome === 'delay') {
    const s = m.size * 0.9;
    ctx.fillStyle = theme.delay;
    ctx.fillRect(m.x - s / 2, m.y - s / 2, s, s);
  } else {
    // .rl-mark--reject: a cross stroked 2.4 px with round caps.
    const d = h * 0.85;
    ctx.beginPath();
    ctx.moveTo(m.x - d, m.y - d);
    ctx.lineTo(m.x + d, m.y + d);
    ctx.moveTo(m.x - d, m.y + d);
    ctx.lineTo(m.x + d, m.y - d);
    ctx.lineWidth = 2.4;
    ctx.lineCap = 'round';
    ctx.strokeStyle = theme.reject;
    ctx.stroke();
    ctx.lineCap = 'butt';
  }
  ctx.globalAlpha = 1;
}

function paintText(ctx: OffscreenCanvasRenderingContext2D, t: FlowText, theme: FlowTheme) {
  const size = t.label ? 12 : 11;
  ctx.font = `${t.label ? 600 : 400} ${size}px ${theme.font}`;
  ctx.fillStyle = t.muted ? theme.muted : theme.text;
  ctx.textAlign = t.anchor === 'middle' ? 'center' : 'left';
  // SVG's dy="0.35em" moves the baseline down by 0.35 of the font size.
  ctx.fillText(t.text, t.x, t.centred ? t.y + 0.35 * size : t.y);
}

/** Paints `scene` on a context whose unit is the strip's px (the caller scales for the DPR). */
export function paintFlow(
  ctx: OffscreenCanvasRenderingContext2D,
  scene: FlowScene,
  theme: FlowTheme,
): void {
  ctx.clearRect(0, 0, scene.width, scene.height);
  ctx.textBaseline = 'alphabetic';
  for (const s of scene.still.stations) {
    // .rl-station rect: the second surface, a 1 px border (the limiter's 1.5 px in the text
    // colour, the backend's 1.5 px in its own), corners of 6 px.
    ctx.beginPath();
    ctx.roundRect(s.x, s.top, s.width, s.bottom - s.top, 6);
    ctx.fillStyle = theme.surface2;
    ctx.fill();
    ctx.lineWidth = s.kind === 'client' ? 1 : 1.5;
    ctx.strokeStyle =
      s.kind === 'client' ? theme.border : s.kind === 'limiter' ? theme.text : theme.backend;
    ctx.stroke();
    paintText(
      ctx,
      {
        text: s.name,
        x: s.cx,
        y: s.top - 8,
        label: true,
        muted: false,
        anchor: 'middle',
        centred: false,
      },
      theme,
    );
  }
  const { holdLine, arrows } = scene.still;
  ctx.beginPath();
  ctx.moveTo(holdLine.x0, holdLine.y);
  ctx.lineTo(holdLine.x1, holdLine.y);
  ctx.setLineDash([3, 3]);
  ctx.lineWidth = 1;
  ctx.strokeStyle = theme.border;
  ctx.stroke();
  ctx.setLineDash([]);
  for (const a of arrows) {
    ctx.beginPath();
    ctx.moveTo(a.x0, a.y);
    ctx.lineTo(a.x1, a.y);
    ctx.lineWidth = 1.5;
    ctx.strokeStyle = theme.muted;
    ctx.stroke();
    ctx.beginPath();
    ctx.moveTo(a.x1, a.y);
    ctx.lineTo(a.x1 - 5, a.y - 3);
    ctx.lineTo(a.x1 - 5, a.y + 3);
    ctx.closePath();
    ctx.fillStyle = theme.muted;
    ctx.fill();
  }
  for (const t of scene.texts) paintText(ctx, t, theme);
  for (const m of unpackMarks(scene.marks)) paintMark(ctx, m, theme);
}

/** A bundled font face for the worker to load (`pageFaces`, the ones the strip's text uses). */
export interface FlowFace {
  family: string;
  weight: number;
  style: string;
  url: string;
  unicodeRange: string;
}

/**
 * One strip's frame as posted: its scene, whose `still` is null when it is the one posted last for
 * that strip (the same object: the strip's width has not changed).
 */
export interface FlowFrame extends Omit<FlowScene, 'still'> {
  id: number;
  still: FlowStill | null;
}

/** What the page tells the painter worker (`flowPaint.worker.ts`). */
export type FlowPaintMessage =
  | { type: 'attach'; id: number; canvas: OffscreenCanvas; dpr: number }
  | { type: 'draw'; frames: readonly FlowFrame[]; dpr: number }
  | { type: 'detach'; id: number }
  | { type: 'theme'; theme: FlowTheme }
  | { type: 'fonts'; faces: readonly FlowFace[] };

/** What the worker tells the page: strip `id` has its first frame on its canvas. */
export interface FlowPainted {
  type: 'painted';
  id: number;
}
