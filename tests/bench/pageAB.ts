/**
 * Paired A/B of the frame bench's compare page while it plays (issue 11): each round opens the
 * page (six limiters, 200 r/s, 1×) from every dist folder given, in turn (the order alternating
 * per round), traces 3 s at the top and 3 s scrolled to lanes 3–4 as the bench scrolls, and prints
 * the main thread's CPU per frame (median, p95; `traceFrames`, as `BENCH=frames` counts it) per
 * round and pooled per folder. The other load here makes one run noise; interleaved rounds share
 * it. Prints; asserts nothing. Run: `npx vite build --ssr tests/bench/pageAB.ts --outDir
 * node_modules/.cache/pageab --emptyOutDir` then `node node_modules/.cache/pageab/pageAB.js distA
 * distB [...]` (env ROUNDS, default 4). Bundled as `npm run bench` is: under tsx, node cannot take
 * lz-string's named imports.
 *
 * CSS_VARIANTS (a JSON object, name → CSS rules) adds, for each entry, a copy of the first folder
 * whose page carries those rules (a <style> at the end of its <head>), compared with the others:
 * what a part of the page costs per frame without a build, e.g.
 * `CSS_VARIANTS='{"no-text":".lane .rl-viz text{display:none}"}'` (the text of the lanes'
 * drawings is neither laid out nor painted; React still renders it). The copies go to the system's
 * temporary folder.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeConfig } from '../../src/config';
import {
  compareConfig,
  launchPinned,
  openPlaying,
  quantile,
  scrollToLanes34,
  startPreview,
  traceFrames,
} from './frames';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
const TRACE_MS = 3000;

function spread(values: readonly number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `median ${quantile(s, 0.5).toFixed(2)}, p95 ${quantile(s, 0.95).toFixed(2)} (n ${s.length})`;
}

/** A copy of `dist` whose index.html ends its <head> with `css`; returns its folder. */
function withCss(dist: string, name: string, css: string): string {
  const folder = join(mkdtempSync(join(tmpdir(), 'pageab-')), name.replace(/[^\w-]/g, '_'));
  cpSync(dist, folder, { recursive: true });
  const index = join(folder, 'index.html');
  const html = readFileSync(index, 'utf8');
  if (!html.includes('</head>'))
    throw new Error(`${index} has no </head> to put the rules before.`);
  writeFileSync(index, html.replace('</head>', `<style>${css}</style></head>`));
  return folder;
}

async function main(): Promise<void> {
  const dists = process.argv.slice(2);
  if (dists.length === 0) throw new Error('Give one or more built folders.');
  const variants = JSON.parse(process.env.CSS_VARIANTS ?? '{}') as Record<string, string>;
  for (const [name, css] of Object.entries(variants)) {
    const folder = withCss(dists[0] as string, name, css);
    console.log(`${folder}: ${dists[0]} with ${css}`);
    dists.push(folder);
  }
  const { browser } = await launchPinned();
  const servers = await Promise.all(dists.map((d) => startPreview(d)));
  const pooled = new Map(dists.map((d) => [d, { top: [] as number[], scrolled: [] as number[] }]));
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = dists.map((_, i) => (round % 2 === 0 ? i : dists.length - 1 - i));
      for (const i of order) {
        const dist = dists[i] as string;
        const server = servers[i] as { url: string };
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await openPlaying(page, `${server.url}?${encodeConfig(compareConfig())}`);
        const top = (await traceFrames(page, TRACE_MS)).map((f) => f.cpuMs);
        await scrollToLanes34(page);
        await page.waitForTimeout(500);
        const scrolled = (await traceFrames(page, TRACE_MS)).map((f) => f.cpuMs);
        await page.close();
        const p = pooled.get(dist) as { top: number[]; scrolled: number[] };
        p.top.push(...top);
        p.scrolled.push(...scrolled);
        console.log(
          `round ${round + 1} ${dist}: CPU per frame, top ${spread(top)}; scrolled ${spread(scrolled)}`,
        );
      }
    }
    for (const [dist, p] of pooled)
      console.log(
        `${dist} (pooled over ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}): CPU per frame, top ${spread(p.top)}; scrolled ${spread(p.scrolled)}`,
      );
  } finally {
    await browser.close();
    for (const s of servers) s.child.kill();
  }
}

void main();
