/**
 * Which per-frame SVG changes make Chromium layerize the whole page again. A probe, not
 * the app: a plain page (no React) with one SVG of ~600 circles in groups, a few shapes and a text,
 * and one change made in every animation frame. For each kind of change it traces 1.5 s and prints
 * the frames (`Layerize` events), how many of them took the full `PaintArtifactCompositor::Update`
 * (layerization from scratch: about 0.45–0.6 ms a frame on the compare page scrolled to lanes 3–4)
 * instead of the repaint-only path, and how many main-thread paints there were.
 *
 * What the pinned Chromium did (2026-12-05), which explains why the lanes' views, and not the
 * request-flow strips, take the full update in every frame:
 * - a non-composited transform whose value changes (a sliding group's `translate`) → full;
 * - a paint chunk (a run of drawing under one transform, clip and effect) whose bounds change → full,
 *   e.g. a mark moving or appearing at the edge of a transformed group; invisible shapes (fill none,
 *   transparent, fill-opacity 0) are not painted and do not hold the bounds, a painted backdrop does;
 * - a change inside a chunk that leaves its bounds alone (a circle moved or added among others, a
 *   path rewritten in place, a text) → repaint only;
 * - `will-change: transform` on an SVG element does not composite it; a CSS animation of its
 *   transform does (no main-thread paint at all), but a change inside it that moves its bounds is
 *   again a full update.
 * Run: `npx vite build --ssr tests/bench/pacProbe.ts --outDir node_modules/.cache/pac --emptyOutDir
 * && node node_modules/.cache/pac/pacProbe.js`.
 */
import { launchPinned, traceDuring } from './frames';

interface Case {
  /** What changes in every frame (JavaScript in the page; `n` counts frames, `NS` is SVG's). */
  step: string;
  /** Markup put first in the small transformed group `#small`. */
  backdrop?: string;
  /** Whether `#big` (the second group of circles) plays the CSS animation `slide`. */
  animated?: boolean;
}

const MOVE_RECT = `document.querySelector('#r').setAttribute('x', String(300 + (n % 100)));`;
const SWAP_CIRCLE = (group: string, x0: number) =>
  `{ const g = document.querySelector('${group}'); g.removeChild(g.firstElementChild);` +
  ` const c = document.createElementNS(NS, 'circle'); c.setAttribute('cx', String(${x0} + (n % 80) * 10));` +
  ` c.setAttribute('cy', '50'); c.setAttribute('r', '3'); g.appendChild(c); }`;

const CASES: Record<string, Case> = {
  'nothing changes': { step: '' },
  'circle moved among others': {
    step: `document.querySelector('#plain').firstElementChild.setAttribute('cx', String(n % 100));`,
  },
  'circles added and removed among others': { step: SWAP_CIRCLE('#plain', 10) },
  'text changed': { step: `document.querySelector('#t').textContent = String(n);` },
  'path rewritten in place (same box)': {
    step: `document.querySelector('#p').setAttribute('d', n % 2 ? 'M300,200h20v20h-20z' : 'M300,200h20v20z');`,
  },
  'path moved (its chunk grows and shrinks)': {
    step: `document.querySelector('#p').setAttribute('d', 'M' + (300 + (n % 100)) + ',200h20v20h-20z');`,
  },
  'rect moved in a small transformed group': { step: MOVE_RECT },
  '... with an invisible backdrop (fill none)': {
    step: MOVE_RECT,
    backdrop: '<rect x="-1000" y="-100" width="3000" height="600" fill="none"/>',
  },
  '... with an invisible backdrop (fill-opacity 0)': {
    step: MOVE_RECT,
    backdrop: '<rect x="-1000" y="-100" width="3000" height="600" fill-opacity="0"/>',
  },
  '... with a painted backdrop': {
    step: MOVE_RECT,
    backdrop: '<rect x="-1000" y="-100" width="3000" height="600" fill="white"/>',
  },
  "group's transform attribute changed": {
    step: `document.querySelector('#big').setAttribute('transform', 'translate(' + (n % 50) + ',100)');`,
  },
  "group's CSS transform changed (will-change: transform)": {
    step: `const g = document.querySelector('#big'); g.style.willChange = 'transform'; g.style.transform = 'translate(' + (n % 50) + 'px,100px)';`,
  },
  "group's transform as a CSS animation": { step: '', animated: true },
  '... and circles swapped inside it': { step: SWAP_CIRCLE('#big', 10), animated: true },
  '... and a circle moving past its edge': {
    step: `document.querySelector('#big').lastElementChild.setAttribute('cx', String(900 + (n % 100)));`,
    animated: true,
  },
};

function pageHtml(c: Case): string {
  const circles = Array.from(
    { length: 300 },
    (_, i) => `<circle cx="${(i % 80) * 10}" cy="${20 + Math.floor(i / 80) * 10}" r="3"/>`,
  ).join('');
  return `<!doctype html><body style="margin:0">
    <style>@keyframes slide { from { transform: translate(0px, 100px) } to { transform: translate(50px, 100px) } }</style>
    <div style="will-change: transform"><svg width="900" height="400">
      <g id="plain">${circles}</g>
      <g id="big" transform="translate(3,100)"${c.animated === true ? ' style="animation: slide 2s linear infinite"' : ''}>${circles}</g>
      <g transform="translate(1,1)">${c.backdrop ?? ''}<rect id="r" x="300" y="250" width="10" height="10"/></g>
      <path id="p" d="M300,200h20v20z"/>
      <text id="t" x="10" y="380">0</text>
    </svg></div>
    <script>const NS = 'http://www.w3.org/2000/svg'; let n = 0;
      function loop() { n += 1; ${c.step} requestAnimationFrame(loop); }
      requestAnimationFrame(loop);</script></body>`;
}

async function main(): Promise<void> {
  const { browser } = await launchPinned();
  try {
    console.log('frames  full  paints  change made every frame');
    for (const [name, c] of Object.entries(CASES)) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.setContent(pageHtml(c));
      await page.waitForTimeout(500);
      const { events } = await traceDuring(page, ['blink', 'devtools.timeline'], () =>
        page.waitForTimeout(1500),
      );
      const count = (n: string) => events.filter((e) => e.name === n).length;
      const cols = [count('Layerize'), count('PaintArtifactCompositor::Update'), count('Paint')];
      console.log(`${cols.map((v) => String(v).padStart(6)).join('')}  ${name}`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

await main();
