/**
 * What a person feels while the page works on a file they chose, recorded in the page itself and
 * read back by the browser tests and the benches: the moment the file input changes, the figures
 * the page's workers send back, and when a message first appears. (The main thread's tasks are
 * traced from outside the page, with their CPU time: tests/e2e/mainThread.ts.)
 */
import type { Page } from '@playwright/test';

/** What `recordPage` keeps (in the page, as `window.__record`). */
export interface PageRecord {
  /** When the file input last changed, page time, ms (0 before). */
  chosenAt: number;
  /** Every worker reply's own `ms` (a worker's time for its work), in order. */
  workerMs: number[];
  /** A worker's error reply's `stoppedAt`: when it stopped reading, epoch ms (NaN before). */
  stoppedAt: number;
  /** When the `shown` element first was in the document, epoch ms (NaN before). */
  shownAt: number;
}

/** What to watch: the file input's test id, and a message's (whose first appearance is stamped). */
export interface RecordOptions {
  input: string;
  shown?: string;
}

/**
 * Installed before the page's own scripts: `page.addInitScript(recordPage, options)`. Runs in the
 * page, so it uses nothing from outside itself. Worker replies are read by a listener added as each
 * worker is made, before the page sets its own `onmessage`.
 */
export function recordPage(options: RecordOptions): void {
  const r: PageRecord = {
    chosenAt: 0,
    workerMs: [],
    stoppedAt: Number.NaN,
    shownAt: Number.NaN,
  };
  (window as unknown as { __record: PageRecord }).__record = r;
  document.addEventListener(
    'change',
    (e) => {
      if ((e.target as HTMLElement).getAttribute('data-testid') === options.input) {
        r.chosenAt = performance.now();
        // The same moment in a main-thread trace (tests/e2e/mainThread.ts `traceMainThread`); the
        // name is CHOSEN_MARK's (this function runs in the page and sees nothing outside it).
        performance.mark('rate-limit-lab-test:chosen');
      }
    },
    true,
  );
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(url: string | URL, workerOptions?: WorkerOptions) {
      super(url, workerOptions);
      this.addEventListener('message', (e: MessageEvent<unknown>) => {
        const d = e.data as { type?: unknown; ms?: unknown; stoppedAt?: unknown } | null;
        if (d === null || typeof d !== 'object') return;
        if (typeof d.ms === 'number') r.workerMs.push(d.ms);
        if (d.type === 'error' && typeof d.stoppedAt === 'number') r.stoppedAt = d.stoppedAt;
      });
    }
  };
  const shown = options.shown;
  if (shown !== undefined) {
    new MutationObserver(() => {
      if (Number.isNaN(r.shownAt) && document.querySelector(`[data-testid="${shown}"]`) !== null)
        r.shownAt = performance.timeOrigin + performance.now();
    }).observe(document, { childList: true, subtree: true });
  }
}

/** The `performance.mark` the recorder makes when the file input changes. */
export const CHOSEN_MARK = 'rate-limit-lab-test:chosen';

/** The record so far. */
export function pageRecord(page: Page): Promise<PageRecord> {
  return page.evaluate(() => (window as unknown as { __record: PageRecord }).__record);
}

/** Forgets the stamps recorded so far (before choosing another file in the same page). */
export async function resetRecord(page: Page): Promise<void> {
  await page.evaluate(() => {
    const r = (window as unknown as { __record: PageRecord }).__record;
    r.workerMs = [];
    r.stoppedAt = Number.NaN;
    r.shownAt = Number.NaN;
  });
}
