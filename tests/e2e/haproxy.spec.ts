import { clearTraffic, expect, open, test } from './fixtures';

test('HAProxy chosen in the playground: gt 3 denies the 4th of a burst with its 429 page, and exports the frontend', async ({
  page,
  errors,
}) => {
  await open(page);
  const limiter = page.getByRole('region', { name: 'Limiter' });
  await limiter.getByLabel('System').selectOption('haproxy');
  await limiter.getByLabel('gt', { exact: true }).fill('3');
  await limiter.getByLabel('http_req_rate', { exact: true }).fill('2000');
  // A bad deny_status says which are accepted and keeps the last valid limiter.
  await limiter.getByLabel('deny_status', { exact: true }).fill('418');
  await expect(limiter.getByRole('alert')).toContainText(
    'deny_status must be one of 400, 401, 403, 404, 405, 407, 408, 410, 413, 421, 422, 425, 429, 500, 501, 502, 503, 504, got 418',
  );
  await limiter.getByLabel('deny_status', { exact: true }).fill('429');
  await expect(limiter.getByLabel('System')).toHaveValue('haproxy');
  await clearTraffic(page);
  await page.getByLabel('burst size').fill('5');
  await page.getByRole('button', { name: /^Fire 5 at once/ }).click();

  // The fourth request (row 3): 3 counted before it, itself counted too: rate 4 > 3.
  await page.getByTestId('request-3').first().click();
  const inspector = page.getByTestId('inspector');
  await expect(inspector.getByTestId('rule')).toHaveText(
    'rate 4 + ⌊0 × 2000/2000⌋ = 4 > 3 → reject',
  );
  const reply = inspector.getByTestId('http-response');
  await expect(reply).toContainText('HTTP/1.1 429 Too Many Requests');
  await expect(reply).toContainText('content-type: text/html');
  await expect(reply).not.toContainText('Retry-After');

  const toggle = page.getByRole('button', { name: 'Export & import' });
  await toggle.click();
  await expect(page.getByRole('tab', { name: /^HAProxy/ })).toHaveAttribute(
    'aria-selected',
    'true',
  );
  await expect(page.getByTestId('export-code')).toContainText(
    'http-request deny deny_status 429 if { sc_http_req_rate(0) gt 3 }',
  );
  expect(errors).toEqual([]);
});

test('the HAProxy limiter at 390 px (screenshot)', async ({ page }) => {
  // Tall enough that the panel fits below the sticky clock bar once scrolled into view (an element
  // screenshot leaves what lies past the viewport blank).
  await page.setViewportSize({ width: 390, height: 1000 });
  await open(page, './?v=1&l=haproxy:gt=10,http_req_rate=10s,expire=30s,deny_status=429&paused');
  const limiter = page.getByRole('region', { name: 'Limiter' });
  await expect(limiter.getByLabel('System')).toHaveValue('haproxy');
  await expect(limiter.locator('.limiter-tabpanel')).toHaveScreenshot('haproxy-limiter-390.png');
});
