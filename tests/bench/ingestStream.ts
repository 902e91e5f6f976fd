/**
 * A log too large to hold, streamed in the pinned Chromium (`BENCH=ingest INGEST=stream`): a
 * combined log made from a seed (tests/bench/ingest.ts `writeRealLikeLog`: ~240 bytes a line, a
 * few thousand addresses with a heavy tail), 16,000,000 lines (~3.9 GB) by default
 * (`STREAM_LINES` changes it), under /tmp/stream/. The built page reads it through its file input:
 * from the choice to the streaming pass's result (per-key statistics and the default limiter's
 * dry run), the renderer's peak memory and the longest main-thread task; DuckDB (2 threads) on
 * the same file beside it. Prints each figure beside its target with the load average; asserts
 * nothing. `STREAM_SHOTS=dir` also saves screenshots of the result (1280 px and 390 px, dark).
 * The file is deleted at the end.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import type { Browser } from '@playwright/test';
import { TRACE_RECORD, measureLoad } from '../e2e/attacks';
import { recordPage } from '../e2e/pageRecorder';
import { launchPinned, startPreview } from './frames';
import { duckdb, writeRealLikeLog } from './ingest';

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export async function runIngestStreamBench(distDir = 'dist'): Promise<void> {
  const lines = Number(process.env.STREAM_LINES ?? 16_000_000);
  // STREAM_DIR: where the file is written (benches run side by side must not share it).
  const dir = process.env.STREAM_DIR ?? '/tmp/stream';
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `stream-bench-${lines}.log`);
  let browser: Browser | null = null;
  const started = await startPreview(distDir);
  try {
    const bytes = await writeRealLikeLog(path, lines);
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
    console.log(
      '  20 × 20 sweep as a streaming pass: not built (the page sweeps held traces only)',
    );
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
    console.log(`  file: ${(statSync(path).size / 1e9).toFixed(2)} GB at ${path}, deleted now`);
  } finally {
    await browser?.close();
    started.child.kill();
    rmSync(path, { force: true });
  }
}
