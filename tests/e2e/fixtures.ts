import { expect, test as base } from '@playwright/test';
import type { Page } from '@playwright/test';

/**
 * The test fixture every browser test uses: the page opens at the playground with fonts loaded, and
 * the test fails if the page threw or logged an error.
 */
export const test = base.extend<{ errors: string[] }>({
  errors: async ({ page }, use) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await use(errors);
    expect(errors).toEqual([]);
  },
});

export { expect };

/**
 * Opens `path` and waits for the bundled fonts. The default is the playground's default settings,
 * paused at t = 0 (without a link the page plays at once, and a moving clock is no place to test).
 */
export async function open(page: Page, path = './?v=1&paused'): Promise<void> {
  await page.goto(path);
  await page.evaluate(() => document.fonts.ready);
  // The first render waits for the chunks the page opens with (src/main.tsx), which may arrive
  // after the load event: until it commits, the root is empty and no placeholder is there either,
  // nor the keyboard shortcuts' listener (a key pressed then was lost: a flaky keyboard test).
  await page.waitForFunction(() => (document.getElementById('root')?.childElementCount ?? 0) > 0);
  // Parts of the page are chunks of their own (the access-log panel, the experiments menu, the
  // download menu, …): wait until no placeholder is left, so the page is whole when compared.
  await expect(page.locator('.lazy-loading')).toHaveCount(0);
}

/** Removes every traffic source, leaving a quiet scenario to fire into. */
export async function clearTraffic(page: Page): Promise<void> {
  const sources = page.locator('.source');
  for (let n = await sources.count(); n > 0; n -= 1) {
    const source = sources.first();
    if (!(await source.evaluate((d) => (d as HTMLDetailsElement).open)))
      await source.locator('summary').click();
    await source.getByRole('button', { name: 'Remove this source' }).click();
  }
  await expect(sources).toHaveCount(0);
}

/** A page whose one limiter is nginx `limit_req` rate=1r/s burst=1 nodelay (traces replay it). */
export const NGINX_1RS_PAGE = './?v=1&l=nginx:rate=1r/s,burst=1,nodelay&paused';

/** NGINX_1RS_PAGE's limiter as core takes it, to compute here what the page shows. */
export const NGINX_1RS = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 1,
  delay: 'nodelay',
} as const;
