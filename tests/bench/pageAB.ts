/**
 * Paired A/B of the frame bench's compare page while it plays: each round opens the
 * page (six limiters, 200 r/s, 1×) from every dist folder given, in turn (the order alternating
 * per round), traces 3 s at the top and 3 s scrolled to lanes 3–4 as the bench scrolls, and prints
 * the main thread's CPU per frame (median, p95; `traceFrames`, as `BENCH=frames` counts it) per
 * round and pooled per folder. The other load here makes one run noise; interleaved rounds share
 * it. Prints; asserts nothing. Run: `npx vite build --ssr tests/bench/pageAB.ts --outDir
 * node_modules/.cache/pageab --emptyOutDir` then `node node_modules/.cache/pageab/pageAB.js distA
 * distB [...]` (env ROUNDS, default 4; RATE=4 throttles the CPU 4×, as the phone-class
 * figures, and the frames drawn per second while traced are printed too). Bundled as `npm run
 * bench` is: under tsx, node cannot take lz-string's named imports.
 *
 * CSS_VARIANTS (a JSON object, name → CSS rules) adds, for each entry, a copy of the first folder
 * whose page carries those rules (a <style> at the end of its <head>), compared with the others:
 * what a part of the page costs per frame without a build, e.g.
 * `CSS_VARIANTS='{"no-text":".lane .rl-viz text{display:none}"}'` (the text of the lanes'
 * drawings is neither laid out nor painted; React still renders it). The copies go to the system's
 * temporary folder.
 *
 * SOURCE_VARIANTS (a JSON object, name → a list of [file, text, replacement]) adds, for each entry,
 * a build of a copy of this checkout's sources with those replacements made (each text must occur
 * exactly once in its file; the checkout is left alone), compared with the others: what a part of
 * the app's work costs per frame, e.g. lanes 3–4 never redrawn while playing, which leaves the
 * page's own cost:
 * `SOURCE_VARIANTS='{"frozen":[["src/ui/stage/LanesPanel.tsx","useOnScreen(articleRef)","false"]]}'`.
 * Run it from the repository's folder.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { encodeConfig } from '../../src/config';
import {
  compareConfig,
  launchPinned,
  openPlaying,
  quantile,
  scrollToLanes34,
  startPreview,
  throttle,
  traceFrames,
  viteScript,
} from './frames';

const ROUNDS = Number(process.env.ROUNDS ?? 4);
/** CPU throttling of each page (`RATE=4`: the phone-class figures). */
const RATE = Number(process.env.RATE ?? 1);
const TRACE_MS = 3000;

/** Frames drawn per second of a trace that split into `frames` frames (the tracer slows the page). */
function fps(frames: number): string {
  return `${((frames + 1) / (TRACE_MS / 1000)).toFixed(1)} fps`;
}

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

/** What a checkout's build reads, besides node_modules. */
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json', 'tsconfig.json'];

/**
 * A build of a copy of the checkout in the current folder with `edits` ([file, text, replacement])
 * made; returns the built folder. Throws, naming the file, when a text is not there exactly once.
 */
function buildWith(name: string, edits: ReadonlyArray<readonly [string, string, string]>): string {
  const root = mkdtempSync(join(tmpdir(), 'pageab-src-'));
  for (const part of SOURCES) cpSync(part, join(root, part), { recursive: true });
  symlinkSync(resolve('node_modules'), join(root, 'node_modules'), 'dir');
  for (const [file, text, replacement] of edits) {
    const path = join(root, file);
    const source = readFileSync(path, 'utf8');
    const found = source.split(text).length - 1;
    if (found !== 1)
      throw new Error(
        `SOURCE_VARIANTS "${name}": ${file} holds ${JSON.stringify(text)} ${found} times, not once.`,
      );
    writeFileSync(
      path,
      source.replace(text, () => replacement),
    );
  }
  const out = join(root, 'dist');
  const built = spawnSync(
    process.execPath,
    [viteScript(), 'build', '--outDir', out, '--emptyOutDir', '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (built.status !== 0) throw new Error(`SOURCE_VARIANTS "${name}": the build failed.`);
  return out;
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
  const sources = JSON.parse(process.env.SOURCE_VARIANTS ?? '{}') as Record<
    string,
    Array<[string, string, string]>
  >;
  for (const [name, edits] of Object.entries(sources)) {
    const folder = buildWith(name, edits);
    console.log(`${folder}: "${name}", ${edits.map(([f]) => f).join(', ')} edited`);
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
        await throttle(page, RATE);
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
          `round ${round + 1} ${dist}: CPU per frame, top ${spread(top)}; scrolled ${spread(scrolled)}` +
            `; frames drawn (traced) top ${fps(top.length)}, scrolled ${fps(scrolled.length)}`,
        );
      }
    }
    for (const [dist, p] of pooled)
      console.log(
        `${dist} (pooled over ${ROUNDS} round${ROUNDS === 1 ? '' : 's'}${RATE === 1 ? '' : `, CPU throttled ${RATE}×`}): ` +
          `CPU per frame, top ${spread(p.top)}; scrolled ${spread(p.scrolled)}; ` +
          `frames drawn (traced) top ${fps(p.top.length / ROUNDS)}, scrolled ${fps(p.scrolled.length / ROUNDS)}`,
      );
  } finally {
    await browser.close();
    for (const s of servers) s.child.kill();
  }
}

void main();
