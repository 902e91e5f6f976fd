import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/**
 * One screenshot per algorithm view, and of compare mode, at a fixed paused virtual time, in light
 * and dark. Each link holds everything the picture depends on.
 */
const VIEWS: ReadonlyArray<readonly [name: string, query: string]> = [
  // The token bucket that makes requests wait is Traefik's (Envoy never delays).
  ['token-bucket', 'l=traefik:average=1,burst=5&t=1.8s'],
  ['leaky-bucket', 'l=nginx:rate=2r/s,burst=5,delay=2&t=2.3s'],
  ['fixed-window', 'l=fixed-window:limit=10,window=2s&t=2.1s'],
  ['sliding-log', 'l=sliding-log:limit=10,window=2s,log_rejected&t=2.5s'],
  ['sliding-window-counter', 'l=sliding-window-counter:limit=10,window=2s&t=3.5s'],
  ['gcra', 'l=gcra:max_burst=9,count=5,period=1s&t=2.5s'],
];

async function openThemed(page: Page, query: string, theme: 'light' | 'dark'): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await open(page, `./?v=1&${query}&paused`);
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
}

for (const theme of ['light', 'dark'] as const) {
  for (const [name, query] of VIEWS) {
    test(`${name} view at a paused moment, ${theme}`, async ({ page }) => {
      await openThemed(page, query, theme);
      await expect(page.getByTestId('limiter-view')).toHaveCount(1);
      await expect(page.locator('.lanes')).toHaveScreenshot(`${name}-${theme}.png`);
    });
  }

  test(`compare mode: six limiters on the same traffic, ${theme}`, async ({ page }) => {
    const lanes = VIEWS.map(([, q]) => q.split('&')[0]).join('&');
    await page.setViewportSize({ width: 1280, height: 900 });
    await openThemed(page, `${lanes}&mode=compare&t=2.5s`, theme);
    await expect(page.getByTestId('limiter-view')).toHaveCount(6);
    await expect(page.getByRole('region', { name: 'Comparison', exact: true })).toBeVisible();
    // The charts come as a chunk of their own: the picture waits for them.
    await expect(page.locator('.charts-panel svg')).toHaveCount(3);
    await expect(page.locator('.stage')).toHaveScreenshot(`compare-${theme}.png`);
  });
}
