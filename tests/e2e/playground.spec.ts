import { clearTraffic, expect, open, test } from './fixtures';

test('nginx burst=5: of seven simultaneous requests one passes, five wait 1–5 s, the seventh gets 503', async ({
  page,
  errors,
}) => {
  await open(page);
  const limiter = page.getByRole('region', { name: 'Limiter' });
  await limiter.getByLabel('Algorithm').selectOption('leaky-bucket');
  await limiter.getByLabel('rate', { exact: true }).fill('1');
  await limiter.getByLabel('burst', { exact: true }).fill('5');
  await limiter.getByLabel('delay mode').selectOption('delay');
  await clearTraffic(page);
  await page.getByLabel('burst size').fill('7');
  await page.getByRole('button', { name: 'Fire 7 at once' }).click();

  // The seventh request (row 6) is rejected; the inspector says why and what the client got.
  await page.getByTestId('request-6').first().click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector.getByTestId('rule')).toHaveText('excess 6000 > 5000 → reject');
  await expect(inspector.getByTestId('http-response')).toContainText(
    'HTTP/1.1 503 Service Unavailable',
  );
  await expect(inspector.getByTestId('http-response')).toContainText('Retry-After: 1');
  await inspector.getByRole('button', { name: '← Previous' }).click();
  await expect(inspector.getByTestId('rule')).toHaveText('excess 5000 ≤ 5000 → delay');
  await expect(inspector).toContainText('delay = ⌊(5000 − 0) × 1000 / 1000⌋ = 5000 ms');
  expect(errors).toEqual([]);
});

test('an invalid parameter says what is wrong and the last valid config keeps running', async ({
  page,
}) => {
  await open(page);
  await page.getByLabel('max_tokens').fill('2.5');
  await expect(page.getByRole('alert')).toHaveText('max_tokens must be a whole number, got "2.5"');
  await page.getByLabel('max_tokens').fill('0');
  await expect(page.getByRole('alert')).toHaveText(
    'token-bucket maxTokens must be a whole number from 1 to 1000000, got 0',
  );
  await expect(page.getByTestId('limiter-view')).toContainText('/ 10 tokens');
  await expect(page.locator('body')).not.toContainText('NaN');
});

test('the playground at 2.5 s, paused (screenshot)', async ({ page }) => {
  await open(page, './?v=1&t=2.5s&paused');
  await expect(page.getByLabel('Virtual time')).toHaveText('t = 2.5 s / 20 s');
  await expect(page).toHaveScreenshot('playground.png');
});
