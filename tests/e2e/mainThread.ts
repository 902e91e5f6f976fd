/**
 * The renderer main thread's tasks as Chromium's own trace records them, with the CPU time each
 * took as well as its wall-clock time. A task's CPU time is what the page made the thread do; its
 * wall-clock time also holds every moment the operating system gave the core to another process.
 * On a machine busy with other work a 120 ms task can last 480 ms of wall-clock time, so the browser
 * tests judge a blocking main thread by its tasks' CPU time, which that does not stretch, and print
 * both.
 *
 * Recorded by CDP tracing of the whole browser (every renderer's main thread, `CrRendererMain`),
 * category `toplevel`: one `ThreadControllerImpl::RunTask` complete event per task the thread's
 * scheduler runs, with `dur` (wall-clock, µs) and `tdur` (the thread's CPU time, µs) — Chromium's
 * base/task/sequence_manager/thread_controller_impl.cc and the trace event format's "X" events.
 */
import { expect } from '@playwright/test';
import type { Browser, CDPSession, Page } from '@playwright/test';

/** One main-thread task of 50 ms or more (wall-clock). */
export interface MainThreadTask {
  /** Wall-clock time the task took, ms. */
  wallMs: number;
  /** CPU time the main thread spent on it, ms. */
  cpuMs: number;
}

/** What the main threads did while the trace ran. */
export interface MainThreadRecord {
  /** Tasks of 50 ms or more, by wall-clock or CPU time, in the order they ran. */
  long: MainThreadTask[];
  /** The most CPU time any one task took, ms (0 when there was no task). */
  longestCpuMs: number;
  /** The most wall-clock time any one task took, ms (0 when there was no task). */
  longestWallMs: number;
  /** Every task's CPU time, summed, ms. */
  cpuMs: number;
  /** Every task's wall-clock time, summed, ms. */
  wallMs: number;
  /** How many tasks ran. */
  tasks: number;
}

/** Tasks shorter than this (wall-clock or CPU, µs) are only summed, not listed. */
const LONG_US = 50_000;

interface TraceEvent {
  name?: string;
  cat?: string;
  ph?: string;
  pid?: number;
  tid?: number;
  ts?: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** A trace of the main threads' tasks (`traceMainThread`). */
export interface MainThreadTrace {
  /** Ends the trace: what the main threads did from the trace's `from` mark (or its start) on. */
  stop: () => Promise<MainThreadRecord>;
  /**
   * Once stopped, what they did between two `performance.mark`s the page made while `marks` were
   * traced (the last of each name): the tasks that started at or after `from` and before `to`
   * (to the end of the trace without it). A mark the trace does not hold is an error.
   */
  between: (from: string, to?: string) => MainThreadRecord;
}

/**
 * Starts tracing `browser`'s main-thread tasks; `stop()` ends the trace and resolves to what they
 * did meanwhile. With `from`, the name of a `performance.mark` the page makes during the trace,
 * only the tasks that started at or after the mark count (the tasks before it, such as the one
 * that hands a chosen file to the page, are the test's, not the page's). With `marks`, the page's
 * marks are traced too, for `between`. One trace at a time per browser.
 */
export async function traceMainThread(
  browser: Browser,
  from?: string,
  { marks = from !== undefined }: { marks?: boolean } = {},
): Promise<MainThreadTrace> {
  const cdp: CDPSession = await browser.newBrowserCDPSession();
  // Per thread, each task's start, wall-clock and CPU time (µs, three numbers a task); which threads
  // are renderer main threads is known only at the end (the trace's thread-name metadata).
  const threads = new Map<string, number[]>();
  const names = new Map<string, string>();
  // Each mark's time (µs), the last of each name.
  const markUs = new Map<string, number>();
  let stopped = false;
  cdp.on('Tracing.dataCollected', ({ value }: { value: TraceEvent[] }) => {
    for (const e of value) {
      const key = `${e.pid}:${e.tid}`;
      if (e.ph === 'M' && e.name === 'thread_name') {
        names.set(key, e.args?.name ?? '');
        continue;
      }
      // A mark, as Blink traces a performance.mark (category blink.user_timing): its time.
      if (
        marks &&
        e.name !== undefined &&
        e.ph !== 'X' &&
        (e.cat ?? '').split(',').includes('blink.user_timing')
      ) {
        markUs.set(e.name, Math.max(markUs.get(e.name) ?? Number.NEGATIVE_INFINITY, e.ts ?? 0));
        continue;
      }
      if (e.ph !== 'X' || e.name !== 'ThreadControllerImpl::RunTask') continue;
      const wallUs = e.dur ?? 0;
      let t = threads.get(key);
      if (t === undefined) {
        t = [];
        threads.set(key, t);
      }
      // A task with no thread time (a platform without it) counts as all CPU: never excused.
      t.push(e.ts ?? 0, wallUs, e.tdur ?? wallUs);
    }
  });
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: {
      includedCategories: ['toplevel', '__metadata', ...(marks ? ['blink.user_timing'] : [])],
      recordMode: 'recordAsMuchAsPossible',
    },
  });
  // A mark asked for and never made: nothing would be judged, so that is an error.
  const markAt = (name: string): number => {
    const us = markUs.get(name);
    if (us === undefined) throw new Error(`the trace holds no mark "${name}"`);
    return us;
  };
  const tally = (fromUs: number, toUs: number): MainThreadRecord => {
    const r: MainThreadRecord = {
      long: [],
      longestCpuMs: 0,
      longestWallMs: 0,
      cpuMs: 0,
      wallMs: 0,
      tasks: 0,
    };
    for (const [key, t] of threads) {
      if (names.get(key) !== 'CrRendererMain') continue;
      for (let i = 0; i < t.length; i += 3) {
        const [ts, wallUs, cpuUs] = [t[i] as number, t[i + 1] as number, t[i + 2] as number];
        if (ts < fromUs || ts >= toUs) continue;
        r.cpuMs += cpuUs / 1000;
        r.wallMs += wallUs / 1000;
        r.tasks += 1;
        r.longestCpuMs = Math.max(r.longestCpuMs, cpuUs / 1000);
        r.longestWallMs = Math.max(r.longestWallMs, wallUs / 1000);
        if (wallUs >= LONG_US || cpuUs >= LONG_US)
          r.long.push({ wallMs: wallUs / 1000, cpuMs: cpuUs / 1000 });
      }
    }
    return r;
  };
  return {
    stop: async () => {
      const complete = new Promise<void>((resolve) =>
        cdp.once('Tracing.tracingComplete', () => resolve()),
      );
      await cdp.send('Tracing.end');
      await complete;
      await cdp.detach();
      stopped = true;
      return tally(
        from === undefined ? Number.NEGATIVE_INFINITY : markAt(from),
        Number.POSITIVE_INFINITY,
      );
    },
    between: (a, b) => {
      if (!stopped) throw new Error('the trace is still running: stop it first');
      return tally(markAt(a), b === undefined ? Number.POSITIVE_INFINITY : markAt(b));
    },
  };
}

/**
 * The tasks whose CPU or wall-clock time passed `budgetMs`, each as "wall W ms, CPU C ms", and how
 * the longest compares with the budget: the line a test prints before judging.
 */
export function describeMainThread(r: MainThreadRecord, budgetMs: number): string {
  const over = r.long.filter((t) => t.wallMs > budgetMs || t.cpuMs > budgetMs);
  const list = over.map((t) => `wall ${Math.round(t.wallMs)} ms, CPU ${Math.round(t.cpuMs)} ms`);
  return `longest main-thread task ${Math.round(r.longestCpuMs)} ms of CPU (budget ${budgetMs}; longest wall-clock ${Math.round(r.longestWallMs)} ms); ${over.length} task(s) over ${budgetMs} ms by either${list.length > 0 ? `: ${list.join('; ')}` : ''}`;
}

/**
 * Prints `label` with the record's figures, then fails when the longest main-thread task took more
 * than `budgetMs` of CPU time: a task the page made long fails at any load, one only stretched by
 * a busy machine passes, its wall-clock figure printed.
 */
export function expectNoLongTask(label: string, r: MainThreadRecord, budgetMs: number): void {
  console.log(`${label}: ${describeMainThread(r, budgetMs)}`);
  expect(r.longestCpuMs, `${label}: ${describeMainThread(r, budgetMs)}`).toBeLessThanOrEqual(
    budgetMs,
  );
}

/**
 * How much longer than their CPU time the main-thread tasks lasted (wall-clock ÷ CPU, summed over
 * every task; 1 on an idle machine, about the number of runnable processes per core on a busy one):
 * the same-run calibration for the checks only wall-clock time can express.
 */
export function stretchOf(r: MainThreadRecord): number {
  return r.cpuMs > 0 ? r.wallMs / r.cpuMs : 1;
}

/**
 * Holds the page's own measure of deciding its start (`rate-limit-lab:open`, src/main.tsx) to
 * `budgetMs`, in CPU terms: the measure spans synchronous code inside one main-thread task, so the
 * CPU time it took is at most the longest traced task's (`r`, traced over the page's opening).
 * Prints the wall-clock measure and that bound; fails when the measure is missing or both are over.
 */
export async function expectOpenWithin(
  label: string,
  page: Page,
  r: MainThreadRecord,
  budgetMs: number,
): Promise<void> {
  const openMs = await page.evaluate(
    () => performance.getEntriesByName('rate-limit-lab:open')[0]?.duration ?? -1,
  );
  const cpuBoundMs = Math.min(openMs, r.longestCpuMs);
  console.log(
    `${label}: the page decided its start in ${openMs.toFixed(1)} ms wall-clock, at most ${cpuBoundMs.toFixed(1)} ms of CPU (budget ${budgetMs}; the longest main-thread task of the opening took ${Math.round(r.longestCpuMs)} ms of CPU, ${Math.round(r.longestWallMs)} ms wall-clock)`,
  );
  expect(openMs, 'the page recorded its open measure').toBeGreaterThanOrEqual(0);
  expect(cpuBoundMs).toBeLessThan(budgetMs);
}
