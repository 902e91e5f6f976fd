/**
 * A log too large to hold, streamed in the pinned Chromium (`BENCH=ingest INGEST=stream`): a
 * combined log made from a seed (tests/bench/ingest.ts `writeRealLikeLog`: ~240 bytes a line, a
 * few thousand addresses with a heavy tail), 16,000,000 lines (~3.9 GB) by default
 * (`STREAM_LINES` changes it), under /tmp/stream/. The built page reads it through its file input:
 * from the choice to the streaming pass's result (per-key statistics and the default limiter's
 * dry run), the renderer's peak memory and the longest main-thread task; then the streamed 20 × 20
 * sweep of the default limiter (one read of the file, every cell over its compact copy), its time,
 * peak memory and longest task; DuckDB (2 threads) on the same file beside it. Prints each figure beside its target with the load average; asserts
 * nothing. `STREAM_SHOTS=dir` also saves screenshots of the result (1280 px and 390 px, dark).
 * The file is deleted at the end.
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import type { Browser, Page } from '@playwright/test';
import { TRACE_RECORD, measureLoad, rendererMb } from '../e2e/attacks';
import { longTasksIn, pageRecord, recordPage, resetRecord } from '../e2e/pageRecorder';
import { launchPinned, startPreview } from './frames';
import { duckdb, writeRealLikeLog } from './ingest';

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * The streamed 20 × 20 sweep over the file the page holds open: from the click to the finished
 * grid, when its read of the file ended, the renderers' peak memory and the longest main-thread task.
 */
async function measureSweep(
  page: Page,
  browser: Browser,
): Promise<{
  ok: boolean;
  cells: number;
  ms: number;
  readMs: number;
  peakMb: number;
  longestTaskMs: number;
  shown: string;
}> {
  const sweep = page.getByTestId('trace-streamed-sweep');
  const button = sweep.getByRole('button', { name: /^Sweep \d+ settings$/ });
  const cells = Number((await button.textContent())?.match(/\d+/)?.[0] ?? 0);
  const progress = sweep.getByTestId('sweep-progress');
  let peakMb = await rendererMb(browser);
  let readMs = Number.NaN;
  let sampling = true;
  await resetRecord(page);
  const from = await page.evaluate(() => performance.now());
  const t0 = Date.now();
  const sampler = (async () => {
    while (sampling) {
      peakMb = Math.max(peakMb, await rendererMb(browser));
      const text = (await progress.textContent().catch(() => '')) ?? '';
      if (Number.isNaN(readMs) && !text.startsWith('Reading')) readMs = Date.now() - t0;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await button.click();
  let ok = true;
  try {
    await expect(progress).toHaveText(/exact$|not exact|Could not|stopped/, { timeout: 1_800_000 });
  } catch {
    ok = false;
  } finally {
    sampling = false;
    await sampler;
  }
  const ms = Date.now() - t0;
  const shown = (await progress.textContent()) ?? '';
  ok &&= /exact$/.test(shown);
  const r = await pageRecord(page);
  return { ok, cells, ms, readMs, peakMb, longestTaskMs: longTasksIn(r, from).longestMs, shown };
}

export async function runIngestStreamBench(distDir = 'dist'): Promise<void> {
  const lines = Number(process.env.STREAM_LINES ?? 16_000_000);
  // STREAM_DIR: where the file is written (benches run side by side must not share it).
  const dir = process.env.STREAM_DIR ?? '/tmp/stream';
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `stream-bench-${lines}.log`);
  const keep = process.env.STREAM_KEEP === '1';
  let browser: Browser | null = null;
  const started = await startPreview(distDir);
  try {
    // STREAM_KEEP=1 keeps the file for the next run, which reads it again instead of writing it.
    const bytes =
      keep && existsSync(path) ? statSync(path).size : await writeRealLikeLog(path, lines);
    console.log(
      `stream: ${lines.toLocaleString('en-US')} combined lines, ${(bytes / 1e9).toFixed(2)} GB (${(bytes / lines).toFixed(0)} bytes a line), seed 44; load average ${load()} on ${cpus().length} cores (shared: wall times are inflated)`,
    );
    const launched = await launchPinned();
    browser = launched.browser;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(recordPage, TRACE_RECORD);
    await page.goto(new URL('./?v=1&paused', started.url).href);
    await page.getByTestId('trace-file').waitFor({ state: 'attached' });
    const f = await measureLoad(page, path, async () => {
      await page
        .getByTestId('trace-streamed-result')
        .or(page.getByTestId('trace-summary'))
        .or(page.getByTestId('trace-error'))
        .or(page.getByTestId('trace-streamed-error'))
        .waitFor({ timeout: 1_800_000 });
    });
    const streamed = (await page.getByTestId('trace-streamed-result').count()) > 0;
    const shown = streamed
      ? ((await page.getByTestId('trace-streamed-result').locator('p').first().textContent()) ?? '')
      : 'not streamed (held, or refused)';
    console.log(
      `  page, per-key statistics + one-limiter dry run in one pass: ${(f.toResultMs / 1000).toFixed(1)} s (target ≤ 30 s); load ${load()}`,
    );
    console.log(`    shown: ${shown.slice(0, 200)}`);
    console.log(
      `  renderer peak memory ${Math.round(f.peakMb)} MB (target ≤ 300 MB); longest main-thread task ${Math.round(f.longestTaskMs)} ms (target ≤ 50 ms); load ${load()}`,
    );
    if (streamed) {
      const sw = await measureSweep(page, browser);
      console.log(
        `  20 × 20 sweep as a streaming pass (${sw.cells} cells): ${sw.ok ? `${(sw.ms / 1000).toFixed(1)} s` : 'did not finish'} (target ≤ 120 s): one read of the file ${(sw.readMs / 1000).toFixed(1)} s, the cells over its compact copy ${((sw.ms - sw.readMs) / 1000).toFixed(1)} s; renderer peak memory ${Math.round(sw.peakMb)} MB (target ≤ 300 MB); longest main-thread task ${Math.round(sw.longestTaskMs)} ms (target ≤ 50 ms); load ${load()}`,
      );
      console.log(`    shown: ${sw.shown.slice(0, 200)}`);
    }
    const shots = process.env.STREAM_SHOTS;
    if (shots !== undefined && streamed) {
      mkdirSync(shots, { recursive: true });
      const part = page.getByTestId('trace-streamed');
      await part.scrollIntoViewIfNeeded();
      await part.screenshot({ path: join(shots, 'stream-1280.png') });
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.setViewportSize({ width: 390, height: 900 });
      await part.scrollIntoViewIfNeeded();
      await part.screenshot({ path: join(shots, 'stream-390-dark.png') });
    }
    await context.close();
    await browser.close();
    browser = null;
    const d = await duckdb(path, 2);
    console.log(
      `  DuckDB 1.5.6, 2 threads, requests per address per second over the same file: ${(d.wallMs / 1000).toFixed(1)} s (${d.groups.toLocaleString('en-US')} groups; CPU ${(d.cpuMs / 1000).toFixed(1)} s); load ${load()}`,
    );
    console.log(
      `  file: ${(statSync(path).size / 1e9).toFixed(2)} GB at ${path}, ${keep ? 'kept (STREAM_KEEP=1)' : 'deleted now'}`,
    );
  } finally {
    await browser?.close();
    started.child.kill();
    if (!keep) rmSync(path, { force: true });
  }
}
