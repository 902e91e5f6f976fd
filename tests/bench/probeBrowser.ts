/**
 * The verdict and diagnosis of a ~500-request probe result as the page computes them: the built
 * playground (vite preview of dist/) in the pinned headless Chromium (tests/chromium.ts), the
 * result file chosen in "Check a live gateway" as a person would. The page judges it in a worker
 * (src/ui/probe/verdict.worker.ts); timed in the page:
 * - from the file input's change event to the verdict shown (reading, the worker's verdict and
 *   diagnosis, the answer copied back, drawn);
 * - the worker's own time for the verdict and diagnosis (its answer's `ms`, read by wrapping the
 *   page's Worker before the page's scripts run);
 * - the longest main-thread task (PerformanceObserver 'longtask', > 50 ms) in that span.
 * Three fresh page loads; prints figures beside their targets and the load average, asserts
 * nothing.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LimiterEntry } from '../../src/config';
import { resultText } from '../../src/probe';
import { fakeRun, linkOf, planOf } from '../probe/fake';
import { launchPinned, startPreview } from './frames';

/** Installed before the page's own scripts: long tasks, the file's choice, the worker's answers. */
function recorder(): void {
  const w = window as unknown as {
    __long: { start: number; duration: number }[];
    __chosenAt: number;
    __workerMs: number[];
  };
  w.__long = [];
  w.__chosenAt = 0;
  w.__workerMs = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) w.__long.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: 'longtask', buffered: true });
  document.addEventListener(
    'change',
    (e) => {
      if ((e.target as HTMLElement).getAttribute('data-testid') === 'probe-file')
        w.__chosenAt = performance.now();
    },
    true,
  );
  const Base = window.Worker;
  window.Worker = class extends Base {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      this.addEventListener('message', (event: MessageEvent<{ ms?: unknown }>) => {
        if (typeof event.data?.ms === 'number') w.__workerMs.push(event.data.ms);
      });
    }
  };
}

export async function runProbeBrowserBench(distDir = 'dist'): Promise<void> {
  // The bench's ~500-request result: rate=80r/s burst=40 (500 requests planned), answered by two
  // replicas each with its own bucket, so the diagnosis searches its whole grid.
  const entry: LimiterEntry = {
    config: {
      kind: 'leaky-bucket',
      rate: 80,
      rateUnit: 'r/s',
      burst: 40,
      delay: 'nodelay',
      limitReqStatus: 429,
    },
  };
  const link = linkOf(entry);
  const plan = planOf(link);
  const result = fakeRun(plan, link, { hypothesis: { replicas: 2, state: 'local' } });
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
      await page.addInitScript(recorder);
      await page.goto(`${preview.url}${link}&paused`);
      await page.getByRole('button', { name: 'Export & import' }).click();
      await page.getByRole('heading', { name: 'Check a live gateway' }).waitFor();
      await page.getByTestId('probe-file').setInputFiles(file);
      await page.getByTestId('probe-verdict').waitFor({ timeout: 60_000 });
      // The verdict is in the DOM; the frame that shows it.
      const shown = await page.evaluate(
        () => new Promise<number>((r) => requestAnimationFrame(() => r(performance.now()))),
      );
      const m = await page.evaluate(() => {
        const w = window as unknown as {
          __long: { start: number; duration: number }[];
          __chosenAt: number;
          __workerMs: number[];
        };
        const long = w.__long.filter((t) => t.start + t.duration >= w.__chosenAt);
        return {
          chosenAt: w.__chosenAt,
          workerMs: w.__workerMs[w.__workerMs.length - 1] ?? Number.NaN,
          longest: Math.max(0, ...long.map((t) => t.duration)),
          longCount: long.length,
          headline: document.querySelector('.probe-headline')?.textContent ?? '',
        };
      });
      console.log(
        `    run ${run}: chosen → verdict shown ${(shown - m.chosenAt).toFixed(0)} ms (target ≤ 2,000 ms); verdict and diagnosis in the worker ${m.workerMs.toFixed(0)} ms; longest main-thread task ${m.longest.toFixed(0)} ms (${m.longCount} over 50 ms; target none > 50 ms); "${m.headline}"; load average ${loadavg()[0]?.toFixed(1)}`,
      );
      await page.close();
    }
  } finally {
    await browser.close();
    preview.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
