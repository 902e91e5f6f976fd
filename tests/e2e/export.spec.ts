import { expect, open, test } from './fixtures';

const ENVOY = `name: envoy.filters.http.local_ratelimit
typed_config:
  "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
  stat_prefix: http_local_rate_limiter
  token_bucket:
    max_tokens: 20
    tokens_per_fill: 4
    fill_interval: 2s
  filter_enabled:
    default_value: { numerator: 100, denominator: HUNDRED }
  filter_enforced:
    default_value: { numerator: 100, denominator: HUNDRED }
`;

test('Export & import: the leaky bucket as nginx lines, an Envoy token_bucket loaded back', async ({
  page,
  context,
  errors,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await open(page);
  const limiter = page.getByRole('region', { name: 'Limiter' });
  const toggle = page.getByRole('button', { name: 'Export & import' });
  await toggle.click();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  // The default token bucket opens on Envoy.
  await expect(page.getByRole('tab', { name: /^Envoy/ })).toHaveAttribute('aria-selected', 'true');

  await limiter.getByLabel('System').selectOption('nginx');
  await expect(page.getByRole('tab', { name: /^nginx/ })).toHaveAttribute('aria-selected', 'true');
  const code = page.getByTestId('export-code');
  // The leaky bucket's defaults: rate=2r/s burst=5, delay=0 (nginx's own default).
  await expect(code).toContainText(
    'limit_req_zone $binary_remote_addr zone=ratelimit:10m rate=2r/s;',
  );
  await expect(code).toContainText('limit_req zone=ratelimit burst=5;');
  // The export follows the parameters as they are edited.
  await limiter.getByLabel('burst', { exact: true }).fill('12');
  await limiter.getByLabel('delay mode').selectOption('nodelay');
  await expect(code).toContainText('limit_req zone=ratelimit burst=12 nodelay;');

  await page.getByRole('button', { name: 'Copy nginx' }).click();
  await expect(page.getByRole('button', { name: '✓ Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toBe(await code.textContent());

  await page.getByLabel(/Paste nginx/).fill(ENVOY);
  await page.getByRole('button', { name: /^Import into/ }).click();
  await expect(page.getByTestId('import-done')).toContainText(
    'Loaded an Envoy token_bucket into the limiter: Token bucket: max_tokens 20, tokens_per_fill 4, fill_interval 2s.',
  );
  await expect(limiter.getByLabel('System')).toHaveValue('envoy');
  await expect(limiter.getByLabel('max_tokens')).toHaveValue('20');
  await expect(limiter.getByLabel('tokens_per_fill')).toHaveValue('4');
  await expect(limiter.getByLabel('fill_interval')).toHaveValue('2000');
  await expect(page.getByTestId('limiter-view')).toContainText('/ 20 tokens');
  await expect(page.getByRole('tab', { name: /^Envoy/ })).toHaveAttribute('aria-selected', 'true');
  await expect(code).toContainText('max_tokens: 20');
  expect(errors).toEqual([]);
});

test('Import: a broken nginx line says where and changes nothing', async ({ page, errors }) => {
  await open(page);
  await page.getByRole('button', { name: 'Export & import' }).click();
  await page
    .getByLabel(/Paste nginx/)
    .fill('limit_req_zone $binary_remote_addr zone=api:10m rate=10r/h;\nlimit_req zone=api;');
  await page.getByRole('button', { name: /^Import into/ }).click();
  await expect(page.getByTestId('import-errors')).toContainText(
    '1:54 expected rate=<n>r/s or r/m, got "10r/h"',
  );
  const limiter = page.getByRole('region', { name: 'Limiter' });
  await expect(limiter.getByLabel('System')).toHaveValue('envoy');
  await expect(limiter.getByLabel('max_tokens')).toHaveValue('10');
  expect(errors).toEqual([]);
});
