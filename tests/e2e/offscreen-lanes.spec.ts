import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/**
 * only lanes a person can see draw every frame while the clock plays. A lane whose only
 * pixels in the viewport are under the sticky clock bar is not seen: it stays still, and draws
 * again as soon as a strip of it shows below the bar.
 */
const SIX =
  // The token bucket that makes requests wait is Traefik's (Envoy never delays).
  'l=traefik:average=2,burst=5' +
  '&l=nginx:rate=2r/s,burst=5,delay=2&l=fixed-window:limit=10,window=2s' +
  '&l=sliding-log:limit=10,window=2s,log_rejected&l=sliding-window-counter:limit=10,window=2s' +
  '&l=gcra:max_burst=9,count=5,period=1s';

/** Scrolls so the bottom of lane `n` is `px` below the viewport's top. */
async function lanesBottomAt(page: Page, n: number, px: number): Promise<void> {
  await page
    .locator('.lane')
    .nth(n)
    .evaluate((lane, y) => {
      window.scrollTo(0, lane.getBoundingClientRect().bottom + window.scrollY - y);
    }, px);
}

/** Resolves once two more frames have been drawn: a render already scheduled has committed. */
function afterFrames(page: Page): Promise<void> {
  return page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
      }),
  );
}

/** DOM changes inside lane `n` over `ms` of playing. */
function changesIn(page: Page, n: number, ms: number): Promise<number> {
  return page.evaluate(
    ([index, duration]) =>
      new Promise<number>((resolve) => {
        const lane = document.querySelectorAll('.lane')[index];
        if (lane === undefined) throw new Error(`no lane ${index}`);
        let count = 0;
        const observer = new MutationObserver((records) => {
          count += records.length;
        });
        observer.observe(lane, {
          subtree: true,
          attributes: true,
          childList: true,
          characterData: true,
        });
        setTimeout(() => {
          observer.disconnect();
          resolve(count);
        }, duration);
      }),
    [n, ms] as const,
  );
}

for (const width of [1280, 390]) {
  test(`a lane hidden under the sticky clock bar does not animate, ${width} px`, async ({
    page,
  }) => {
    await page.setViewportSize({ width, height: 800 });
    // Playing (no `paused`), from t = 0, for a minute of virtual time.
    await open(page, `./?v=1&${SIX}&mode=compare&until=60s`);
    await expect(page.getByTestId('limiter-view')).toHaveCount(6);
    await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
    const barPx = await page
      .locator('.clock-bar')
      .evaluate((bar) => bar.getBoundingClientRect().height);
    expect(barPx).toBeGreaterThan(40);

    // The fixed window's lane (the third): its last 30 px are in the viewport, under the bar.
    const lane = page.locator('.lane').nth(2);
    await lanesBottomAt(page, 2, barPx - 30);
    // Counted once the page has found it unseen (the observer reports in a frame after the
    // scroll, however late that frame comes) and a frame has gone by since that render.
    await expect(lane).toHaveAttribute('data-on-screen', 'false');
    await afterFrames(page);
    expect(await changesIn(page, 2, 600)).toBe(0);

    // 30 px of it below the bar: seen, and drawing every frame again (the attribute's own change
    // is over before the count starts, so only the drawing counts).
    await lanesBottomAt(page, 2, barPx + 30);
    await expect(lane).toHaveAttribute('data-on-screen', 'true');
    await afterFrames(page);
    expect(await changesIn(page, 2, 600)).toBeGreaterThan(0);
  });
}
