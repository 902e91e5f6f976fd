// Long file on purpose: one standalone SVG writer (computed styles inlined, fonts embedded, PNG
// from it); its steps only make sense together.
/**
 * The stage as one standalone SVG (and a PNG drawn from it): the timeline and each limiter's view as
 * they are on screen at this moment, in the current theme, with the bundled fonts embedded so the
 * file looks the same opened on its own, in another browser or in a vector editor.
 *
 * The SVG elements are cloned and every style that matters is written inline, read from the
 * computed style (so CSS variables arrive as the theme's colours). The cards and headings around
 * them are HTML on the page; they are redrawn as SVG at the places the page lays them out.
 */
import { pageFaces, primaryFamily } from '../../viz/pageFaces';
import type { Face } from '../../viz/pageFaces';

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Inherited properties that shape SVG drawing and text: written where they differ from the parent. */
const INHERITED = [
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-opacity',
  'paint-order',
  'font-family',
  'font-size',
  'font-weight',
  'font-style',
  'font-variant-numeric',
  'letter-spacing',
  'text-anchor',
  'dominant-baseline',
  'visibility',
] as const;

/** Properties that do not inherit: written where they differ from their initial value. */
const OWN: ReadonlyArray<readonly [string, string]> = [
  ['opacity', '1'],
  ['alignment-baseline', 'auto'],
  ['baseline-shift', '0px'],
];

/** Attributes that only make sense on the live page (focus, roles of interactive marks). */
const LIVE_ATTRIBUTES = ['tabindex', 'role', 'aria-valuemin', 'aria-valuemax', 'aria-valuenow'];

/** Around the picture and between the title and the stage, px. */
const PAD = 16;
const TITLE_SIZE = 16;
const LINK_SIZE = 11;
/** JetBrains Mono advances 600/1000 em per character: the link wraps at a known width. */
const MONO_ADVANCE_EM = 0.6;
/** A link longer than this many lines is cut (and says so): the JSON log carries it in full. */
const MAX_LINK_LINES = 8;

/** What the picture says above the stage. */
export interface ViewExportOptions {
  /** First line: what is shown and when, e.g. "Token bucket vs Fixed window · t = 2.5 s". */
  title: string;
  /** The link that reopens this moment (may be empty). */
  link: string;
}

/** A standalone SVG document and its size in CSS px. */
export interface ExportedView {
  svg: string;
  width: number;
  height: number;
  /** Fonts that could not be embedded (the file then falls back to the viewer's fonts). */
  missingFonts: string[];
}

type Styles = Map<string, string>;

function styleMap(el: Element): Styles {
  const cs = getComputedStyle(el);
  const out: Styles = new Map();
  for (const p of INHERITED) out.set(p, cs.getPropertyValue(p));
  for (const [p] of OWN) out.set(p, cs.getPropertyValue(p));
  out.set('display', cs.getPropertyValue('display'));
  return out;
}

/** The declarations to write on a clone: inherited ones that differ from `parent` (all, at a root). */
function declarations(own: Styles, parent: Styles | null): string {
  const parts: string[] = [];
  for (const p of INHERITED) {
    const v = own.get(p) ?? '';
    if (v !== '' && (parent === null || parent.get(p) !== v)) parts.push(`${p}:${v}`);
  }
  for (const [p, initial] of OWN) {
    const v = own.get(p) ?? '';
    if (v !== '' && v !== initial && v !== 'normal') parts.push(`${p}:${v}`);
  }
  return parts.join(';');
}

/** Characters drawn, per font face (family|weight|style), for choosing the font files to embed. */
type UsedText = Map<string, Set<number>>;

function noteText(used: UsedText, styles: Styles, text: string): void {
  const key = `${primaryFamily(styles.get('font-family') ?? '')}|${styles.get('font-weight') ?? '400'}|${styles.get('font-style') ?? 'normal'}`;
  let set = used.get(key);
  if (set === undefined) used.set(key, (set = new Set()));
  for (const ch of text) set.add(ch.codePointAt(0) as number);
}

/** A deep copy of a live SVG subtree with its computed styles inline. */
function cloneStyled(src: Element, parent: Styles | null, used: UsedText): Element | null {
  const tag = src.localName;
  if (tag === 'title' || tag === 'desc') return src.cloneNode(true) as Element;
  const own = styleMap(src);
  if (own.get('display') === 'none') return null;
  const copy = src.cloneNode(false) as Element;
  for (const a of LIVE_ATTRIBUTES) copy.removeAttribute(a);
  const decl = declarations(own, parent);
  const inline = copy.getAttribute('style');
  if (decl !== '') copy.setAttribute('style', inline === null ? decl : `${inline};${decl}`);
  for (const child of Array.from(src.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE) {
      const text = child.textContent ?? '';
      if (text.trim() !== '') noteText(used, own, text);
      copy.appendChild(child.cloneNode(false));
    } else if (child.nodeType === Node.ELEMENT_NODE) {
      const c = cloneStyled(child as Element, own, used);
      if (c !== null) copy.appendChild(c);
    }
  }
  return copy;
}

function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

const round = (n: number) => Math.round(n * 100) / 100;

/** A run of text in the computed styles of the HTML element it came from. */
interface Run {
  text: string;
  styles: Styles;
  color: string;
  /** Where the run starts (px), when the page places it apart from the run before. */
  x?: number;
}

/** One line of text, vertically centred on y (as a line box centres its text). */
function textLine(runs: readonly Run[], x: number, y: number, used: UsedText): SVGTextElement {
  const text = svgEl('text', { x: round(x), y: round(y), 'dominant-baseline': 'central' });
  // Spaces between runs (" · Envoy …") stay as they are on the page.
  text.setAttributeNS('http://www.w3.org/XML/1998/namespace', 'xml:space', 'preserve');
  for (const run of runs) {
    const span = svgEl('tspan', {
      style: [
        `fill:${run.color}`,
        `font-family:${run.styles.get('font-family') ?? ''}`,
        `font-size:${run.styles.get('font-size') ?? ''}`,
        `font-weight:${run.styles.get('font-weight') ?? ''}`,
      ].join(';'),
    });
    if (run.x !== undefined) span.setAttribute('x', String(round(run.x)));
    span.textContent = run.text;
    noteText(used, run.styles, run.text);
    text.appendChild(span);
  }
  return text;
}

/** The text runs of an HTML heading: its own text and each child element's, in their colours. */
function htmlRuns(el: Element): Run[] {
  const runs: Run[] = [];
  const walk = (node: Element) => {
    const styles = styleMap(node);
    if (styles.get('display') === 'none') return;
    const color = getComputedStyle(node).color;
    for (const child of Array.from(node.childNodes)) {
      if (child.nodeType === Node.TEXT_NODE) {
        const text = (child.textContent ?? '').replace(/\s+/g, ' ');
        if (text !== '') runs.push({ text, styles, color });
      } else if (child instanceof HTMLSelectElement) {
        const option = child.selectedOptions[0];
        if (option !== undefined) runs.push({ text: option.text, styles, color });
      } else if (child instanceof Element) walk(child);
    }
  };
  walk(el);
  return runs;
}

/** A card as the page draws it: background, border, radius. */
function card(el: Element, box: DOMRect, origin: { x: number; y: number }): SVGRectElement {
  const cs = getComputedStyle(el);
  const border = parseFloat(cs.borderTopWidth) || 0;
  return svgEl('rect', {
    x: round(box.left - origin.x + border / 2),
    y: round(box.top - origin.y + border / 2),
    width: round(box.width - border),
    height: round(box.height - border),
    rx: parseFloat(cs.borderTopLeftRadius) || 0,
    style: `fill:${cs.backgroundColor};stroke:${border > 0 ? cs.borderTopColor : 'none'};stroke-width:${border}px`,
  });
}

/** One live `<svg>` drawing placed where it is on the page (scaled as CSS scales it). */
function placedDrawing(
  svg: SVGSVGElement,
  origin: { x: number; y: number },
  used: UsedText,
): SVGGElement | null {
  const box = svg.getBoundingClientRect();
  const w = parseFloat(svg.getAttribute('width') ?? '');
  const h = parseFloat(svg.getAttribute('height') ?? '');
  if (!(box.width > 0 && w > 0 && h > 0)) return null;
  const scale = box.width / w;
  const transform =
    `translate(${round(box.left - origin.x)},${round(box.top - origin.y)})` +
    (Math.abs(scale - 1) > 1e-3 ? ` scale(${round(scale * 1000) / 1000})` : '');
  const own = styleMap(svg);
  const g = svgEl('g', { transform, style: declarations(own, null) });
  for (const a of ['class', 'data-testid', 'aria-label']) {
    const v = svg.getAttribute(a);
    if (v !== null) g.setAttribute(a, v);
  }
  for (const child of Array.from(svg.childNodes)) {
    if (child.nodeType !== Node.ELEMENT_NODE) continue;
    const c = cloneStyled(child as Element, own, used);
    if (c !== null) g.appendChild(c);
  }
  return g;
}

/** The link, hard-wrapped to the width (a URL has no spaces to break at); very long ones cut. */
function wrapLink(link: string, width: number): string[] {
  const perLine = Math.max(20, Math.floor(width / (LINK_SIZE * MONO_ADVANCE_EM)));
  const lines: string[] = [];
  for (let i = 0; i < link.length; i += perLine) lines.push(link.slice(i, i + perLine));
  if (lines.length <= MAX_LINK_LINES) return lines;
  const kept = lines.slice(0, MAX_LINK_LINES - 1);
  const shown = kept.join('').length;
  kept.push(`… ${link.length - shown} more characters (the JSON decision log has the full link)`);
  return kept;
}

// ---------------------------------------------------------------------------------------------
// Fonts
// ---------------------------------------------------------------------------------------------

/** The weight the browser picks among `available` for `wanted` (CSS Fonts 4, §5.2 step 4). */
export function matchWeight(wanted: number, available: readonly number[]): number | undefined {
  const asc = [...new Set(available)].sort((a, b) => a - b);
  const up = (from: number) => asc.filter((w) => w >= from);
  const down = (from: number) => asc.filter((w) => w <= from).reverse();
  if (asc.includes(wanted)) return wanted;
  if (wanted >= 400 && wanted <= 500) {
    return up(wanted).filter((w) => w <= 500)[0] ?? down(wanted)[0] ?? up(wanted)[0] ?? asc.at(-1);
  }
  if (wanted < 400) return down(wanted)[0] ?? up(wanted)[0];
  return up(wanted)[0] ?? down(wanted)[0];
}

/** The faces that draw some character of the picture: only those subsets are embedded. */
function facesUsed(used: UsedText, faces: readonly Face[]): Face[] {
  const chosen = new Set<Face>();
  for (const [key, chars] of used) {
    const [family = '', weightText = '400', style = 'normal'] = key.split('|');
    const ofFamily = faces.filter((f) => f.family.toLowerCase() === family.toLowerCase());
    const weight = matchWeight(
      parseInt(weightText, 10) || 400,
      ofFamily.map((f) => f.weight),
    );
    for (const f of ofFamily) {
      if (f.weight !== weight || (f.style !== style && f.style !== 'normal')) continue;
      const covers = (cp: number) =>
        f.ranges.length === 0 || f.ranges.some(([a, b]) => cp >= a && cp <= b);
      for (const cp of chars) {
        if (covers(cp)) {
          chosen.add(f);
          break;
        }
      }
    }
  }
  return [...chosen];
}

const fontData = new Map<string, Promise<string>>();

/** A font file as a data: URL (fetched once per page). */
function dataUrl(url: string): Promise<string> {
  let p = fontData.get(url);
  if (p === undefined) {
    p = fetch(url)
      .then((r) => {
        if (!r.ok) throw new Error(`${r.status} ${url}`);
        return r.blob();
      })
      .then(
        (blob) =>
          new Promise<string>((resolve, reject) => {
            const reader = new FileReader();
            // readAsDataURL gives a string; the type is set as the @font-face src names it.
            reader.onload = () =>
              resolve((reader.result as string).replace(/^data:[^;,]*/, 'data:font/woff2'));
            reader.onerror = () => reject(reader.error ?? new Error(`cannot read ${url}`));
            reader.readAsDataURL(blob);
          }),
      );
    // A failed fetch is retried next time.
    p.catch(() => fontData.delete(url));
    fontData.set(url, p);
  }
  return p;
}

async function fontFaceCss(faces: readonly Face[]): Promise<{ css: string; missing: string[] }> {
  const missing: string[] = [];
  const rules = await Promise.all(
    faces.map(async (f) => {
      try {
        const data = await dataUrl(f.url);
        return (
          `@font-face{font-family:"${f.family}";font-style:${f.style};font-weight:${f.weight};` +
          `src:url(${data}) format("woff2")` +
          (f.unicodeRange === '' ? '' : `;unicode-range:${f.unicodeRange}`) +
          '}'
        );
      } catch {
        missing.push(`${f.family} ${f.weight}`);
        return '';
      }
    }),
  );
  return { css: rules.join('\n'), missing };
}

// ---------------------------------------------------------------------------------------------
// The picture
// ---------------------------------------------------------------------------------------------

/**
 * The timeline panel and the lanes of `stage` as one standalone SVG: a title and the link on top,
 * then the cards, headings and drawings where the page has them, on the page's background colour.
 * The DOM is read synchronously at the call (the moment drawn); only the font files are awaited.
 */
export async function exportViewSvg(
  stage: Element,
  options: ViewExportOptions,
): Promise<ExportedView> {
  const timeline = stage.querySelector('.timeline-panel');
  const lanes = Array.from(stage.querySelectorAll('.lanes > .lane'));
  const cards = [...(timeline === null ? [] : [timeline]), ...lanes];
  if (cards.length === 0)
    throw new Error('Nothing to export: the stage shows no timeline or lane.');
  const boxes = cards.map((c) => c.getBoundingClientRect());
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.right));
  const bottom = Math.max(...boxes.map((b) => b.bottom));
  const stageWidth = right - left;
  const width = Math.ceil(stageWidth + 2 * PAD);

  const used: UsedText = new Map();
  const page = getComputedStyle(document.body);
  const pageStyles = styleMap(document.body);
  const muted =
    stage.querySelector('.lane-header .muted') ?? stage.querySelector('.muted') ?? document.body;
  const mutedColor = getComputedStyle(muted).color;
  const monoProbe = stage.querySelector('.clock-readout') ?? document.body;
  const monoStyles = styleMap(monoProbe);
  monoStyles.set('font-size', `${LINK_SIZE}px`);
  monoStyles.set('font-weight', '400');

  // Title and link, then the stage below them.
  const header = svgEl('g', { 'data-testid': 'export-title' });
  let y = PAD + TITLE_SIZE * 0.7;
  const titleStyles = new Map(pageStyles).set('font-size', `${TITLE_SIZE}px`);
  titleStyles.set('font-weight', '600');
  header.appendChild(
    textLine([{ text: options.title, styles: titleStyles, color: page.color }], PAD, y, used),
  );
  y += TITLE_SIZE * 0.7;
  if (options.link !== '') {
    const a = svgEl('a', { href: options.link });
    for (const line of wrapLink(options.link, stageWidth)) {
      y += LINK_SIZE * 1.45;
      a.appendChild(
        textLine(
          [{ text: line, styles: monoStyles, color: mutedColor }],
          PAD,
          y - LINK_SIZE / 2,
          used,
        ),
      );
    }
    header.appendChild(a);
  }
  const stageTop = Math.ceil(y + 12);
  const origin = { x: left - PAD, y: top - stageTop };
  const height = Math.ceil(stageTop + (bottom - top) + PAD);

  const body = svgEl('g', { 'data-testid': 'export-stage' });
  cards.forEach((el, i) => {
    body.appendChild(card(el, boxes[i] as DOMRect, origin));
    const heading = el.querySelector('.lane-header');
    if (heading !== null) {
      // Each part of the heading (name, instance picker, wall clock) starts where the page has it.
      const runs: Run[] = [];
      for (const child of Array.from(heading.children)) {
        const r = htmlRuns(child);
        const first = r[0];
        if (first === undefined) continue;
        first.x = child.getBoundingClientRect().left - origin.x;
        runs.push(...r);
      }
      const h3 = (heading.querySelector('h3') ?? heading).getBoundingClientRect();
      body.appendChild(textLine(runs, h3.left - origin.x, h3.top + h3.height / 2 - origin.y, used));
    }
    for (const svg of Array.from(el.querySelectorAll<SVGSVGElement>('svg.rl-viz'))) {
      const g = placedDrawing(svg, origin, used);
      if (g !== null) body.appendChild(g);
    }
  });

  const { css, missing } = await fontFaceCss(facesUsed(used, pageFaces()));
  // XMLSerializer writes the SVG namespace (xmlns) on the root itself.
  const root = svgEl('svg', {
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    style: declarations(pageStyles, null),
  });
  const title = svgEl('title', {});
  title.textContent = options.title;
  root.appendChild(title);
  if (css !== '') {
    const defs = svgEl('defs', {});
    const style = svgEl('style', {});
    style.textContent = css;
    defs.appendChild(style);
    root.appendChild(defs);
  }
  root.appendChild(
    svgEl('rect', { width, height, style: `fill:${page.backgroundColor};stroke:none` }),
  );
  root.appendChild(header);
  root.appendChild(body);
  const svg = `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(root)}\n`;
  return { svg, width, height, missingFonts: missing };
}

/** Canvas limits Chromium and Firefox keep to (px per side, px in all). */
const MAX_CANVAS_SIDE = 16_384;
const MAX_CANVAS_AREA = 16_384 * 16_384;

/**
 * The SVG drawn onto a canvas at `scale` (default 2, for sharp text on high-density screens; less
 * when the picture would pass the browser's canvas limits), as a PNG.
 */
export async function svgToPng(view: ExportedView, scale = 2): Promise<Blob> {
  const fit = Math.min(
    scale,
    MAX_CANVAS_SIDE / view.width,
    MAX_CANVAS_SIDE / view.height,
    Math.sqrt(MAX_CANVAS_AREA / (view.width * view.height)),
  );
  const url = URL.createObjectURL(new Blob([view.svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(view.width * fit);
    canvas.height = Math.round(view.height * fit);
    const ctx = canvas.getContext('2d');
    if (ctx === null) throw new Error('This browser cannot draw a PNG (no canvas).');
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) =>
      canvas.toBlob(
        (blob) => (blob === null ? reject(new Error('The PNG could not be made.')) : resolve(blob)),
        'image/png',
      ),
    );
  } finally {
    URL.revokeObjectURL(url);
  }
}
