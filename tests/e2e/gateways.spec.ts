/**
 * in the browser: a system's own export first (with Download), an Ingress's ingress-nginx
 * annotations loaded as ingress-nginx beside Traefik, and no axe violations in what they show.
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, open, test } from './fixtures';

const MANIFEST = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
  annotations:
    nginx.ingress.kubernetes.io/limit-rps: "10"
    nginx.ingress.kubernetes.io/limit-whitelist: "10.0.0.0/8"
`;

test('Traefik exports first; an Ingress imports as ingress-nginx beside Traefik', async ({
  page,
  errors,
}) => {
  await open(page, './?v=1&paused&l=traefik:average=100,period=1m,burst=50');
  await page.getByRole('button', { name: 'Export & import' }).click();
  const tabs = page.getByRole('tab');
  await expect(tabs.first()).toHaveText('Traefik');
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('export-code')).toContainText('average: 100');
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download traefik-dynamic.yml' }).click();
  expect((await download).suggestedFilename()).toBe('traefik-dynamic.yml');

  await page.getByLabel(/^Paste nginx/).fill(MANIFEST);
  await page.getByRole('button', { name: /^Import into/ }).click();
  await expect(page.getByTestId('import-ingress')).toContainText(
    'ingress-nginx beside Traefik: "default/api" as nginx limit-rps 10',
  );
  // Two lanes now, one per controller.
  await expect(
    page.getByRole('button', { name: /ingress-nginx|nginx limit-rps 10/ }).first(),
  ).toBeVisible();
  await expect(page.getByText('Traefik limit-rps 10').first()).toBeVisible();
  await page.getByText('What each controller renders').click();
  const results = await new AxeBuilder({ page }).include('.export-section').analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);
  expect(errors).toEqual([]);
});

test('Cloudflare exports its Rulesets API body, then its Terraform resource, with nothing for axe', async ({
  page,
  errors,
}) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await open(page, './?v=1&paused&l=cloudflare:requests_per_period=40,period=1m');
  await page.getByRole('button', { name: 'Export & import' }).click();
  const tabs = page.getByRole('tab');
  await expect(tabs.first()).toHaveText('Cloudflare API');
  await expect(tabs.first()).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('export-code')).toContainText('"requests_per_period": 40');
  await expect(page.getByTestId('export-code')).toContainText('"period": 60');
  const section = page.locator('.export-section');
  await section.scrollIntoViewIfNeeded();
  await section.screenshot({ path: '/tmp/cf41/export-cloudflare-api.png' });
  await tabs.nth(1).click();
  await expect(page.getByTestId('export-code')).toContainText('kind = "zone"');
  await section.screenshot({ path: '/tmp/cf41/export-cloudflare-terraform.png' });
  const results = await new AxeBuilder({ page }).include('.export-section').analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);
  expect(errors).toEqual([]);
});
