import { experimentById } from '../../src/config/experiments';
import { WHY_DOWN_CLOSED, simulate } from '../../src/sim';
import { formatTime } from '../../src/ui/common/format';
import { expect, open, test } from './fixtures';

/** Fleets: the fleet view and the three fleet experiments, each paused at its moment. */

const IDS = ['fleet-skew', 'fleet-scale-out', 'fleet-store-down'] as const;

for (const id of IDS) {
  test(`${id}: opens at its moment with the measured answer and the fleet drawn`, async ({
    page,
  }) => {
    const e = experimentById(id);
    if (e === undefined) throw new Error(id);
    const result = simulate(
      e.inputs.limiters.map((l) =>
        l.name === undefined ? l.config : { name: l.name, config: l.config },
      ),
      e.inputs.scenario,
      e.inputs.untilMs,
    );
    await open(page);
    await page
      .getByTestId('experiments')
      .getByRole('button', { name: /Browse|Hide/ })
      .click();
    await page.locator(`.experiment-item[data-id="${id}"]`).click();
    await expect(page.getByTestId('experiment-headline')).toHaveText(e.measure(result).headline);
    await expect(page.getByLabel('Virtual time')).toContainText(`t = ${formatTime(e.startAtMs)}`);
    const panel = page.getByTestId('fleet-panel');
    await expect(panel).toBeVisible();
    await expect(page.getByTestId('replica-cell').first()).toBeVisible();
    await expect(page.locator('body')).not.toContainText('NaN');
    await expect(panel).toHaveScreenshot(`${id}.png`);
  });
}

test('the inspector names the replica, what decided and the store state; a fail-closed request gets 429', async ({
  page,
}) => {
  const e = experimentById('fleet-store-down');
  if (e === undefined) throw new Error('no experiment');
  const result = simulate(
    e.inputs.limiters.map((l) => ({ name: l.name ?? 'x', config: l.config })),
    e.inputs.scenario,
    e.inputs.untilMs,
  );
  const why = result.lanes[0]?.fleet?.why;
  const row = why === undefined ? -1 : why.indexOf(WHY_DOWN_CLOSED);
  expect(row).toBeGreaterThan(0);
  // Open the experiment, then the same link with that request selected.
  await open(page);
  await page
    .getByTestId('experiments')
    .getByRole('button', { name: /Browse|Hide/ })
    .click();
  await page.locator('.experiment-item[data-id="fleet-store-down"]').click();
  await expect(page.getByLabel('Virtual time')).toContainText(`t = ${formatTime(e.startAtMs)}`);
  await expect.poll(() => page.url()).toContain('fleet=');
  await page.goto(`${page.url().replace(/&sel=[^&]*/, '')}&sel=0:${row}`);
  await page.evaluate(() => document.fonts.ready);
  const inspector = page.getByTestId('inspector');
  await expect(inspector.getByTestId('inspector-replica')).toHaveText(/R[1-4]/);
  await expect(inspector.getByTestId('inspector-why')).toHaveText(
    'store unreachable: failed closed',
  );
  await expect(inspector.getByTestId('inspector-store')).toContainText('down (outage 8 s to 14 s)');
  await expect(inspector).toContainText('HTTP/1.1 429 Too Many Requests');
  await expect(page.getByTestId('fleet-summary')).toContainText(
    'DOWN until 14 s: fail closed (429)',
  );
});

test('a bad fleet setting names the field and the range, and the last valid run keeps drawing', async ({
  page,
}) => {
  await open(page, './?v=1&deploy=4:state=shared-atomic&fleet=store_rtt=2ms,down=closed&paused');
  await expect(page.getByTestId('fleet-panel')).toBeVisible();
  const deployment = page.locator('details', { hasText: 'Deployment' }).first();
  await deployment.locator('summary').click();
  const field = deployment.getByLabel('fleet as link text');
  await field.fill('store_rtt=2ms,down=closed,outage=1s-90s');
  await field.press('Enter');
  await expect(deployment.getByRole('alert')).toContainText(
    'deployment.fleet.store.outages[0].toMs must be from 1001 to 21000',
  );
  await expect(page.getByTestId('fleet-panel')).toBeVisible();
  await expect(page.getByTestId('fleet-summary')).toContainText('4 replicas');
});

for (const width of [390, 1440]) {
  test(`fleet controls at ${width} px: by keyboard, a bad outage names its label, the last valid run keeps drawing`, async ({
    page,
  }) => {
    // Tall enough that the controls fit below the sticky clock bar once scrolled into view.
    await page.setViewportSize({ width, height: 1200 });
    await open(
      page,
      './?v=1&deploy=4:state=shared-atomic&fleet=store_rtt=2ms,jitter=3ms,outage=8s-14s,down=closed&paused',
    );
    await expect(page.getByTestId('fleet-summary')).toContainText('4 replicas');
    const deployment = page.locator('details', { hasText: 'Deployment' }).first();
    await deployment.locator('summary').click();
    const controls = page.getByTestId('fleet-controls');
    await expect(controls).toHaveScreenshot(`fleet-controls-${width}.png`);
    const until = controls.getByLabel('outage 1 until');
    await until.fill('90000');
    await expect(controls.getByRole('alert')).toHaveText(
      'outage 1 until must be from 8001 to 28000: an outage cannot be longer than the run (20000 ms), got 90000',
    );
    // The run is the last valid one: the settings the page saves and the link still say 8 s to
    // 14 s. The saved settings follow an edit that reaches the run in the same task; the address
    // bar only 400 ms later, so the link alone, looked at now, would say 8 s to 14 s either way.
    const saved = await page.evaluate(() => window.localStorage.getItem('rate-limit-lab.settings'));
    expect(saved ?? '').not.toContain('90000');
    expect(page.url()).toContain('outage=8s-14s');
    await expect(page.getByTestId('fleet-panel')).toBeVisible();
    await until.fill('16000');
    await expect(controls.getByRole('alert')).toHaveCount(0);
    await expect.poll(() => page.url()).toContain('outage=8s-16s');
    // Keyboard: the fail policy select and the batching checkbox.
    await controls.getByLabel('when the store is down').focus();
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => decodeURIComponent(page.url())).toContain('down=open');
    const batch = controls.getByLabel('batch increments (sync_rate)');
    await batch.focus();
    await expect(batch).toBeFocused();
    await page.keyboard.press(' ');
    await expect(batch).toBeChecked();
    await expect.poll(() => decodeURIComponent(page.url())).toContain('sync=1s');
    await expect(page.locator('body')).not.toContainText('NaN');
  });
}

test('racy read-then-write is not offered with fleet settings, and the page says why', async ({
  page,
}) => {
  await open(page, './?v=1&deploy=4:state=shared-atomic&fleet=store_rtt=2ms,down=closed&paused');
  const deployment = page.locator('details', { hasText: 'Deployment' }).first();
  await deployment.locator('summary').click();
  const state = deployment.getByLabel('limiter state');
  await expect(state.locator('option[value="shared-racy"]')).toBeDisabled();
  await expect(state.locator('option[value="shared-racy"]')).toHaveText(
    'shared, read then write (racy): not with fleet settings',
  );
  await expect(deployment).toContainText(
    'Racy read-then-write is modelled for plain instances only',
  );
  // Without fleet settings it is offered again.
  await open(page, './?v=1&deploy=4:state=shared-atomic&paused');
  const plain = page.locator('details', { hasText: 'Deployment' }).first();
  await plain.locator('summary').click();
  await expect(
    plain.getByLabel('limiter state').locator('option[value="shared-racy"]'),
  ).toBeEnabled();
});
