import { expect, test } from '@playwright/test';

/** Errors the page logged or threw during a test: each test ends with none. */
let pageErrors: string[] = [];

test.beforeEach(async ({ page }) => {
  pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.goto('./');
  await page.evaluate(() => document.fonts.ready);
});

test.afterEach(() => {
  expect(pageErrors).toEqual([]);
});

test('nginx burst=5: six simultaneous requests pass (one now, five delayed), the seventh gets 503', async ({
  page,
}) => {
  await page.getByRole('radio', { name: 'Leaky bucket' }).check();
  await page.getByLabel('rate', { exact: true }).fill('1');
  await page.getByLabel('burst').fill('5');
  await page.getByRole('button', { name: 'Fire 5 at once' }).click();
  await page.getByRole('button', { name: /Fire request/ }).click();
  await page.keyboard.press('f');

  const rows = page.locator('.decision-log tbody tr');
  await expect(rows).toHaveCount(7);
  await expect(rows.nth(0)).toContainText('admit');
  for (let i = 1; i <= 5; i += 1) await expect(rows.nth(i)).toContainText(`wait ${i * 1000} ms`);
  await expect(rows.nth(6)).toContainText('reject');
  await expect(rows.nth(6)).toContainText('503');
  await expect(page.getByTestId('http-response')).toContainText('HTTP/1.1 503 Service Unavailable');
  await expect(page.getByTestId('http-response')).toContainText('Retry-After: 1');
});

test('an invalid parameter shows what is wrong and keeps the last valid config', async ({
  page,
}) => {
  await page.getByLabel('max_tokens').fill('2.5');
  await expect(page.getByRole('alert')).toHaveText('max_tokens must be a whole number, got "2.5"');
  await page.getByLabel('max_tokens').fill('0');
  await expect(page.getByRole('alert')).toHaveText(
    'token-bucket maxTokens must be a whole number from 1 to 1000000, got 0',
  );
  // The limiter still runs on the last valid config (max_tokens 10).
  await page.getByRole('button', { name: 'Fire 5 at once' }).click();
  await expect(page.getByTestId('state')).toContainText('5.00 of 10 tokens');
  await expect(page.locator('body')).not.toContainText('NaN');
});

test('first page screenshot', async ({ page }) => {
  await page.getByRole('button', { name: 'Fire 5 at once' }).click();
  await page.getByRole('button', { name: '+1 s' }).click();
  await page.keyboard.press('f');
  await page.getByRole('button', { name: '+100 ms' }).click();
  await page.keyboard.press('f');
  await page.getByRole('button', { name: /Fire request/ }).blur();
  await expect(page).toHaveScreenshot('first-page.png', { fullPage: true });
});
