/**
 * The verdict and diagnosis of a ~500-request probe result as the page computes them: the built
 * playground (vite preview of dist/) in the pinned headless Chromium (tests/chromium.ts), the
 * result file chosen in "Check a live gateway" as a person would. The page judges it in a worker
 * (src/ui/probe/verdict.worker.ts); timed in the page:
 * - from the file input's change event to the verdict shown (reading, the worker's verdict and
 *   diagnosis, the answer copied back, drawn);
 * - the worker's own time for the verdict and diagnosis (its answer's `ms`, read by wrapping the
 *   page's Worker before the page's scripts run);
 * - the longest main-thread task in that span, judged by the CPU time it took (a CDP trace,
 *   tests/e2e/mainThread.ts, as the browser tests judge it: a busy machine stretches only its
 *   wall-clock time, printed beside).
 * Three fresh page loads; prints figures beside their targets and the load average, asserts
 * nothing.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { resultText } from '../../src/probe';
import { twoReplicaResult } from '../probe/fake';
import { describeMainThread, traceMainThread } from '../e2e/mainThread';
import { CHOSEN_MARK, pageRecord, recordPage } from '../e2e/pageRecorder';
import { launchPinned, startPreview } from './frames';

export async function runProbeBrowserBench(distDir = 'dist'): Promise<void> {
  const { link, plan, result } = twoReplicaResult();
  const dir = join(tmpdir(), `rll-probe-bench-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'probe-result.json');
  writeFileSync(file, resultText(result));

  const preview = await startPreview(distDir);
  const { browser } = await launchPinned();
  try {
    console.log(
      `  in Chromium ${browser.version()} (vite preview of ${distDir}/): a ${plan.requests.length}-request result chosen in "Check a live gateway"`,
    );
    for (let run = 1; run <= 3; run += 1) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.addInitScript(recordPage, { input: 'probe-file' });
      await page.goto(`${preview.url}${link}&paused`);
      await page.getByRole('button', { name: 'Export & import' }).click();
      await page.getByRole('heading', { name: 'Check a live gateway' }).waitFor();
      // The main thread's tasks from the file input's change on.
      const trace = await traceMainThread(browser, CHOSEN_MARK);
      await page.getByTestId('probe-file').setInputFiles(file);
      await page.getByTestId('probe-verdict').waitFor({ timeout: 60_000 });
      // The verdict is in the DOM; the frame that shows it.
      const shown = await page.evaluate(
        () => new Promise<number>((r) => requestAnimationFrame(() => r(performance.now()))),
      );
      const tasks = await trace.stop();
      const r = await pageRecord(page);
      const m = {
        chosenAt: r.chosenAt,
        workerMs: r.workerMs[r.workerMs.length - 1] ?? Number.NaN,
        headline: (await page.locator('.probe-headline').textContent()) ?? '',
      };
      console.log(
        `    run ${run}: chosen → verdict shown ${(shown - m.chosenAt).toFixed(0)} ms (target ≤ 2,000 ms); verdict and diagnosis in the worker ${m.workerMs.toFixed(0)} ms; ${describeMainThread(tasks, 50)} — target none > 50 ms of CPU: ${tasks.longestCpuMs <= 50 ? 'met' : 'MISSED'}; "${m.headline}"; load average ${loadavg()[0]?.toFixed(1)}`,
      );
      await page.close();
    }
  } finally {
    await browser.close();
    preview.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
