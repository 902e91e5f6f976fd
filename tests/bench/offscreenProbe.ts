/**
 * Where a lane's drawing could run: a probe, not the app. Measured with pageAB's
 * SOURCE_VARIANTS, the scrolled compare page spends about 5.1 ms of main-thread CPU per frame at
 * 1×: about 1.6 ms of it with lanes 3–4 never redrawn, about 0.8–0.9 ms more for each of the two
 * lanes, and about 1.8 ms of React commit and Chromium pipeline work that either lane's change
 * sets off. The 4× scrolled target needs about 1.3 ms less. This opens a plain page (no React)
 * with two lane-sized canvases that draw, every frame, about what lanes 3–4 draw (about 530
 * request marks, a few windows and 20 texts each, all moving), in two ways:
 * - `main`: drawn on the main thread, in its animation frame;
 * - `worker`: each canvas handed to a worker (`transferControlToOffscreen`), which draws it in its
 *   own animation frames; the main thread only updates a clock readout, as the app's clock bar.
 * For each, at 1× and 4× CPU throttling, it prints the main thread's fps and traced CPU per frame,
 * and how many frames the canvases drew per second (the worker counts its own). For the worker it
 * also prints its time to draw both canvases and a fixed loop's time in it: CDP's CPU throttling
 * does not reach workers (in three runs the loop took 37–59 ms at 4× against 39 ms at 1×), so on
 * a phone the worker's time is about the rate times the 1× figure. Prints; asserts nothing. Run: `npx vite build --ssr
 * tests/bench/offscreenProbe.ts --outDir node_modules/.cache/offscreen --emptyOutDir && node
 * node_modules/.cache/offscreen/offscreenProbe.js`. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { launchPinned, quantile, startPreview, throttle, traceFrames } from './frames';

const RECORD_MS = 5000;

/** The drawing of one lane at time `t` (ms), shared by both ways (as source text). */
const DRAW = `
function drawLane(ctx, w, h, t, lane) {
  ctx.clearRect(0, 0, w, h);
  ctx.font = '12px sans-serif';
  ctx.fillStyle = '#222';
  const shift = -((t * 0.33) % 330);
  // Three window tanks sliding left, with their counts.
  for (let k = 0; k < 4; k += 1) {
    const x = 12 + shift + k * 330;
    ctx.strokeStyle = '#555';
    ctx.strokeRect(x, 44, 326, 76);
    ctx.fillStyle = '#3b82c4';
    const fill = ((t / 10 + k * 37) % 76);
    ctx.fillRect(x + 1, 120 - fill, 324, fill);
    ctx.fillStyle = '#222';
    ctx.fillText(Math.round(fill) + '/100 · ×' + (k + lane), x + 140, 38);
  }
  // Request marks: admitted dots and rejected crosses in stacked columns, sliding with the axis.
  for (let n = 0; n < 350; n += 1) {
    const x = 12 + ((n * 2.4 + shift + 1000) % 880);
    const y = 140 + (n % 3) * 8;
    if (n % 3 === 2) {
      ctx.strokeStyle = '#c2410c';
      ctx.beginPath();
      ctx.moveTo(x - 3, y - 3); ctx.lineTo(x + 3, y + 3);
      ctx.moveTo(x - 3, y + 3); ctx.lineTo(x + 3, y - 3);
      ctx.stroke();
    } else {
      ctx.fillStyle = '#1d6fb8';
      ctx.beginPath();
      ctx.arc(x, y, 3.5, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  // A hundred stored entries and eighty marks on their way through the flow strip.
  ctx.fillStyle = '#60a5fa';
  for (let n = 0; n < 100; n += 1) {
    ctx.beginPath();
    ctx.arc(300 + ((n * 5.7 + shift + 600) % 560), 95 - (n % 4) * 9, 3.5, 0, 2 * Math.PI);
    ctx.fill();
  }
  ctx.fillStyle = '#1d6fb8';
  for (let n = 0; n < 80; n += 1) {
    const p = ((t / 400 + n / 80) % 1);
    ctx.beginPath();
    ctx.arc(120 + p * 700, 290 + (n % 4) * 12, 3.5, 0, 2 * Math.PI);
    ctx.fill();
  }
  // Axis labels, counts and the strip's summary.
  ctx.fillStyle = '#222';
  for (let k = 0; k < 12; k += 1) ctx.fillText((k - 1.2 + (t % 1000) / 1000).toFixed(1) + ' s', 20 + k * 74, 180);
  ctx.fillText('resets in ' + (1000 - (t % 1000)).toFixed(0) + ' ms', 760, 22);
  ctx.fillText(Math.floor(t / 5) % 100 + ' passed · 0 waiting · ' + (Math.floor(t / 7) % 90) + ' rejected', 12, 370);
  ctx.fillText('memory: ' + (Math.floor(t / 9) % 100) + ' entries · 800 B', 12, 395);
}
`;

const WORKER = `${DRAW}
let count = 0;
let drawMs = 0;
self.onmessage = (e) => {
  if (e.data === 'count') { self.postMessage({ count, drawMs }); count = 0; drawMs = 0; return; }
  if (e.data === 'loop') {
    const t0 = performance.now();
    let x = 0;
    for (let k = 0; k < 1.6e7; k += 1) x += Math.sqrt(k);
    self.postMessage({ loopMs: x > 0 ? performance.now() - t0 : NaN });
    return;
  }
  const { canvases } = e.data;
  const ctxs = canvases.map((c) => c.getContext('2d'));
  const frame = (t) => {
    const t0 = performance.now();
    ctxs.forEach((ctx, lane) => drawLane(ctx, 900, 400, t, lane));
    drawMs += performance.now() - t0;
    count += 1;
    self.requestAnimationFrame(frame);
  };
  self.requestAnimationFrame(frame);
};
`;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font:14px sans-serif} .bar{position:sticky;top:0;background:#fff;padding:8px;border-bottom:1px solid #ccc}
canvas{display:block;width:900px;height:400px;margin:8px;border:1px solid #ddd}
</style></head><body><div class="bar">t = <output id="clock">0</output></div>
<canvas id="a" width="900" height="400"></canvas><canvas id="b" width="900" height="400"></canvas>
<script>${DRAW}
const mode = new URLSearchParams(location.search).get('mode');
const clock = document.getElementById('clock');
const canvases = [document.getElementById('a'), document.getElementById('b')];
window.__probe = { frames: [], drawn: 0, worker: null };
if (mode === 'worker') {
  const worker = new Worker('./worker.js');
  const off = canvases.map((c) => c.transferControlToOffscreen());
  worker.postMessage({ canvases: off }, off);
  window.__probe.worker = worker;
}
const ctxs = mode === 'main' ? canvases.map((c) => c.getContext('2d')) : [];
const frame = (t) => {
  window.__probe.frames.push(t);
  clock.textContent = (t / 1000).toFixed(1) + ' s';
  ctxs.forEach((ctx, lane) => drawLane(ctx, 900, 400, t, lane));
  if (mode === 'main') window.__probe.drawn += 1;
  requestAnimationFrame(frame);
};
requestAnimationFrame(frame);
</script></body></html>`;

/** A fixed loop's time in the worker, ms (whether throttling reaches it). */
function workerLoopMs(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const worker = (window as unknown as { __probe: { worker: Worker } }).__probe.worker;
        worker.onmessage = (e: MessageEvent<{ loopMs: number }>) => resolve(e.data.loopMs);
        worker.postMessage('loop');
      }),
  );
}

/**
 * Frames drawn by the canvases in `ms` (the worker's own count, or the main thread's), and the
 * worker's mean time to draw both canvases (NaN on the main thread).
 */
async function drawnIn(page: Page, ms: number): Promise<{ count: number; drawMs: number }> {
  const read = () =>
    page.evaluate(
      () =>
        new Promise<{ count: number; drawMs: number }>((resolve) => {
          const probe = (
            window as unknown as {
              __probe: { drawn: number; worker: Worker | null };
            }
          ).__probe;
          if (probe.worker === null) {
            const n = probe.drawn;
            probe.drawn = 0;
            resolve({ count: n, drawMs: NaN });
            return;
          }
          probe.worker.onmessage = (e: MessageEvent<{ count: number; drawMs: number }>) =>
            resolve({ count: e.data.count, drawMs: e.data.drawMs / Math.max(1, e.data.count) });
          probe.worker.postMessage('count');
        }),
    );
  await read();
  await page.waitForTimeout(ms);
  return read();
}

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'offscreen-'));
  writeFileSync(join(folder, 'index.html'), PAGE);
  writeFileSync(join(folder, 'worker.js'), WORKER);
  const { browser } = await launchPinned();
  const server = await startPreview(folder);
  try {
    for (const rate of [1, 4]) {
      for (const mode of ['main', 'worker']) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.goto(`${server.url}/?mode=${mode}`);
        await throttle(page, rate);
        await page.waitForTimeout(1500);
        await page.evaluate(() => {
          (window as unknown as { __probe: { frames: number[] } }).__probe.frames = [];
        });
        const { count: drawn, drawMs } = await drawnIn(page, RECORD_MS);
        const frames = await page.evaluate(
          () => (window as unknown as { __probe: { frames: number[] } }).__probe.frames,
        );
        const span = (frames.at(-1) ?? 0) - (frames[0] ?? 0);
        const fps = span > 0 ? ((frames.length - 1) * 1000) / span : 0;
        const cpu = (await traceFrames(page, 3000)).map((f) => f.cpuMs).sort((a, b) => a - b);
        console.log(
          `${rate}× ${mode.padEnd(6)}: main thread ${fps.toFixed(1)} fps, CPU per frame median ` +
            `${quantile(cpu, 0.5).toFixed(2)} ms, p95 ${quantile(cpu, 0.95).toFixed(2)} ms; ` +
            `canvases drew ${((drawn * 1000) / RECORD_MS).toFixed(1)} frames/s`,
        );
        if (mode === 'worker')
          console.log(
            `  the worker drew both canvases in ${drawMs.toFixed(2)} ms a frame; a fixed ` +
              `loop took ${(await workerLoopMs(page)).toFixed(0)} ms in it`,
          );
        await page.close();
      }
    }
  } finally {
    await browser.close();
    server.child.kill();
  }
}

void main();
