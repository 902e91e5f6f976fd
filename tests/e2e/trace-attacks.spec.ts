/**
 * Access logs built to hurt, each made on disk by the test and chosen through the file input as a
 * person would: the page reads a log whole, refuses it, or says where it cut it — never shortens it
 * silently — and neither freezes nor blanks. Each test prints its figures (longest main-thread
 * task, renderer peak memory, time to the result) and holds them to the budgets: no task over
 * 200 ms of main-thread CPU time (its wall-clock time is printed beside it: a busy machine stretches
 * that, not the work the page did), ≤ 500 MB for a file refused or cut.
 */
import { readFileSync } from 'node:fs';
import { expect, open, test } from './fixtures';
import {
  TRACE_RECORD,
  combinedLine,
  describeFigures,
  hugeFields,
  longKeys,
  manyLinesGzip,
  measureLoad,
  newlineBomb,
  pastRequestCapGzip,
} from './attacks';
import { describeMainThread, stretchOf, traceMainThread } from './mainThread';
import { recordPage } from './pageRecorder';
import { runFile } from './runFolder';

const LONGEST_TASK_MS = 200;
const PEAK_MB = 500;
const STOP_TO_MESSAGE_MS = 1_000;
/** Main-thread tasks lasting more than this many times their CPU time: a machine too busy to time. */
const BUSY_STRETCH = 2;

test.beforeEach(async ({ page }) => {
  await page.addInitScript(recordPage, TRACE_RECORD);
  await open(page);
});

test('1.2M gzipped combined lines load whole: every request counted, none silently dropped', async ({
  page,
}) => {
  test.setTimeout(240_000);
  // Chosen from memory (as a file a page made, or a small one the browser holds whole): its
  // stream hands the whole gzip over at once.
  const path = await manyLinesGzip();
  const f = await measureLoad(
    page,
    { name: 'combined-1.2M.log.gz', mimeType: 'application/gzip', buffer: readFileSync(path) },
    () =>
      expect(page.getByTestId('trace-summary').or(page.getByTestId('trace-error'))).toBeVisible({
        timeout: 200_000,
      }),
  );
  console.log(describeFigures('1.2M gzipped lines', f));
  await expect(page.getByTestId('trace-error')).toHaveCount(0);
  await expect(page.getByTestId('trace-count')).toHaveText('1,200,000');
  expect(f.longestTaskMs, describeMainThread(f.mainThread, LONGEST_TASK_MS)).toBeLessThanOrEqual(
    LONGEST_TASK_MS,
  );
  // Read in bounded slices, ~750 MB of text never lives in the tab at once.
  expect(f.peakMb).toBeLessThanOrEqual(PEAK_MB);
});

test('a gzip of 16.7M lines, past the requests the page holds, goes on as a streaming pass past the cap; the loaded trace stays', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const small = runFile('small.log', [0, 1, 2].map((i) => combinedLine(i)).join('\n'));
  await page.getByTestId('trace-file').setInputFiles(small);
  await expect(page.getByTestId('trace-count')).toHaveText('3');
  const path = await pastRequestCapGzip();
  const progress = page.getByTestId('trace-streamed-progress');
  // Held reading stops at the cap and the streaming pass reads on: its running count passes the
  // 5,000,000 requests the page holds (a silent cut would stop there). Reading all 16.7M lines takes
  // minutes on two cores; the streamed figures' exactness is trace-stream.spec.ts's, on a 2.8M log.
  const requestsSoFar = async (): Promise<number> => {
    const m = /([\d,]+) requests?/.exec((await progress.textContent()) ?? '');
    return m === null ? 0 : Number((m[1] as string).replace(/,/g, ''));
  };
  const f = await measureLoad(page, path, () =>
    expect.poll(requestsSoFar, { timeout: 280_000, intervals: [500] }).toBeGreaterThan(5_000_000),
  );
  console.log(describeFigures('16.7M lines past the request cap, streamed past 5M', f));
  await expect(page.getByTestId('trace-error')).toHaveCount(0);
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('trace-streamed')).toContainText('Cancelled.');
  await expect(page.getByTestId('trace-streamed-result')).toHaveCount(0);
  await expect(page.getByTestId('trace-count')).toHaveText('3');
  expect(f.longestTaskMs, describeMainThread(f.mainThread, LONGEST_TASK_MS)).toBeLessThanOrEqual(
    LONGEST_TASK_MS,
  );
  expect(f.peakMb).toBeLessThanOrEqual(PEAK_MB);
});

test('a 3 MB gzip bomb (3 GB of newlines) is refused within 1 s of passing the decompressed-size cap, renderer under 500 MB', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const path = await newlineBomb();
  const f = await measureLoad(page, path, () =>
    expect(page.getByTestId('trace-error')).toBeVisible({ timeout: 200_000 }),
  );
  console.log(describeFigures('3 GB newline bomb', f));
  // The cap and how far reading got: the line, the compressed bytes and the text.
  await expect(page.getByTestId('trace-error')).toHaveText(
    /^"bomb-3GB\.log\.gz" decompresses to more than 2,048 MB, the most the page reads: stopped at line [\d,]+, [\d,]+ (kB|MB) into the file \([\d,]+ MB of text\), with 1 request read\. Nothing was loaded\.$/,
  );
  // From the worker passing the cap (its error reply's stamp) to the message in the page.
  // Only wall-clock time measures this (a worker's stamp to a message in the page), so it is judged
  // against the same load's calibration: when the main thread's tasks lasted more than twice their
  // CPU time, the machine was too busy for a 1 s bound to mean anything, and the figures are printed
  // instead of a verdict.
  expect(f.stopToMessageMs).toBeGreaterThanOrEqual(0);
  const stretch = stretchOf(f.mainThread);
  if (f.stopToMessageMs > STOP_TO_MESSAGE_MS && stretch > BUSY_STRETCH)
    console.log(
      `!! message after reading stopped: NOT JUDGED — the machine was busy (${Math.round(f.stopToMessageMs)} ms wall-clock against ${STOP_TO_MESSAGE_MS} ms; the main thread's tasks lasted ${stretch.toFixed(1)}× their CPU time, ${Math.round(f.mainThread.wallMs)} ms for ${Math.round(f.mainThread.cpuMs)} ms)`,
    );
  else expect(f.stopToMessageMs).toBeLessThanOrEqual(STOP_TO_MESSAGE_MS);
  expect(f.longestTaskMs, describeMainThread(f.mainThread, LONGEST_TASK_MS)).toBeLessThanOrEqual(
    LONGEST_TASK_MS,
  );
  expect(f.peakMb).toBeLessThanOrEqual(PEAK_MB);
});

test('lines with 5 MB fields are listed as malformed in a few words; opening the list does not freeze', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const path = await hugeFields();
  const f = await measureLoad(page, path, () =>
    expect(page.getByTestId('trace-summary').or(page.getByTestId('trace-error'))).toBeVisible({
      timeout: 100_000,
    }),
  );
  await expect(page.getByTestId('trace-count')).toHaveText('200');
  const browser = page.context().browser();
  if (browser === null) throw new Error('no browser');
  const trace = await traceMainThread(browser);
  await page.getByTestId('trace-summary').locator('details summary').click();
  const list = page.getByTestId('trace-malformed');
  await expect(list).toContainText('line 101:');
  const opening = await trace.stop();
  const chars = await list.evaluate((e) => e.textContent?.length ?? 0);
  console.log(
    describeFigures('30 lines with 5 MB fields', f) +
      `, ${chars} characters listed; opening the list: ${describeMainThread(opening, LONGEST_TASK_MS)}`,
  );
  expect(chars).toBeLessThan(5_000);
  expect(f.longestTaskMs, describeMainThread(f.mainThread, LONGEST_TASK_MS)).toBeLessThanOrEqual(
    LONGEST_TASK_MS,
  );
  expect(opening.longestCpuMs, describeMainThread(opening, LONGEST_TASK_MS)).toBeLessThanOrEqual(
    LONGEST_TASK_MS,
  );
});

test('40,000 distinct 5,000-character keys are held cut, with a hash: memory stays bounded', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const path = await longKeys();
  const f = await measureLoad(page, path, () =>
    expect(page.getByTestId('trace-summary').or(page.getByTestId('trace-error'))).toBeVisible({
      timeout: 100_000,
    }),
  );
  await expect(page.getByTestId('trace-keys')).toHaveText('40,000');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  const heapMb = usedSize / 2 ** 20;
  console.log(
    describeFigures('40,000 long keys', f) + `, page heap after GC ${heapMb.toFixed(0)} MB`,
  );
  // The keys as the page holds them: 40,000 of at most ~120 characters, not 200 MB.
  expect(heapMb).toBeLessThan(60);
  await expect(page.locator('.trace-top-keys td').first()).toContainText('…');
  // The cut keys wrap inside the panel: neither the table nor a line pushes out of the summary.
  const overflow = await page
    .getByTestId('trace-summary')
    .evaluate((e) => e.scrollWidth - e.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  expect(f.longestTaskMs, describeMainThread(f.mainThread, LONGEST_TASK_MS)).toBeLessThanOrEqual(
    LONGEST_TASK_MS,
  );
});

test('a log of mixed formats is refused naming the line that is wrong and what it is', async ({
  page,
}) => {
  const json = '{"time":"2026-01-05T00:00:00Z","remote_addr":"10.0.0.1"}';
  const path = runFile(
    'mixed.log',
    [combinedLine(0), json, json, combinedLine(1), json, json, json].join('\n'),
  );
  await page.getByTestId('trace-file').setInputFiles(path);
  const error = page.getByTestId('trace-error');
  await expect(error).toContainText('line 2');
  await expect(error).toContainText('JSON');
  await expect(error).not.toContainText('line 1 (');
});
