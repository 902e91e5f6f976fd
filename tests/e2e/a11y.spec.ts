import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

// Each test opens its own page in a browser context of its own, sharing nothing with the others:
// they may run on both workers at once, so this long file does not keep one worker busy at the end
// of the run while the other waits.
test.describe.configure({ mode: 'parallel' });

/**
 * axe-core on the pages people use, asserting no violation at all (WCAG 2.x A/AA and best
 * practices as axe ships them). Each test names the state it checks; a failure lists the rule, the
 * element and axe's help text.
 */
async function expectNoViolations(page: Page): Promise<void> {
  // Every rule runs on every element as before; only the violations are collected whole. Passes
  // and the rest keep one node each, so axe builds no selector for each of the thousands of marks
  // that pass, and sends no report of them back to the test.
  const results = await new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).analyze();
  const found = results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')} — ${n.failureSummary ?? ''}`),
  }));
  expect(found).toEqual([]);
}

/**
 * Waits until the stage has drawn what it draws once widths are measured (the timeline, the lanes),
 * a frame after the page has opened: axe run before then checks a page without them, and passes.
 */
async function stageDrawn(page: Page): Promise<void> {
  await expect(page.getByTestId('timeline')).toBeVisible();
  await expect(page.getByTestId('limiter-view').first()).toBeVisible();
}

const SIX =
  // The token bucket that makes requests wait is Traefik's (Envoy never delays).
  'l=traefik:average=2,burst=5' +
  '&l=nginx:rate=2r/s,burst=5,delay=2&l=fixed-window:limit=10,window=2s' +
  '&l=sliding-log:limit=10,window=2s,log_rejected&l=sliding-window-counter:limit=10,window=2s' +
  '&l=gcra:max_burst=9,count=5,period=1s';

// Two states of one page load, each checked whole: the default page, then the same page with the
// export panel open (opening it changes nothing else, so the default page needs no load of its own).
test('the default page, then the export panel', async ({ page }) => {
  await open(page);
  await stageDrawn(page);
  await test.step('axe on the default page', () => expectNoViolations(page));
  await page.getByRole('button', { name: 'Export & import' }).click();
  await expect(
    page.locator('.export-section [role="tablist"], .export-section pre').first(),
  ).toBeVisible();
  await test.step('axe with the export panel open', () => expectNoViolations(page));
});

// Compare mode with six limiters, paused, in three states of one page load: light, dark (the page
// follows the system's colour scheme as it changes, src/ui/app/theme.ts, as it does on opening),
// then light again with the inspector open on a rejected request. Each state is checked whole, as
// when each had a page load of its own; computing and drawing six lanes is done once instead of
// three times.
test('compare mode with six limiters: light, dark, and the inspector on a rejected request', async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, `./?v=1&${SIX}&mode=compare&t=2.5s&paused`);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect(page.getByTestId('limiter-view')).toHaveCount(6);
  await expect(page.locator('.charts-panel svg')).toHaveCount(3);
  await test.step('axe, light', () => expectNoViolations(page));

  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByTestId('limiter-view')).toHaveCount(6);
  await expect(page.locator('.charts-panel svg')).toHaveCount(3);
  await test.step('axe, dark', () => expectNoViolations(page));

  await page.emulateMedia({ colorScheme: 'light' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  const mark = page.getByRole('button', { name: /^Request #\d+, rejected/ }).first();
  const name = (await mark.getAttribute('aria-label')) ?? '';
  await mark.click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector).toBeVisible();
  // One numbering: the mark announced as "Request #n" opens "Request #n".
  const number = /^Request #[\d,]*\d/.exec(name)?.[0] ?? 'no number';
  await expect(inspector.getByRole('heading', { level: 2 })).toHaveText(
    new RegExp(`^${number}(\\D|$)`),
  );
  await expect(inspector).toContainText('reject');
  // The same request in every lane, side by side.
  await expect(page.getByTestId('inspector-lanes').locator('li')).toHaveCount(6);
  await expect(inspector).toBeInViewport();
  await expect(page.getByTestId('timeline')).toBeInViewport();
  await test.step('axe, the inspector open', () => expectNoViolations(page));
});

test('compare mode playing, its strips painted by the worker, on a phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // A link without "paused" plays as it opens.
  await open(page, `./?v=1&${SIX}&mode=compare&t=2.5s`);
  await expect(page.getByTestId('request-flow-painted')).toHaveCount(6);
  await expect(page.getByTestId('request-flow-painted').first()).toBeVisible();
  await expectNoViolations(page);
});

test('an experiment', async ({ page }) => {
  await open(page, './?x=nginx-burst&paused');
  await expect(page.getByTestId('limiter-view').first()).toBeVisible();
  await expectNoViolations(page);
});

test('a phone', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await open(page, './?x=boundary-burst&paused');
  await stageDrawn(page);
  await expectNoViolations(page);
});

test('a fleet: the fleet view and its controls open, with an invalid field', async ({ page }) => {
  await open(
    page,
    './?v=1&deploy=4:state=shared-atomic,balancer=weighted&fleet=weights=3;1;1;1,scale=6@12s,store_rtt=2ms,outage=8s-14s,down=closed&t=9s&paused',
  );
  await expect(page.getByTestId('fleet-panel')).toBeVisible();
  await page.locator('details', { hasText: 'Deployment' }).first().locator('summary').click();
  await page.getByTestId('fleet-controls').getByLabel('outage 1 until').fill('90000');
  await expect(page.getByTestId('fleet-controls').getByRole('alert')).toHaveCount(1);
  await expectNoViolations(page);
});

// One log read, replayed, swept and kept, then looked at three ways: 1280 px light, a 390 px phone,
// 1280 px dark. The state is the same each time (the sizes and the theme change how it is laid out
// and painted, which is what axe reads); the log is read once instead of once a look.
test('an access log replayed, with its overview, the dry run, the sweep heatmap and a kept copy: 1280 px and 390 px light, 1280 px dark', async ({
  page,
}) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await open(page, './?v=1&l=nginx:rate=1r/s,burst=5,nodelay&paused');
  await page
    .getByTestId('trace-file')
    .setInputFiles(join(import.meta.dirname, '..', 'trace', 'fixtures', 'apache.log.gz'));
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await expect(page.getByTestId('trace-overview-rejected')).toBeVisible();
  const dry = page.getByTestId('trace-dry-run');
  await expect(page.getByTestId('trace-dry-run-counts')).toBeVisible();
  await dry.locator('details summary').click();
  const sweep = page.getByTestId('trace-sweep');
  await sweep.getByRole('button', { name: /^Sweep \d+ settings$/ }).click();
  await expect(sweep.getByTestId('sweep-best')).toBeVisible({ timeout: 60_000 });
  await sweep.getByTestId('trace-heatmap').focus();
  await page.keyboard.press('ArrowRight');
  await page.getByRole('button', { name: 'Keep in this browser' }).click();
  await expect(page.getByTestId('trace-kept')).toBeVisible();
  for (const { width, height, scheme } of [
    { width: 1280, height: 800, scheme: 'light' },
    { width: 390, height: 844, scheme: 'light' },
    { width: 1280, height: 800, scheme: 'dark' },
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
    await expect(page.getByTestId('trace-overview-rejected')).toBeVisible();
    await expect(sweep.getByTestId('sweep-best')).toBeVisible();
    await expect(page.getByTestId('trace-kept')).toBeVisible();
    await test.step(`axe at ${width} px, ${scheme}`, () => expectNoViolations(page));
  }
});
