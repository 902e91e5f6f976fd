import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JSHandle, Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

const fixtures = join(import.meta.dirname, '..', 'trace', 'fixtures');

/** A DataTransfer in the page holding `name` as a real File with the fixture's bytes. */
async function transferOf(page: Page, name: string): Promise<JSHandle<DataTransfer>> {
  const base64 = readFileSync(join(fixtures, name)).toString('base64');
  return page.evaluateHandle(
    ({ base64, name }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
      return dt;
    },
    { base64, name },
  );
}

test('a log dropped anywhere on the page is read, with a drop target while it is dragged over', async ({
  page,
  errors,
}) => {
  await open(page);
  const dataTransfer = await transferOf(page, 'msec.log');
  // Dragged in over the stage (far from the file chooser).
  await page.dispatchEvent('#stage', 'dragenter', { dataTransfer });
  await page.dispatchEvent('#stage', 'dragover', { dataTransfer });
  const target = page.getByTestId('page-drop');
  await expect(target).toBeVisible();
  await expect(target).toContainText('Drop the access log to read it here.');
  await page.screenshot({ path: test.info().outputPath('page-drop.png') });
  // Dragged out again: the target goes.
  await page.dispatchEvent('#stage', 'dragleave', { dataTransfer });
  await expect(target).toHaveCount(0);
  // Dropped on the clock bar.
  await page.dispatchEvent('#stage', 'dragenter', { dataTransfer });
  await page.dispatchEvent('#clock', 'drop', { dataTransfer });
  await expect(target).toHaveCount(0);
  await expect(page.getByTestId('trace-count')).toHaveText('60');
  await expect(page.getByTestId('trace-summary')).toContainText('msec.log');
  expect(errors).toEqual([]);
});

test('a link that asks for a log replays it once the log is dropped on the page', async ({
  page,
}) => {
  await open(page, './?v=1&l=nginx:rate=1r/s,burst=1,nodelay&paused');
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  await expect(page).toHaveURL(/src=trace:name=msec\.log/);
  const link = page.url();
  const other = await page.context().newPage();
  await open(other, link);
  await expect(other.getByTestId('trace-wanted')).toContainText(
    'drop that file anywhere on this page',
  );
  const dataTransfer = await transferOf(other, 'msec.log');
  await other.dispatchEvent('.timeline-panel', 'dragenter', { dataTransfer });
  await other.dispatchEvent('.timeline-panel', 'drop', { dataTransfer });
  await expect(other.getByTestId('trace-replaying')).toBeVisible();
});
