/**
 * Hostile access logs in the pinned Chromium (`BENCH=ingest`): each made on disk
 * (tests/e2e/attacks.ts, kept in the temporary folder between runs), chosen through the file input
 * of the built playground, and measured as the browser tests hold them to their budgets — the
 * longest main-thread task (≤ 200 ms), the renderer processes' peak resident memory (≤ 500 MB for a
 * file refused or cut) and the time from choosing the file to the result. `BENCH_TRACE=1` also
 * records a Chrome trace of each and prints what its long tasks are made of. Prints; asserts nothing.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Browser } from '@playwright/test';
import {
  TRACE_RECORD,
  describeFigures,
  hugeFields,
  longKeys,
  manyLinesGzip,
  measureLoad,
  newlineBomb,
  pastRequestCapGzip,
} from '../e2e/attacks';
import { recordPage } from '../e2e/pageRecorder';
import type { AttackFigures } from '../e2e/attacks';
import { launchPinned, startPreview } from './frames';
import { startTrace, stopTrace } from './longTaskTrace';

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

interface Attack {
  label: string;
  file: () => Promise<string | { name: string; mimeType: string; buffer: Buffer }>;
  /** What the page must show when it is done: the summary, a streaming pass's result, or the error. */
  expect: 'summary' | 'streamed' | 'error';
}

const ATTACKS: Attack[] = [
  {
    label: '1.2M gzipped combined lines (read whole)',
    file: async () => ({
      name: 'combined-1.2M.log.gz',
      mimeType: 'application/gzip',
      buffer: readFileSync(await manyLinesGzip()),
    }),
    expect: 'summary',
  },
  {
    label: '16.7M lines gzipped (past the requests held: a streaming pass)',
    file: pastRequestCapGzip,
    expect: 'streamed',
  },
  { label: '3 MB gzip bomb, 3 GB of newlines (refused)', file: newlineBomb, expect: 'error' },
  { label: '30 lines with 5 MB fields (malformed, listed)', file: hugeFields, expect: 'summary' },
  { label: '40,000 distinct 5,000-character keys (held cut)', file: longKeys, expect: 'summary' },
];

export async function runIngestAttackBench(distDir = 'dist'): Promise<void> {
  let browser: Browser | null = null;
  const started = await startPreview(distDir);
  try {
    const launched = await launchPinned();
    browser = launched.browser;
    console.log(
      `hostile access logs in Chromium ${browser.version()}, vite preview of ${distDir}/; load average ${load()} on ${cpus().length} cores`,
    );
    // ATTACK=<words>: only the attacks whose label holds them (e.g. ATTACK=bomb).
    const chosen = ATTACKS.filter((a) => a.label.includes(process.env.ATTACK ?? ''));
    for (const a of chosen) {
      const file = await a.file();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.addInitScript(recordPage, TRACE_RECORD);
      await page.goto(new URL('./?v=1&paused', started.url).href);
      await page.getByTestId('trace-file').waitFor({ state: 'attached' });
      let f: AttackFigures;
      let shown = '';
      // BENCH_TRACE=1: what each long task of this attack is made of (a trace of the whole load).
      await startTrace(page);
      try {
        f = await measureLoad(page, file, async () => {
          await page
            .getByTestId('trace-summary')
            .or(page.getByTestId('trace-error'))
            .or(page.getByTestId('trace-streamed-result'))
            .waitFor({ timeout: 600_000 });
        });
        shown =
          (await page.getByTestId('trace-error').count()) > 0
            ? `error: ${(await page.getByTestId('trace-error').textContent())?.slice(0, 160) ?? ''}`
            : (await page.getByTestId('trace-streamed-result').count()) > 0
              ? `streamed: ${(await page.getByTestId('trace-streamed-result').textContent())?.slice(0, 160) ?? ''}`
              : `summary: ${(await page.getByTestId('trace-count').textContent()) ?? ''} requests`;
      } catch (e) {
        console.log(`  ${a.label}: FAILED (${(e as Error).message.split('\n')[0]})`);
        await stopTrace(page, a.label);
        await context.close();
        continue;
      }
      const ok = shown.startsWith(a.expect) ? '' : ` (expected the ${a.expect}: MISSED)`;
      console.log(`  ${describeFigures(a.label, f)}; load ${load()}`);
      console.log(`    shown: ${shown}${ok}`);
      await stopTrace(page, a.label);
      await context.close();
    }
  } finally {
    await browser?.close();
    started.child.kill();
  }
}
