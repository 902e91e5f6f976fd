import type { Locator, Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/**
 * while the clock plays, the request-flow strip is painted by a worker on a canvas
 * (src/viz/flowPainter.ts); a still frame is SVG. The two must be the same picture, say the same
 * thing to a screen reader and take the same clicks. The page's clock is Playwright's, so time only
 * moves when the test says: the playing strip and the still one show the same instant.
 */

/** nginx `limit_req` at 5 r/s with a burst of 4 under 12 r/s: requests pass, wait and are refused. */
const LINK = './?v=1&l=nginx:rate=5r/s,burst=4&src=constant:rate=12r/s&until=10s&t=3100ms&paused';

/** Pixels of two same-sized PNGs whose colour differs by more than `tolerance` in some channel. */
async function differingPixels(page: Page, a: Buffer, b: Buffer, tolerance = 32) {
  return page.evaluate(
    async ([pa, pb, tol]) => {
      const pixels = async (b64: string) => {
        const blob = await (await fetch(`data:image/png;base64,${b64}`)).blob();
        const bitmap = await createImageBitmap(blob);
        const c = new OffscreenCanvas(bitmap.width, bitmap.height);
        const ctx = c.getContext('2d') as OffscreenCanvasRenderingContext2D;
        ctx.drawImage(bitmap, 0, 0);
        return ctx.getImageData(0, 0, bitmap.width, bitmap.height);
      };
      const [x, y] = await Promise.all([pixels(pa), pixels(pb)]);
      if (x.width !== y.width || x.height !== y.height) {
        return {
          sizes: `${x.width}×${x.height} vs ${y.width}×${y.height}`,
          differing: -1,
          total: 0,
        };
      }
      let differing = 0;
      let inked = 0;
      for (let k = 0; k < x.data.length; k += 4) {
        let far = false;
        for (let c = 0; c < 3; c += 1) {
          if (Math.abs((x.data[k + c] as number) - (y.data[k + c] as number)) > tol) far = true;
        }
        if (far) differing += 1;
        // Pixels that are not the page's background in the still picture: what is drawn.
        if (Math.abs((y.data[k] as number) - (y.data[0] as number)) > tol) inked += 1;
      }
      return { sizes: `${x.width}×${x.height}`, differing, total: x.width * x.height, inked };
    },
    [a.toString('base64'), b.toString('base64'), tolerance] as const,
  );
}

/** Opens LINK with the page's clock standing still: it moves only by `page.clock.runFor`. */
async function freezeClock(page: Page): Promise<void> {
  await page.clock.install({ time: new Date('2026-01-01T00:00:00Z') });
  await open(page, LINK);
  await page.clock.pauseAt(new Date('2026-01-01T01:00:00Z'));
}

async function play(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: 'Play' }).click();
  // One frame of the page's clock, which only notes the time: the virtual time stays where it
  // was, and the strip has turned into a canvas, handed to the worker.
  await page.clock.runFor(20);
  const canvas = page.getByTestId('request-flow-painted');
  // Shown once the worker has painted its first frame (the SVG stays until then).
  await expect(canvas).toBeVisible();
  await expect(page.getByTestId('request-flow')).toHaveCount(0);
  return canvas;
}

for (const theme of ['light', 'dark'] as const) {
  test(`the playing strip is painted as the still strip draws it, ${theme} theme`, async ({
    page,
  }) => {
    await page.emulateMedia({ colorScheme: theme });
    await freezeClock(page);
    const time = page.getByLabel('Virtual time');
    const canvas = await play(page);
    const at = await time.textContent();
    const paintedLabel = await canvas.getAttribute('aria-label');
    const painted = await canvas.screenshot();

    await page.getByRole('button', { name: 'Pause' }).click();
    const svg = page.getByTestId('request-flow');
    await expect(svg).toBeVisible();
    await expect(canvas).toHaveCount(0);
    expect(await time.textContent()).toBe(at);
    // The accessible name is the still strip's, word for word.
    expect(paintedLabel).toBe(await svg.getAttribute('aria-label'));
    expect(paintedLabel).toMatch(
      /waiting in the limiter; .* passed to the backend and \d+ rejected/,
    );
    const still = await svg.screenshot();

    const d = await differingPixels(page, painted, still);
    expect(d.differing, `sizes ${d.sizes}`).toBeGreaterThanOrEqual(0);
    // The same marks, boxes and words at the same places, in the same colours: when written, 14–16
    // of the ~143,000 pixels differed by more than 16 in a channel, none by more than 32 (edges of
    // letters and rings). One mark drawn elsewhere or missing differs by ~60 pixels, a word by
    // hundreds.
    expect(d.inked).toBeGreaterThan(d.total * 0.02);
    expect(d.differing).toBeLessThan(50);
  });
}

test('a theme switched while the clock plays repaints the strip in the new colours', async ({
  page,
}) => {
  await freezeClock(page);
  // The still strip in the dark theme: what the painted one must come to.
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  const dark = await page.getByTestId('request-flow').screenshot();
  await page.getByRole('button', { name: 'Switch to light theme' }).click();
  const canvas = await play(page);
  const light = await canvas.screenshot();
  expect((await differingPixels(page, light, dark)).differing).toBeGreaterThan(1000);
  await page.getByRole('button', { name: 'Switch to dark theme' }).click();
  await expect
    .poll(async () => (await differingPixels(page, await canvas.screenshot(), dark)).differing)
    .toBeLessThan(50);
});

/** Where `mark` is drawn, the centre, relative to `strip`'s box. */
async function centreIn(mark: Locator, strip: Locator): Promise<{ x: number; y: number }> {
  const m = await mark.boundingBox();
  const s = await strip.boundingBox();
  if (m === null || s === null) throw new Error('a mark or the strip has no box');
  return { x: m.x + m.width / 2 - s.x, y: m.y + m.height / 2 - s.y };
}

/** The still strip's first mark in `phase`: its request's id and where it is in the strip. */
async function stillMark(page: Page, phase: string) {
  const strip = page.getByTestId('request-flow');
  const mark = strip.locator(`[data-testid^="request-"][data-phase="${phase}"]`).first();
  const id = Number((await mark.getAttribute('data-testid'))?.replace('request-', ''));
  return { id, at: await centreIn(mark, strip), name: await mark.getAttribute('aria-label') };
}

for (const phase of ['waiting', 'to-backend', 'bounce'] as const) {
  test(`a click on a mark of the playing strip selects its request, as on the still strip (${phase})`, async ({
    page,
  }) => {
    await freezeClock(page);
    const { id, at } = await stillMark(page, phase);
    const strip = await play(page);
    // A waiting request is a mark of its own over the canvas; one on its way is painted, and the
    // strip finds the mark under the click.
    await strip.click({ position: at });
    const inspector = page.getByTestId('inspector');
    await expect(inspector).toBeVisible();
    await expect(inspector.getByRole('heading', { level: 2 })).toContainText(`#${id + 1}`);
  });
}

test('the waiting requests of a playing strip are reached by keyboard', async ({ page }) => {
  await freezeClock(page);
  const { id, name } = await stillMark(page, 'waiting');
  expect(name).toMatch(/^Request #\d+, delayed/);
  const strip = await play(page);
  const mark = strip.getByRole('button', { name: name ?? '' });
  await expect(mark).toHaveAttribute('tabindex', '0');
  await mark.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('inspector').getByRole('heading', { level: 2 })).toContainText(
    `#${id + 1}`,
  );
});

test('the painter worker loads when the site is served from a sub-path', async ({ page }) => {
  // The built site under /tools/rll/: every request below it is answered from the root.
  await page.context().route('**/tools/rll/**', async (route) => {
    const url = new URL(route.request().url());
    url.pathname = url.pathname.replace('/tools/rll/', '/');
    await route.fulfill({ response: await route.fetch({ url: url.href }) });
  });
  const workers: string[] = [];
  page.on('worker', (w) => workers.push(w.url()));
  await open(page, `./tools/rll/${LINK.slice(2)}`);
  await page.getByRole('button', { name: 'Play' }).click();
  await expect(page.getByTestId('request-flow-painted')).toBeVisible();
  expect(workers.some((w) => w.includes('/tools/rll/assets/flowPaint.worker-'))).toBe(true);
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.context().unrouteAll({ behavior: 'ignoreErrors' });
});
