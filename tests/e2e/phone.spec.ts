import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/** How far the stage's clock bar is from the top of the screen, px (negative: above it). */
async function stageTop(page: Page): Promise<number> {
  return page.evaluate(() => document.getElementById('stage')?.getBoundingClientRect().top ?? NaN);
}

test.describe('on a 390 px phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('choosing an experiment, and going to its moment, bring the stage into view', async ({
    page,
  }) => {
    await open(page);
    await page
      .getByTestId('experiments')
      .getByRole('button', { name: /Browse/ })
      .click();
    await page.locator('.experiment-item[data-id="fleet-store-down"]').click();
    const card = page.getByTestId('experiment-card');
    await expect(card).toHaveAttribute('data-id', 'fleet-store-down');
    // The card's heading has the focus (a screen reader reads the question), the stage is on the
    // screen: the clock at the top, the timeline below it.
    await expect(card.getByRole('heading', { level: 3 })).toBeFocused();
    await expect.poll(() => stageTop(page)).toBeLessThan(8);
    await expect.poll(() => stageTop(page)).toBeGreaterThan(-8);
    await expect(page.getByTestId('timeline')).toBeInViewport();
    await page.screenshot({ path: test.info().outputPath('experiment-chosen.png') });
    // Back up to the card, then "Go to 9 s": the stage again, at that moment.
    await card.scrollIntoViewIfNeeded();
    expect(await stageTop(page)).toBeGreaterThan(844);
    await card.getByRole('button', { name: 'Go to 9 s' }).click();
    await expect(page.getByLabel('Virtual time')).toContainText('t = 9 s');
    await expect.poll(() => stageTop(page)).toBeLessThan(8);
    await expect(page.getByTestId('timeline')).toBeInViewport();
  });

  test('with reduced motion the stage comes into view at once, not scrolled smoothly', async ({
    page,
  }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await open(page);
    await page
      .getByTestId('experiments')
      .getByRole('button', { name: /Browse/ })
      .click();
    await page.locator('.experiment-item[data-id="boundary-burst"]').click();
    // No animation frames needed: the very next check finds it there.
    const top = await page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          requestAnimationFrame(() =>
            resolve(document.getElementById('stage')?.getBoundingClientRect().top ?? NaN),
          ),
        ),
    );
    expect(Math.abs(top)).toBeLessThan(8);
  });

  test('lane labels stay readable under the playhead', async ({ page }) => {
    // Names wider than the letters' average: the words must stay clear of the playhead's line.
    const names = ['Wide MW bucket WMWMW', 'Traefik limit-rps 10'];
    const link =
      `./?v=1&l=envoy:name=${encodeURIComponent(names[0] as string)},max_tokens=5,tokens_per_fill=2,fill_interval=1s` +
      `&l=nginx:name=${encodeURIComponent(names[1] as string)},rate=10r/s,burst=5&mode=compare`;
    /** The playhead's x and the lane labels' boxes, in page coordinates, at `tMs`. */
    const at = async (tMs: number) => {
      await open(page, `${link}&t=${tMs}ms&paused`);
      // The timeline is drawn once its width is measured, in a frame after the page has opened.
      await expect(page.getByTestId('timeline-now')).toBeAttached();
      return page.evaluate(() => {
        const svg = document.querySelector('[data-testid="timeline"]') as SVGSVGElement;
        const box = svg.getBoundingClientRect();
        const left = box.left + window.scrollX;
        const top = box.top + window.scrollY;
        const now = svg.querySelector('[data-testid="timeline-now"]') as SVGPathElement;
        const labels = [
          ...svg.querySelectorAll('[data-testid="timeline-lane"] > text.rl-label'),
        ].map((t) => {
          const b = (t as SVGTextElement).getBBox();
          return {
            text: t.textContent ?? '',
            x: left + b.x,
            y: top + b.y,
            w: b.width,
            h: b.height,
          };
        });
        return { nowX: left + now.getBBox().x, labels };
      });
    };
    const start = await at(0);
    const end = await at(20_000);
    const msPerPx = 20_000 / (end.nowX - start.nowX);
    for (const label of end.labels) {
      // The label's glyphs (a few px in from its font box), with the playhead far away…
      const clip = { x: label.x, y: label.y + 3, width: label.w, height: label.h - 6 };
      await at(20_000);
      const clean = await page.screenshot({ fullPage: true, clip });
      // …and with the playhead across it, from its first letter to its last.
      for (const f of [0.2, 0.4, 0.6, 0.8, 0.9, 0.97]) {
        // The playhead starts at the plot's left, a little right of the labels' start.
        if (label.x + f * label.w < start.nowX + 1) continue;
        const t = Math.round((label.x + f * label.w - start.nowX) * msPerPx);
        const there = await at(t);
        expect(Math.abs(there.nowX - (label.x + f * label.w))).toBeLessThan(2);
        const shot = await page.screenshot({ fullPage: true, clip });
        expect(shot.equals(clean), `the playhead at ${t} ms crosses "${label.text}"`).toBe(true);
      }
    }
  });
});
