import { test } from '@playwright/test';
import { open } from './fixtures';

const BASE =
  './?v=1&l=traefik:average=3,period=1s,burst=2&deploy=2:state=shared-atomic&fleet=store_rtt=1ms,outage=8s-10s,down=open&paused';

for (const width of [1280, 390]) {
  for (const row of [3, 4, 6, 30]) {
    test(`inspector ${width} row ${row}`, async ({ page }) => {
      await page.setViewportSize({ width, height: 1400 });
      await open(page, `${BASE}&sel=0:${row}`);
      const inspector = page.getByTestId('inspector');
      await inspector.scrollIntoViewIfNeeded();
      await inspector.screenshot({ path: `/tmp/trf41e-shots/insp-${width}-${row}.png` });
      console.log(width, row, (await inspector.textContent())?.slice(0, 900));
    });
  }
  test(`export ${width}`, async ({ page }) => {
    await page.setViewportSize({ width, height: 1400 });
    await open(page, BASE.replace('down=open', 'down=open,timeout=20ms'));
    await page.getByRole('button', { name: /Export/ }).first().click();
    const out = page.getByTestId('export-output');
    await out.waitFor();
    await out.scrollIntoViewIfNeeded();
    await out.screenshot({ path: `/tmp/trf41e-shots/export-${width}.png` });
    console.log(width, (await out.textContent())?.slice(0, 1500));
  });
}
