import { expect, open, test } from './fixtures';

/**
 * the layout points, in a real browser: the skip link, the comparison before the stacked
 * views, a phone's reading order (experiment card and controls before the stage, DOM order as seen),
 * the compare table saying that it scrolls, and a single limiter's run summary.
 */

const SIX =
  // The token bucket that makes requests wait is Traefik's (Envoy never delays).
  'l=traefik:average=2,burst=5' +
  '&l=nginx:rate=2r/s,burst=5,delay=2&l=fixed-window:limit=10,window=2s' +
  '&l=sliding-log:limit=10,window=2s,log_rejected&l=sliding-window-counter:limit=10,window=2s' +
  '&l=gcra:max_burst=9,count=5,period=1s';

test('the first Tab reaches a skip link that moves focus to the clock', async ({ page }) => {
  await open(page);
  // The page must hold the window's focus for Tab to move within it: now and then (1 in 25 under
  // load) headless Chromium opened it without, and the Tab went nowhere (document.hasFocus() false).
  await page.bringToFront();
  await expect.poll(() => page.evaluate(() => document.hasFocus())).toBe(true);
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to the clock and stage' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(page.locator('#clock')).toBeFocused();
});

test('compare mode: the comparison comes before the stacked views, and its table says it scrolls', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, `./?v=1&${SIX}&mode=compare&t=2.5s&paused`);
  const table = page.getByTestId('compare-table');
  const firstView = page.getByTestId('limiter-view').first();
  const tableTop = (await table.boundingBox())?.y ?? Number.POSITIVE_INFINITY;
  const viewTop = (await firstView.boundingBox())?.y ?? 0;
  expect(tableTop).toBeLessThan(viewTop);
  expect(
    await table.evaluate(
      (t, view) => !!(t.compareDocumentPosition(view as Node) & Node.DOCUMENT_POSITION_FOLLOWING),
      await firstView.elementHandle(),
    ),
  ).toBe(true);
  // On a phone the table is wider than its box: the hint shows, and the box scrolls.
  const scroller = page.getByRole('region', { name: 'Comparison table (scrolls sideways)' });
  expect(await scroller.evaluate((e) => e.scrollWidth > e.clientWidth)).toBe(true);
  await expect(page.getByText('Scroll sideways for every column →')).toBeVisible();
});

test('on a phone the experiment card and the controls come before the stage, in DOM order too', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, './?x=boundary-burst&paused');
  const card = page.getByTestId('experiments');
  const stage = page.locator('#stage');
  const cardBox = await card.boundingBox();
  const stageBox = await stage.boundingBox();
  expect(cardBox?.y ?? Number.POSITIVE_INFINITY).toBeLessThan(stageBox?.y ?? 0);
  const order = await page.evaluate(() => {
    const a = document.querySelector('[data-testid="experiments"]');
    const b = document.querySelector('#stage');
    return a !== null && b !== null && !!(a.compareDocumentPosition(b) & 4);
  });
  expect(order).toBe(true);
});

test('a single limiter shows a run summary next to its view', async ({ page }) => {
  await open(page, './?v=1&l=nginx:rate=2r/s,burst=5&src=burst:count=10,at=1s&t=3s&paused');
  const summary = page.getByRole('region', { name: 'Run summary' });
  await expect(summary).toBeVisible();
  await expect(summary.getByTestId('summary-offered')).toHaveText('10');
  await expect(summary.getByTestId('summary-rejected')).toHaveText('4');
  await expect(summary.getByTestId('summary-first-reject')).not.toHaveText('none');
});

for (const width of [390, 1280]) {
  test(`at ${width} px, focus moving back up the page is never hidden under the sticky clock bar`, async ({
    page,
  }) => {
    // WCAG 2.2, 2.4.11: the bar is 135 px tall at 390 px (three rows); before scroll-padding
    // followed its height, Shift+Tab left the timeline and several inputs under it.
    await page.setViewportSize({ width, height: 800 });
    await open(page, `./?v=1&${SIX}&mode=compare&t=2.5s&paused`);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    const hidden: string[] = [];
    let checked = 0;
    for (let i = 0; i < 60; i += 1) {
      await page.keyboard.press('Shift+Tab');
      const seen = await page.evaluate(() => {
        const focused = document.activeElement;
        const bar = document.querySelector('.clock-bar');
        if (!(focused instanceof Element) || bar === null || focused === document.body) return null;
        if (bar.contains(focused)) return null;
        const f = focused.getBoundingClientRect();
        const b = bar.getBoundingClientRect();
        const stuck = b.top <= 1;
        const under = stuck && f.top < b.bottom - 1 && f.bottom > b.top;
        const name = `${focused.tagName} ${focused.getAttribute('aria-label') ?? ''}`;
        return { under, name };
      });
      if (seen === null) continue;
      checked += 1;
      if (seen.under) hidden.push(seen.name);
    }
    expect(checked).toBeGreaterThan(30);
    expect(hidden).toEqual([]);
  });
}
