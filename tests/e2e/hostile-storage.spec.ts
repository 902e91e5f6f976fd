import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';

/**
 * Browser storage another version of the page (or another page of the same site) wrote, a full
 * storage quota, and a panel that throws: the page stays up, says what is wrong and where, and the
 * rest of it works on.
 */
const fixtures = join(import.meta.dirname, '..', 'trace', 'fixtures');

/**
 * Puts `records` in the kept traces' store, once the page has made it. The page opens its database
 * in an effect after the panel mounts (and its upgrade makes the store in a task of its own), so a
 * test that opens the database first would make it without the store. Each try that finds no
 * database aborts its own upgrade, which leaves nothing behind, and tries again.
 */
async function plant(page: Page, records: unknown[]): Promise<void> {
  await expect
    .poll(() =>
      page.evaluate(
        (rows) =>
          new Promise<string>((resolve, reject) => {
            const req = indexedDB.open('rate-limit-lab', 1);
            req.onupgradeneeded = () => req.transaction?.abort();
            req.onerror = () =>
              req.error?.name === 'AbortError'
                ? resolve('no database yet')
                : reject(req.error ?? new Error('open failed'));
            req.onsuccess = () => {
              const db = req.result;
              const tx = db.transaction('traces', 'readwrite');
              for (const row of rows) tx.objectStore('traces').put(row);
              tx.oncomplete = () => {
                db.close();
                resolve('planted');
              };
              tx.onerror = () => reject(tx.error ?? new Error('write failed'));
            };
          }),
        records,
      ),
    )
    .toBe('planted');
}

/** How many records the kept traces' store holds (the page has made it by then). */
function keptRecords(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve, reject) => {
        const req = indexedDB.open('rate-limit-lab', 1);
        req.onerror = () => reject(req.error ?? new Error('open failed'));
        req.onsuccess = () => {
          const db = req.result;
          const count = db.transaction('traces', 'readonly').objectStore('traces').count();
          count.onsuccess = () => {
            db.close();
            resolve(count.result);
          };
          count.onerror = () => reject(count.error ?? new Error('count failed'));
        };
      }),
  );
}

test('foreign records in the kept traces are listed, deletable, and never blank the page', async ({
  page,
  errors,
}) => {
  await open(page);
  await expect(page.getByTestId('trace-keep')).toBeAttached();
  await plant(page, [
    // A kept trace without `requests`: it threw in render and blanked the page for good.
    { id: 1, name: 'old.trace.csv.gz', bytes: 3, hash: '0123456789abcdef', data: 'abc' },
    { id: 2, name: 'evil\u202Egz.exe', requests: 'many' },
    { id: 3 },
  ]);
  await open(page);
  // The page is whole: the stage drew, no panel stopped.
  await expect(page.locator('.timeline-panel')).toBeVisible();
  await expect(page.locator('.panel-failed')).toHaveCount(0);
  const list = page.getByRole('region', { name: 'Unreadable kept records' });
  await expect(list).toContainText(
    '3 records kept in this browser are not traces this page can open',
  );
  await expect(list.locator('li')).toHaveText([
    '"old.trace.csv.gz": requests is missing. Delete',
    '"evil\\u202Egz.exe": bytes is missing. Delete',
    'record "3": name is missing. Delete',
  ]);
  await expect(page.getByTestId('trace-kept')).toHaveCount(0);
  await list.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('unreadable-kept.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await list.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('unreadable-kept-390.png') });
  await list.getByRole('button', { name: 'Delete "old.trace.csv.gz"' }).click();
  await expect(list.locator('li')).toHaveCount(2);
  await list.getByRole('button', { name: 'Delete all 2 unreadable records' }).click();
  await expect(list).toHaveCount(0);
  // Gone from the database too: it holds nothing, and a reload lists nothing. (A look at the
  // reloaded page alone could come before the page has read the database, and pass on anything.)
  expect(await keptRecords(page)).toBe(0);
  await open(page);
  await expect(page.getByTestId('trace-keep')).toBeAttached();
  await expect(page.getByRole('region', { name: 'Unreadable kept records' })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('keeping a trace over the storage quota says so instead of hanging', async ({
  page,
  errors,
}) => {
  await open(page);
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  await expect(page.getByTestId('trace-count')).not.toBeEmpty();
  // A quota smaller than the compact file: the transaction that would keep it aborts.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', {
    origin: new URL(page.url()).origin,
    quotaSize: 1,
  });
  const keep = page.getByTestId('trace-keep');
  await keep.getByRole('button', { name: 'Keep in this browser' }).click();
  await expect(keep.getByRole('status')).toHaveText(
    "This browser has no room left to keep it: the page's storage quota is used up, and nothing was kept. Delete a kept trace, or free space in the browser, and try again.",
  );
  await expect(page.getByTestId('trace-kept')).toHaveCount(0);
  await keep.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('quota.png') });
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(page.url()).origin });
  expect(errors.filter((e) => !/quota|QuotaExceeded/i.test(e))).toEqual([]);
});

test('a panel that throws says so in its place; the rest of the page works on', async ({
  page,
}) => {
  // The inspector scrolls the timeline into view when it opens below the fold; here that throws.
  await page.addInitScript(() => {
    Element.prototype.scrollIntoView = () => {
      throw new Error('scrollIntoView is broken here');
    };
  });
  await page.setViewportSize({ width: 1280, height: 420 });
  await open(page, './?v=1&t=2.5s&paused');
  await page
    .getByRole('button', { name: /^Request #\d+/ })
    .first()
    .click();
  const failed = page.locator('.panel-failed');
  await expect(failed).toHaveText(
    'The inspector stopped working: "Error: scrollIntoView is broken here". Reload the page to try it again.',
  );
  await expect(failed).toHaveAttribute('role', 'alert');
  // Everything else is there and answers: the timeline, the settings, the clock.
  await expect(page.locator('.timeline-panel')).toBeVisible();
  await expect(page.locator('.panel-failed')).toHaveCount(1);
  const clock = page.getByLabel('Virtual time');
  const before = await clock.textContent();
  await page.getByRole('button', { name: 'Forward 100 ms' }).click();
  await expect(clock).not.toHaveText(before ?? '');
  await page.setViewportSize({ width: 1280, height: 800 });
  await failed.scrollIntoViewIfNeeded();
  await page.screenshot({ path: test.info().outputPath('panel-failed.png') });
  await page.evaluate(() => (document.documentElement.dataset.theme = 'dark'));
  await page.screenshot({ path: test.info().outputPath('panel-failed-dark.png') });
});
