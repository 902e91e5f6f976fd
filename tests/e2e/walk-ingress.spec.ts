/**
 * A platform engineer leaving ingress-nginx, as a walk through the page: an Ingress's limit-rps
 * annotation imported, the same limit set as Kong and HAProxy beside the nginx and Traefik lanes
 * the import loads, every lane named by its system in the timeline, the compare table and the
 * inspector, and each lane's export carrying the limit. Screenshots are attached to the test's
 * output at each step (not pixel baselines: the panels they show have their own).
 */
import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

const MANIFEST = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: api
  namespace: shop
  annotations:
    nginx.ingress.kubernetes.io/limit-rps: "10"
`;

/** Each lane as the page names it, and lines its export must hold for limit-rps 10. */
const LANES = [
  {
    name: 'nginx limit-rps 10',
    tab: /^nginx/,
    export: [
      'limit_req_zone $binary_remote_addr zone=ratelimit:10m rate=10r/s;',
      // ingress-nginx's burst: limit-rps × limit-burst-multiplier (default 5).
      'limit_req zone=ratelimit burst=50 nodelay;',
    ],
  },
  {
    name: 'Traefik limit-rps 10',
    tab: /^Traefik/,
    export: ['average: 10', 'period: 1s', 'burst: 50'],
  },
  { name: 'Kong', tab: /^Kong/, export: ['name: rate-limiting', 'second: 10'] },
  {
    name: 'HAProxy',
    tab: /^HAProxy/,
    export: ['store http_req_rate(1s)', 'http-request deny if { sc_http_req_rate(0) gt 10 }'],
  },
];

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: test.info().outputPath(name), fullPage: true });
}

test('ingress-nginx limit-rps 10 → the same limit in Traefik, Kong and HAProxy, each named and exported', async ({
  page,
}) => {
  await open(page, './?v=1&paused');
  await page.getByRole('button', { name: 'Export & import' }).click();
  await page.getByLabel(/^Paste nginx/).fill(MANIFEST);
  await page.getByRole('button', { name: /^Import into/ }).click();
  await expect(page.getByTestId('import-ingress')).toContainText(
    'ingress-nginx beside Traefik: "shop/api" as nginx limit-rps 10',
  );
  await shot(page, '1-imported.png');

  // The same limit, 10 a second per client address, as Kong and HAProxy set it.
  const limiter = page.locator('.limiter-panel');
  await limiter.getByLabel('Compare with').selectOption('kong');
  await limiter.getByLabel('second', { exact: true }).fill('10');
  await limiter.getByLabel('minute', { exact: true }).fill('');
  await limiter.getByLabel('hour', { exact: true }).fill('');
  await limiter.getByLabel('Compare with').selectOption('haproxy');
  await limiter.getByLabel('gt', { exact: true }).fill('10');
  await limiter.getByLabel('http_req_rate', { exact: true }).fill('1000');
  await limiter.getByLabel('http_req_rate', { exact: true }).blur();

  // Each lane by its system's name: the limiter tabs, the timeline, the compare table.
  await expect(limiter.getByRole('tab')).toHaveText(LANES.map((l, i) => `${i + 1}. ${l.name}`));
  const timeline = page.getByTestId('timeline-lane');
  await expect(timeline).toHaveCount(LANES.length);
  for (const [i, l] of LANES.entries()) await expect(timeline.nth(i)).toContainText(l.name);
  const table = page.getByTestId('compare-table');
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(LANES.length);
  for (const [i, l] of LANES.entries())
    // (▸ marks the lane being edited.)
    await expect(rows.nth(i).locator('th').first()).toHaveText(new RegExp(`^(▸ )?${l.name}$`));
  await shot(page, '2-four-lanes.png');

  // The inspector on the first request the lanes decide differently: one entry per system.
  await page
    .getByRole('button', { name: /^Go to request/ })
    .first()
    .click();
  const lanes = page.getByTestId('inspector-lanes');
  await expect(lanes).toBeVisible();
  await expect(lanes.locator('.inspector-lane-name')).toHaveText(
    LANES.map((l) => new RegExp(`^${l.name} \\S+ (admit|delay|reject)`)),
  );
  await page
    .getByTestId('inspector')
    .screenshot({ path: test.info().outputPath('3-inspector.png') });

  // Each lane's export, on the system's own tab, carries the limit.
  for (const [i, l] of LANES.entries()) {
    await limiter.getByRole('tab').nth(i).click();
    const tab = page.getByRole('tab', { name: l.tab }).first();
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    const code = page.getByTestId('export-code');
    for (const line of l.export) await expect(code).toContainText(line);
  }
  await expect(page.getByTestId('export-code')).not.toContainText('minute:');
  await page
    .locator('.export-section')
    .first()
    .screenshot({ path: test.info().outputPath('4-haproxy-export.png') });
});
