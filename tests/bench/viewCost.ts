/**
 * What each algorithm view costs a playing page: for each kind of the frame bench's
 * compare page, that page with all six lanes of that kind (200 r/s, 1×), scrolled to lanes 3–4 as
 * the frame bench scrolls, traced TRACE_S seconds (default 4): the renderer main thread's CPU time
 * per frame (median, p95), as `BENCH=frames` counts it. It is the whole page's: each lane's view
 * and its request-flow strip (whose load follows the kind's mix of outcomes), the clock bar. With
 * several dist folders, each kind is measured from every folder in turn, the order alternating per
 * round (ROUNDS, default 2), and pooled per folder: a paired A/B of a view change. A kind far
 * above the others is the one to look at (it found the nginx view's ~40 bouncing marks a lane:
 * 11.5–13.3 ms a frame where the others took 4.4–7.7). KINDS (comma-separated) limits the kinds to
 * some of the compare page's six. Prints; asserts nothing. Run, after `npm run build`: `npx vite
 * build --ssr tests/bench/viewCost.ts --outDir node_modules/.cache/viewcost --emptyOutDir && node
 * node_modules/.cache/viewcost/viewCost.js [distDir ...]` (bundled as `npm run bench` is: under
 * tsx, node cannot take lz-string's named imports).
 */
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

const dists = process.argv.length > 2 ? process.argv.slice(2) : ['dist'];
const rounds = Number(process.env.ROUNDS ?? 2);
const traceMs = Number(process.env.TRACE_S ?? 4) * 1000;
const only = process.env.KINDS?.split(',');

const compare = compareConfig();
const kinds = compare.limiters.map((l) => l.config.kind as string);
const unknown = (only ?? []).filter((k) => !kinds.includes(k));
if (unknown.length > 0)
  throw new Error(`KINDS: ${unknown.join(', ')} not on the compare page (${kinds.join(', ')})`);
const lanes = compare.limiters.filter((l) => only === undefined || only.includes(l.config.kind));
const servers: Array<Awaited<ReturnType<typeof startPreview>>> = [];
let browser: Awaited<ReturnType<typeof launchPinned>>['browser'] | undefined;
const figures = (cpu: readonly number[]): string => {
  const s = [...cpu].sort((a, b) => a - b);
  return `median ${quantile(s, 0.5).toFixed(2)} ms, p95 ${quantile(s, 0.95).toFixed(2)} ms`;
};
try {
  for (const d of dists) servers.push(await startPreview(d));
  browser = (await launchPinned()).browser;
  // As the frame bench's pages are made.
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  console.log(
    `CPU per frame, six lanes of one kind at 200 r/s scrolled to lanes 3–4, ${rounds} round(s) ` +
      `of ${traceMs / 1000} s per folder`,
  );
  for (const lane of lanes) {
    const pooled = dists.map(() => [] as number[]);
    const link = encodeConfig({ ...compare, limiters: compare.limiters.map(() => lane) });
    for (let r = 0; r < rounds; r += 1) {
      const order = dists.map((_, i) => i);
      if (r % 2 === 1) order.reverse();
      for (const i of order) {
        const page = await context.newPage();
        await openPlaying(page, `${(servers[i] as { url: string }).url}?${link}`);
        await scrollToLanes34(page);
        await page.waitForTimeout(500);
        (pooled[i] as number[]).push(...(await traceFrames(page, traceMs)).map((f) => f.cpuMs));
        await page.close();
      }
    }
    dists.forEach((dist, i) => {
      const where = dists.length > 1 ? ` (${dist})` : '';
      console.log(`  ${lane.config.kind}${where}: ${figures(pooled[i] as number[])}`);
    });
  }
} finally {
  await browser?.close();
  for (const s of servers) s.child.kill();
}
