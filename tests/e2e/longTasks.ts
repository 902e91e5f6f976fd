import type { BrowserContext, Page } from '@playwright/test';

/**
 * Main-thread long tasks as the page itself sees them: a `longtask` PerformanceObserver installed
 * before any of the page's scripts run (buffered, so tasks before it was registered count too),
 * for every page of `context`. Used by the hostile-input browser tests and the bench.
 */
export async function watchLongTasks(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longTasks.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
    } catch {
      // No long task timing in this browser: nothing is recorded.
    }
  });
}

/** The longest main-thread task the page has run so far (ms; 0 when none was over 50 ms). */
export async function longestTask(page: Page): Promise<number> {
  // A task still running is reported when it ends: let the page reach a frame first.
  await page.evaluate(
    () => new Promise<void>((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
  );
  return page.evaluate(() =>
    Math.max(0, ...(window as unknown as { __longTasks: number[] }).__longTasks),
  );
}

/** Forgets the tasks recorded so far (to measure one action on an open page). */
export async function resetLongTasks(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __longTasks: number[] }).__longTasks = [];
  });
}
