import type { Page } from '@playwright/test';
import { EXPERIMENTS } from '../../src/config/experiments';
import { SYSTEMS } from '../../src/systems';
import { expect, open, test } from './fixtures';
import { findClashes } from './overlaps';

// Each test opens its own page in a browser context of its own, sharing nothing with the others:
// they may run on both workers at once, so this long file does not keep one worker busy at the end
// of the run while the other waits.
test.describe.configure({ mode: 'parallel' });

/**
 * No label runs into another, and no label covers a request's outcome mark, in any SVG of the stage
 * (algorithm views, request-flow strips, fleet strips, compare lanes, the timeline, the charts and
 * their legends), at the moments people look at: every experiment as its link opens it, every
 * system's default limiter on the default traffic, each algorithm view's screenshot moment, and
 * compare mode with six limiters; on a 390 px phone and a 1440 px desktop. Boxes are the browser's
 * own (tests/e2e/overlaps.ts).
 */

const SIX =
  // The token bucket that makes requests wait is Traefik's (Envoy never delays).
  'l=traefik:average=2,burst=5' +
  '&l=nginx:rate=2r/s,burst=5,delay=2&l=fixed-window:limit=10,window=2s' +
  '&l=sliding-log:limit=10,window=2s,log_rejected&l=sliding-window-counter:limit=10,window=2s' +
  '&l=gcra:max_burst=9,count=5,period=1s';

const PAGES: ReadonlyArray<readonly [name: string, path: string]> = [
  ...EXPERIMENTS.map((x) => [`experiment ${x.id}`, `./?x=${x.id}`] as const),
  ...SYSTEMS.map((s) => [`system ${s.id}, default`, `./?v=1&l=${s.id}&t=2.5s&paused`] as const),
  ...SIX.split('&').map(
    (l) => [`view ${l.slice(2, l.indexOf(':'))}`, `./?v=1&${l}&t=2.3s&paused`] as const,
  ),
  ['compare mode, six limiters', `./?v=1&${SIX}&mode=compare&t=2.5s&paused`],
];

const WIDTHS = [390, 1440] as const;

/** Opens `path` at `width` px and waits until everything the stage draws is there. */
async function openWhole(page: Page, path: string, width: number): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await open(page, path);
  await expect(page.getByText('Loading the charts…')).toHaveCount(0);
  await expect(page.locator('.sim-updating')).toHaveCount(0);
  await expect(page.locator('#stage svg').first()).toBeVisible();
  // The timeline and the lanes are each drawn once their width is measured: one drawn is not
  // proof that the other is.
  await expect(page.getByTestId('timeline')).toBeVisible();
  await expect(page.getByTestId('limiter-view').first()).toBeVisible();
}

for (const [name, path] of PAGES) {
  test(`no overlapping labels: ${name}`, async ({ page }) => {
    for (const width of WIDTHS) {
      await openWhole(page, path, width);
      const clashes = await findClashes(page);
      expect(clashes, `at ${width} px: ${path}`).toEqual([]);
    }
  });
}

test('the overlap check finds a label over a label and a label over a mark', async ({ page }) => {
  await openWhole(page, './?v=1&l=nginx:rate=2r/s,burst=5,delay=2&t=2.3s&paused', 1440);
  expect(await findClashes(page)).toEqual([]);
  // Put a copy of the view's first label on top of it, and a label on an outcome mark: the check
  // must report both, or it proves nothing.
  await page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>('[data-testid="leaky-bucket-view"]');
    const text = svg?.querySelector('text');
    const mark = svg?.querySelector('.rl-mark');
    const toSvg = svg?.getScreenCTM()?.inverse();
    if (!svg || !text || !mark || !toSvg) throw new Error('the nginx view has no text or no mark');
    svg.appendChild(text.cloneNode(true));
    const b = mark.getBoundingClientRect();
    const at = new DOMPoint(b.left, b.bottom).matrixTransform(toSvg);
    const over = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    over.setAttribute('x', String(at.x));
    over.setAttribute('y', String(at.y));
    over.textContent = '429';
    svg.appendChild(over);
  });
  const kinds = (await findClashes(page)).map((c) => c.kind);
  expect(kinds).toContain('text-text');
  expect(kinds).toContain('text-mark');
});

test('the nginx excess bar names the reject status once, with a request bouncing off it', async ({
  page,
}) => {
  await openWhole(page, './?x=nginx-burst', 1440);
  const views = page.getByTestId('leaky-bucket-view');
  await expect(views).toHaveCount(3);
  for (let k = 0; k < 3; k += 1) {
    const view = views.nth(k);
    // The moment the experiment opens at has a rejected request bouncing off the bar.
    await expect(view.locator('[data-phase="bounce"]')).not.toHaveCount(0);
    const texts = await view.locator('text').allTextContents();
    expect(texts.filter((t) => t.trim() === '503')).toHaveLength(1);
  }
});
