/**
 * A log over 1 GB, made on disk by the test and chosen through the file input: the page reads it
 * as a stream (never refused for its size, never held), shows progress with a running count and
 * a cancel button, then its figures and the current limiter's dry run; the trace it had stays on
 * the stage. The run's global teardown deletes the file (tests/e2e/teardown.ts).
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { expect, open, test } from './fixtures';
import { TRACE_RECORD, combinedLine, describeFigures, measureLoad, streamedLog } from './attacks';
import { recordPage } from './pageRecorder';

const DIR = '/tmp/stream';
/** The 1.11 GB log (2,800,000 lines), written once per run and shared (tests/e2e/attacks.ts). */
let BIG = '';

test.beforeAll(async () => {
  test.setTimeout(180_000);
  const started = process.hrtime.bigint();
  BIG = await streamedLog();
  const s = Number(process.hrtime.bigint() - started) / 1e9;
  console.log(`the 1.1 GB log ready in ${s.toFixed(1)} s (load ${loadavg()[0]!.toFixed(1)})`);
  expect(statSync(BIG).size).toBeGreaterThan(1024 ** 3);
  mkdirSync(DIR, { recursive: true });
});

test.afterAll(() => {
  rmSync(DIR, { recursive: true, force: true });
});

test.beforeEach(async ({ page }) => {
  await page.addInitScript(recordPage, TRACE_RECORD);
  await open(page);
  const small = join(DIR, 'small.log');
  writeFileSync(small, [0, 1, 2].map((i) => combinedLine(i)).join('\n'));
  await page.getByTestId('trace-file').setInputFiles(small);
  await expect(page.getByTestId('trace-count')).toHaveText('3');
});

test('a 1.1 GB log is read as a stream: progress, then every request counted and the dry run; the held trace stays', async ({
  page,
}) => {
  test.setTimeout(420_000);
  const f = await measureLoad(page, BIG, async () => {
    await expect(page.getByTestId('trace-streamed-progress')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('trace-streamed-progress')).toContainText(/requests?/, {
      timeout: 60_000,
    });
    await expect(page.getByTestId('trace-streamed-result')).toBeVisible({ timeout: 400_000 });
  });
  console.log(describeFigures('1.1 GB streamed', f));
  const result = page.getByTestId('trace-streamed-result');
  await expect(result).toContainText('2,800,000 requests');
  await expect(result).toContainText('the figures are exact');
  // Named as the lane is everywhere else, not by its algorithm.
  await expect(page.getByTestId('trace-streamed-dry')).toContainText(
    /^Envoy: [\d,]+ admitted, [\d,]+ delayed, [\d,]+ rejected/,
  );
  await expect(page.getByTestId('trace-error')).toHaveCount(0);
  // The trace the page had is still the one the stage replays.
  await expect(page.getByTestId('trace-count')).toHaveText('3');
  // CPU time of the longest main-thread task (its wall-clock time is in the line printed above).
  expect(f.longestTaskMs).toBeLessThanOrEqual(200);
  expect(f.peakMb).toBeLessThanOrEqual(500);
});

test('the sweep decides its cells over the copy the statistics pass recorded; cancelled, it reads the file once again, then the whole grid is drawn', async ({
  page,
}) => {
  // The streamed sweep's numbers are proven equal to the held sweep's cell by cell in
  // tests/trace/stream-sweep.test.ts; here the page's wiring: the button, cells decided over the
  // statistics pass's copy with no second read of the text, cancel (which lets the copy go), a read
  // of the file with its running count, and a whole 20 × 20 sweep of this file (2.8M requests,
  // every cell) finishing with its heatmap.
  test.setTimeout(420_000);
  await page.getByTestId('trace-file').setInputFiles(BIG);
  await expect(page.getByTestId('trace-streamed-result')).toBeVisible({ timeout: 200_000 });
  const sweep = page.getByTestId('trace-streamed-sweep');
  // The grid is 20 × 20 at most (axis values that round to the same number are dropped).
  const button = sweep.getByRole('button', { name: /^Sweep \d+ settings$/ });
  const cells = Number((await button.textContent())?.match(/\d+/)?.[0]);
  expect(cells).toBeGreaterThan(200);
  const progress = sweep.getByTestId('sweep-progress');
  const texts: string[] = [];
  const seen = async (): Promise<string> => {
    const t = (await progress.textContent()) ?? '';
    texts.push(t);
    return t;
  };
  await button.click();
  // Straight to the cells: the statistics pass already wrote the copy.
  await expect
    .poll(seen, { timeout: 60_000 })
    .toMatch(/^Deciding every cell for the 2,800,000 requests: \d+% done…$/);
  expect(texts.filter((t) => t.startsWith('Reading'))).toEqual([]);
  await sweep.getByRole('button', { name: 'Cancel sweep' }).click();
  await expect(progress).toHaveText(
    'Cancelled: the cells shown are from the passes that finished.',
  );
  // Again, to the end: the copy went with the cancelled sweep, so the file is read once (with a
  // running count), then every cell is decided over the new copy.
  const started = Date.now();
  await button.click();
  await expect(progress).toContainText(/^Reading the file once .*: .* of .*, [\d,]+ requests?…$/, {
    timeout: 60_000,
  });
  const count = async (): Promise<number> =>
    Number(
      ((await progress.textContent())?.match(/([\d,]+) requests?…/)?.[1] ?? '0').replace(/,/g, ''),
    );
  await expect.poll(count, { timeout: 60_000 }).toBeGreaterThan(0);
  await expect(progress).toContainText(
    /^Deciding every cell for the 2,800,000 requests: \d+% done…$/,
    {
      timeout: 100_000,
    },
  );
  await expect(progress).toHaveText(
    /^2,800,000 requests, read once, the cells decided over its compact copy in this site’s private storage by \d workers?; exact$/,
    { timeout: 200_000 },
  );
  console.log(`streamed 20 × 20 sweep of 1.1 GB: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  await expect(sweep.getByTestId('trace-heatmap')).toBeVisible();
  await expect(sweep.getByTestId('sweep-cell')).toHaveCount(cells);
  await expect(sweep.locator('[data-testid="sweep-cell"][aria-label*="not computed"]')).toHaveCount(
    0,
  );
  await expect(page.getByTestId('trace-count')).toHaveText('3');
});

test('a streaming pass can be cancelled; nothing half-read is shown', async ({ page }) => {
  test.setTimeout(120_000);
  await page.getByTestId('trace-file').setInputFiles(BIG);
  const progress = page.getByTestId('trace-streamed-progress');
  await expect(progress).toContainText(/requests?/, { timeout: 60_000 });
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('trace-streamed')).toContainText('Cancelled.');
  await expect(page.getByTestId('trace-streamed-result')).toHaveCount(0);
  await expect(page.getByTestId('trace-count')).toHaveText('3');
});
