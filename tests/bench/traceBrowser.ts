/**
 * Trace bench in the browser ("Speed and memory"): the built playground (vite preview of
 * dist/) in the pinned headless Chromium (tests/chromium.ts), driven as a person would.
 * 1. A 1,000,000-line nginx combined log (tests/bench/trace.ts `makeLog`, 65,536 addresses) chosen
 *    through the file input; timed in the page from the input's change event to the replay drawn
 *    in the main view (trace summary shown, "Replay" clicked at once, the whole run computed: the
 *    run summary counting every request of the log and no run pending; two frames later).
 * 2. The 20 × 20 sweep of the limiter (nginx rate × burst): from the click to the first cell and
 *    to the last, timed in the page.
 * 3. The main thread's longest task during 1 and 2, judged by the CPU time it took (a CDP trace,
 *    tests/e2e/mainThread.ts, as the browser tests judge it), printed beside its wall-clock time.
 * 4. Bytes held per request after the log loads: V8 heap plus array-buffer backing stores
 *    (CDP Runtime.getHeapUsage after a forced GC), before and after, on a fresh page.
 * CPU time: the browser's whole process tree (/proc, all threads: workers included) and the main
 * thread's task time (CDP Performance.getMetrics TaskDuration). Prints figures; asserts nothing.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, CDPSession, Page } from '@playwright/test';
import { describeMainThread, traceMainThread } from '../e2e/mainThread';
import type { MainThreadRecord } from '../e2e/mainThread';
import { CHOSEN_MARK, pageRecord, recordPage } from '../e2e/pageRecorder';
import { launchPinned, startPreview } from './frames';
import { startTrace, stopTrace } from './longTaskTrace';
import { makeLog } from './trace';

const LINES = 1_000_000;
/** The page's marks (performance.mark) that bound the spans whose main-thread tasks are judged. */
const PARSED_MARK = 'rate-limit-lab-bench:parsed';
const DRAWN_MARK = 'rate-limit-lab-bench:drawn';
const SWEEP_CLICK_MARK = 'rate-limit-lab-bench:sweep-click';
const SWEEP_DONE_MARK = 'rate-limit-lab-bench:sweep-done';
const LINK = './?v=1&l=nginx:rate=10r/s,burst=20,nodelay&paused';
const CLK_TCK = 100;
/** CPU ms (user + system) of `root` and every process below it. */
function treeCpuMs(root: number): number {
  const parent = new Map<number, number>();
  const cpu = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(name), Number(rest[1]));
      cpu.set(Number(name), ((Number(rest[11]) + Number(rest[12])) * 1000) / CLK_TCK);
    } catch {
      // the process ended
    }
  }
  let total = 0;
  for (const [pid, ms] of cpu) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) {
      if (p === root) {
        total += ms;
        break;
      }
    }
  }
  return total;
}

/** The browser's main process: a child of this process whose command line names `exe`. */
function browserPid(exe: string): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== process.pid) continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')[0] === exe) return Number(name);
    } catch {
      // the process ended
    }
  }
  return 0;
}

async function mainThreadTaskMs(cdp: CDPSession): Promise<number> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return (metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0) * 1000;
}

/**
 * In the page: watch the sweep's progress line; stamp the first cell and the last, and mark the
 * click and the last cell (the names are SWEEP_CLICK_MARK's and SWEEP_DONE_MARK's: this function
 * runs in the page and sees nothing outside it).
 */
function watchSweep(): void {
  const w = window as unknown as {
    __sweep: { clickAt: number; firstAt: number; doneAt: number; cells: number };
  };
  w.__sweep = { clickAt: 0, firstAt: 0, doneAt: 0, cells: 0 };
  const section = document.querySelector('[data-testid="trace-sweep"]');
  if (section === null) throw new Error('no sweep section');
  const check = () => {
    const text = section.querySelector('[data-testid="sweep-progress"]')?.textContent ?? '';
    const m = /^(\d+) of (\d+) cells/.exec(text);
    if (m === null) return;
    const done = Number(m[1]);
    const total = Number(m[2]);
    if (done > 0 && w.__sweep.firstAt === 0) w.__sweep.firstAt = performance.now();
    if (done === total && w.__sweep.doneAt === 0) {
      w.__sweep.doneAt = performance.mark('rate-limit-lab-bench:sweep-done').startTime;
      w.__sweep.cells = total;
    }
  };
  new MutationObserver(check).observe(section, {
    subtree: true,
    childList: true,
    characterData: true,
  });
  const button = [...section.querySelectorAll('button')].find((b) =>
    /^Sweep \d+ settings$/.test(b.textContent ?? ''),
  );
  button?.addEventListener(
    'click',
    () => (w.__sweep.clickAt = performance.mark('rate-limit-lab-bench:sweep-click').startTime),
    { capture: true },
  );
}

const verdict = (value: number, op: '≤' | '<', limit: number) =>
  (op === '≤' ? value <= limit : value < limit) ? 'met' : 'MISSED';
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function heapBytes(cdp: CDPSession): Promise<number> {
  await cdp.send('HeapProfiler.collectGarbage');
  const h: { usedSize: number; backingStorageSize?: number } =
    await cdp.send('Runtime.getHeapUsage');
  return h.usedSize + (h.backingStorageSize ?? 0);
}

/** What `describeMainThread` says of `r`, and whether no task took more than 50 ms of CPU. */
const longTasks = (name: string, r: MainThreadRecord): string =>
  `  main thread while ${name}: ${describeMainThread(r, 50)} — target none > 50 ms of CPU: ${r.longestCpuMs <= 50 ? 'met' : 'MISSED'}`;

async function endToEnd(page: Page, url: string, file: string, pid: number): Promise<void> {
  const browser = page.context().browser();
  if (browser === null) throw new Error('no browser');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.addInitScript(recordPage, { input: 'trace-file' });
  await page.goto(new URL(LINK, url).href);
  await page.getByTestId('trace-file').waitFor({ state: 'attached' });
  const cpu0 = treeCpuMs(pid);
  const main0 = await mainThreadTaskMs(cdp);
  const replayTasks = await traceMainThread(browser, CHOSEN_MARK);
  await startTrace(page);
  await page.getByTestId('trace-file').setInputFiles(file);
  await page.getByTestId('trace-summary').waitFor({ timeout: 300_000 });
  const parsedAt = await page.evaluate((m) => performance.mark(m).startTime, PARSED_MARK);
  const requests = (await page.getByTestId('trace-count').textContent()) ?? '';
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await page.getByTestId('trace-replaying').waitFor({ timeout: 300_000 });
  // The whole run done and shown: no run pending, and the run summary shows the replay's run —
  // every request of the log, or the run as far as the page's caps let it go (the run notice then
  // says where it was cut; before the click, the page shows another scenario's whole run).
  await page
    .waitForFunction(
      (want) =>
        document.querySelector('.sim-updating') === null &&
        (document.querySelector('[data-testid="summary-offered"]')?.textContent === want ||
          document.querySelector('[data-testid="run-notice"]') !== null),
      requests,
      { timeout: 300_000, polling: 50 },
    )
    .catch(async (e: unknown) => {
      const offered = await page.getByTestId('summary-offered').textContent();
      throw new Error(`the replay did not finish: offered ${offered}, log ${requests}`, {
        cause: e,
      });
    });
  // Drawn: two animation frames later.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) =>
        requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
      ),
  );
  const drawnAt = await page.evaluate((m) => performance.mark(m).startTime, DRAWN_MARK);
  const cpu1 = treeCpuMs(pid);
  const main1 = await mainThreadTaskMs(cdp);
  await replayTasks.stop();
  await stopTrace(page, 'parse + replay');
  const { chosenAt } = await pageRecord(page);
  const offered = await page.getByTestId('summary-offered').textContent();
  const notice = page.getByTestId('run-notice');
  const cut =
    (await notice.count()) > 0
      ? ` — ${(await notice.locator('strong').textContent())?.trim()}`
      : '';
  const e2e = drawnAt - chosenAt;
  console.log(
    `  parse + replay, file chosen → replay drawn: ${s1(e2e)} wall (parsed after ${s1(parsedAt - chosenAt)}; the whole run computed and drawn: the run summary shows ${offered} requests offered of the log's ${requests}${cut}) — target ≤ 5 s: ${verdict(e2e, '≤', 5000)}`,
  );
  console.log(
    `    CPU: ${s1(cpu1 - cpu0)} over the browser's processes (all threads), main thread tasks ${s1(main1 - main0)}`,
  );

  // The sweep.
  await page.getByTestId('trace-sweep').scrollIntoViewIfNeeded();
  await page.evaluate(watchSweep);
  const cpu2 = treeCpuMs(pid);
  const main2 = await mainThreadTaskMs(cdp);
  const sweepTasks = await traceMainThread(browser, undefined, { marks: true });
  await startTrace(page);
  await page
    .getByTestId('trace-sweep')
    .getByRole('button', { name: /^Sweep \d+ settings$/ })
    .click();
  await page.waitForFunction(
    () => (window as unknown as { __sweep: { doneAt: number } }).__sweep.doneAt > 0,
    undefined,
    { timeout: 300_000, polling: 200 },
  );
  const cpu3 = treeCpuMs(pid);
  const main3 = await mainThreadTaskMs(cdp);
  await sweepTasks.stop();
  await stopTrace(page, 'sweep');
  const sweep = await page.evaluate(
    () =>
      (
        window as unknown as {
          __sweep: { clickAt: number; firstAt: number; doneAt: number; cells: number };
        }
      ).__sweep,
  );
  const total = sweep.doneAt - sweep.clickAt;
  const first = sweep.firstAt - sweep.clickAt;
  console.log(
    `  sweep of ${sweep.cells} cells, each over the whole ${LINES.toLocaleString('en-US')}-request trace (nginx rate × burst): all in ${s1(total)} — target ≤ 20 s: ${verdict(total, '≤', 20_000)}; first cells shown after ${s1(first)} — target ≤ 2 s: ${verdict(first, '≤', 2000)}`,
  );
  console.log(
    `    CPU: ${s1(cpu3 - cpu2)} over the browser's processes (workers included), main thread tasks ${s1(main3 - main2)}`,
  );
  console.log(
    longTasks(
      'parsing and replaying (file chosen → replay drawn)',
      replayTasks.between(CHOSEN_MARK, DRAWN_MARK),
    ),
  );
  console.log(
    longTasks(
      'parsing only (file chosen → summary shown)',
      replayTasks.between(CHOSEN_MARK, PARSED_MARK),
    ),
  );
  console.log(
    longTasks(
      'sweeping (click → last cell)',
      sweepTasks.between(SWEEP_CLICK_MARK, SWEEP_DONE_MARK),
    ),
  );
}

async function bytesHeld(page: Page, url: string, file: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await page.goto(new URL(LINK, url).href);
  await page.getByTestId('trace-file').waitFor({ state: 'attached' });
  const before = await heapBytes(cdp);
  await page.getByTestId('trace-file').setInputFiles(file);
  await page.getByTestId('trace-summary').waitFor({ timeout: 300_000 });
  // Let the worker's reply settle (the loaded trace, its key strings, the panel's statistics).
  await page.waitForTimeout(1000);
  const after = await heapBytes(cdp);
  const per = (after - before) / LINES;
  console.log(
    `  held after loading the log (main thread: V8 heap + array buffers, after GC): ${((after - before) / 1e6).toFixed(1)} MB = ${per.toFixed(1)} bytes/request (whole-ms offsets, key ids, statuses, costs unless all 1, key strings and the panel's statistics, all included) — target ≤ 16: ${verdict(per, '≤', 16)}`,
  );
}

export async function runTraceBrowserBench(distDir = 'dist'): Promise<void> {
  const file = join(tmpdir(), `rate-limit-lab-bench-${process.pid}.log`);
  writeFileSync(file, makeLog(LINES));
  let browser: Browser | null = null;
  const started = await startPreview(distDir);
  try {
    const launched = await launchPinned();
    browser = launched.browser;
    const { pinned } = launched;
    const pid = browserPid(pinned.executablePath);
    console.log(
      `trace in Chromium ${browser.version()} (@sparticuz/chromium ${pinned.packageVersion}), vite preview of ${distDir}/; ${LINES.toLocaleString('en-US')}-line nginx combined log; load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on ${cpus().length} cores (shared: wall times are inflated, CPU times less so)`,
    );
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      locale: 'en-US',
      timezoneId: 'UTC',
    });
    const page = await context.newPage();
    await endToEnd(page, started.url, file, pid);
    await page.close();
    const memPage = await context.newPage();
    await bytesHeld(memPage, started.url, file);
    await memPage.close();
    console.log(
      `  load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await browser?.close();
    started.child.kill();
    rmSync(file, { force: true });
  }
}
