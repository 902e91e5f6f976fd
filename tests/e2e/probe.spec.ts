import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/**
 * A real run (tests/probe/replicas.server.test.ts, RLL_PROBE_FIXTURE): the plan of an nginx limit
 * (rate=10r/s burst=5 nodelay, 429) sent to two nginx replicas behind an upstream, each with its
 * own zone, while the lab says one instance.
 */
const FIXTURE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '../probe/fixtures/two-replicas.json',
);
const LINK = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { link: string }).link;

/** Opens the lab at the fixture's own configuration and its gateway check. */
async function openCheck(page: Page, link = LINK): Promise<void> {
  await open(page, `./${link}&paused`);
  await page.getByRole('button', { name: 'Export & import' }).click();
  await expect(page.getByRole('heading', { name: 'Check a live gateway' })).toBeVisible();
}

test('the verdict for the two-replica case: the diagnosis names the replicas', async ({
  page,
  errors,
}) => {
  // Tall enough that the whole verdict shows below the sticky clock bar.
  await page.setViewportSize({ width: 1280, height: 2400 });
  await openCheck(page);
  const check = page.locator('.probe-part');
  // The plan is shown before anything is sent.
  await expect(check.locator('.probe-plan caption')).toHaveText(
    '71 requests over 4.3 s · peak 25 in one second · at most 14 at once',
  );
  await page.getByTestId('probe-file').setInputFiles(FIXTURE);
  const verdict = page.getByTestId('probe-verdict');
  await expect(verdict).toBeVisible();
  await expect(verdict.locator('.probe-headline')).toHaveText('✗ Not as configured');
  await expect(verdict).toContainText('burst: expected 6 to pass of 14 sent at once, got 12');
  await expect(verdict.locator('.probe-diagnosis')).toContainText(
    'Consistent with 2 replicas each holding its own bucket of burst 5.',
  );
  // The inspector opens on the first request that differs; the buttons move between them.
  await expect(verdict.locator('.probe-request h5')).toContainText('Request 7 of 71');
  await expect(verdict.locator('.probe-compare')).toContainText('rejected (429)');
  await verdict.getByRole('button', { name: 'Next difference →' }).click();
  await expect(verdict.locator('.probe-request h5')).toContainText('Request 8 of 71');
  await verdict.getByRole('button', { name: '← Previous difference' }).click();
  await expect(verdict).toHaveScreenshot('probe-two-replicas.png');
  expect(errors).toEqual([]);
});

test('the verdict at 390 px (no sideways scroll) and in the dark theme', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await openCheck(page);
  await page.getByTestId('probe-file').setInputFiles(FIXTURE);
  const verdict = page.getByTestId('probe-verdict');
  await expect(verdict).toBeVisible();
  // The lanes scroll inside their own region; the page itself does not scroll sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await verdict.screenshot({ path: test.info().outputPath('probe-390.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.evaluate(() => document.documentElement.setAttribute('data-theme', 'dark'));
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.locator('.probe-part').screenshot({ path: test.info().outputPath('probe-dark.png') });
});

test('a result file that is cut off, edited, or for another configuration says so', async ({
  page,
}) => {
  await openCheck(page);
  const text = readFileSync(FIXTURE, 'utf8');
  const file = page.getByTestId('probe-file');
  await file.setInputFiles({
    name: 'cut.json',
    mimeType: 'application/json',
    buffer: Buffer.from(text.slice(0, 4000)),
  });
  await expect(page.locator('.probe-part [role="alert"]')).toContainText('"cut.json" ends early');
  const edited = text.replace(/"status": ?429/, '"status": 200');
  expect(edited).not.toBe(text);
  await file.setInputFiles({
    name: 'edited.json',
    mimeType: 'application/json',
    buffer: Buffer.from(edited),
  });
  await expect(page.locator('.probe-part [role="alert"]')).toContainText(
    '"edited.json" was changed after the run',
  );
  await expect(page.getByTestId('probe-verdict')).toHaveCount(0);

  // The same file while the lab holds another limiter: the verdict is the file's, said so.
  await openCheck(page, '?v=1&l=nginx:rate=20r/s,burst=5,nodelay,limit_req_status=429');
  await page.getByTestId('probe-file').setInputFiles(FIXTURE);
  await expect(page.locator('.probe-other')).toContainText(
    'This result checks another configuration than the limiter you are editing',
  );
  await page.getByRole('button', { name: 'Open the result’s configuration' }).click();
  await expect(page.locator('.probe-other')).toHaveCount(0);
});

test('axe finds nothing on the gateway check with a verdict', async ({ page }) => {
  await openCheck(page);
  await page.getByTestId('probe-file').setInputFiles(FIXTURE);
  await expect(page.getByTestId('probe-verdict')).toBeVisible();
  const results = await new AxeBuilder({ page }).include('.probe-part').analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
});
