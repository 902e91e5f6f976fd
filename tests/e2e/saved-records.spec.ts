import { readFile } from 'node:fs/promises';
import { expect, open, test } from './fixtures';
import { expectOpenWithin, traceMainThread } from './mainThread';

/**
 * saved settings the page could not have written (src/config/saved.ts) are not opened
 * and not deleted. The page says why, with the size and the limit, runs the defaults, offers the
 * record as a download, and leaves it in storage until the person changes a setting.
 */
const KEY = 'rate-limit-lab.settings';
/** 450,000 times of 24 h: 4,050,097 characters, over the 3,000,000 the page reads. */
const OVER = JSON.stringify({
  config: {
    version: 1,
    scenario: { sources: [{ kind: 'manual', timesMs: Array<number>(450_000).fill(86_400_000) }] },
  },
  experiment: null,
});

test('saved settings over the size limit: not opened, kept, offered as a download', async ({
  page,
  context,
  browser,
}) => {
  expect(OVER.length).toBe(4_050_097);
  // Planted before the page's own scripts run, once (not again after a reload). JSON.parse is
  // wrapped to note the longest text it was given: the page must refuse the record on its raw
  // text (src/config/saved.ts), never parse it.
  await context.addInitScript(
    ([key, value]) => {
      if (window.sessionStorage.getItem('planted') === null) {
        window.localStorage.setItem(key, value);
        window.sessionStorage.setItem('planted', '1');
      }
      const parse = JSON.parse;
      const seen = { longest: 0 };
      Object.assign(window, { parsedLongest: seen });
      JSON.parse = function (this: JSON, text: string, ...rest: unknown[]) {
        seen.longest = Math.max(seen.longest, String(text).length);
        return (parse as (...a: unknown[]) => unknown).call(this, text, ...rest);
      } as typeof JSON.parse;
    },
    [KEY, OVER] as const,
  );
  const trace = await traceMainThread(browser);
  await open(page, './');
  const opening = await trace.stop();
  const problems = page.getByTestId('link-problems');
  await expect(problems).toBeVisible();
  await expect(problems.getByRole('heading')).toHaveText(
    'Your saved settings were not opened: the defaults are open',
  );
  await expect(problems).toContainText(
    'They are 4,050,097 characters long, over the 3,000,000 the page reads.',
  );
  // The defaults run: the clock plays, and the address bar carries only the defaults' link.
  const clock = page.getByLabel('Virtual time');
  await expect(clock).not.toHaveText(/^t = 0 s /);
  expect(new URL(page.url()).search).toMatch(/^(\?v=1(&t=[\d.]+m?s)?)?$/);
  // Decode and repair were not spent on it: the record never reached JSON.parse (a length, which
  // a busy machine cannot change, where a time bound of a few ms could flip).
  const parsed = await page.evaluate(
    () => (window as unknown as { parsedLongest: { longest: number } }).parsedLongest.longest,
  );
  expect(parsed).toBeLessThan(OVER.length);
  // The page's own measure of deciding the start, printed; the bound is a frozen tab's, not a
  // speed check (it is well under 50 ms on a quiet machine; `npm run bench` measures speed), judged
  // in CPU time, which a busy machine does not stretch.
  await expectOpenWithin('saved record over the size limit', page, opening, 1000);

  // The record as it was stored, as a download.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    problems.getByRole('button', { name: 'Download the saved settings (JSON)' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('rate-limit-lab-saved-settings.json');
  expect(await readFile(await download.path(), 'utf8')).toBe(OVER);

  // Still in storage while the clock plays (the address bar follows it every 300 ms)…
  await page.waitForTimeout(1000);
  expect(await page.evaluate((key) => window.localStorage.getItem(key)?.length, KEY)).toBe(
    OVER.length,
  );
  // …and after a reload, still not opened.
  await open(page, './');
  await expect(page.getByTestId('link-problems')).toContainText('4,050,097 characters');

  // A change saves the new settings in its place, as the message says.
  await page.getByLabel('max_tokens').fill('7');
  await expect
    .poll(() => page.evaluate((key) => window.localStorage.getItem(key), KEY))
    .toContain('"maxTokens":7');
});

test('saved settings that are not JSON: kept and offered too, not overwritten', async ({
  page,
  context,
}) => {
  await context.addInitScript((key) => {
    if (window.localStorage.getItem(key) === null) window.localStorage.setItem(key, '{"config":');
  }, KEY);
  await open(page, './');
  await expect(page.getByTestId('link-problems')).toContainText(
    'They are not readable as JSON (10 characters).',
  );
  await page.waitForTimeout(700);
  expect(await page.evaluate((key) => window.localStorage.getItem(key), KEY)).toBe('{"config":');
});
