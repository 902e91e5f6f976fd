import { expect, open, test } from './fixtures';
import { expectOpenWithin, traceMainThread } from './mainThread';

/**
 * a long hostile link opens in seconds, not minutes, with its problems grouped, and "Copy link"
 * works for every link that opened. The packed list below is encodeTimes() of 10,000 times of -1 ms
 * (src/config/url-grammar.ts): 379 characters that unpack to 10,000 invalid clicks; 13 copies of it
 * fit under the 8,000-character cap and took 263 s to open before the change.
 */
const NEGATIVE_10K =
  'lz=LQRgNADJ1bP3RDlNS9bMe13P96EHFGknlmUXVW0312MPNOsvtucfde8-99BA4UNEjxYyROlTZM+XMULlS1SvVrNG7Vt079ewweNHTJ82csXrV2zft3HD509cv3bzx+9ffP-36BAcFBoSHhYZER0VGxMfFxiQnJSakp6WmZGdlZuTn5eYUFxUWlJeVllRXVVbU19XWNDc1NrS3tbZ0d3V29Pf19gwPDQ6Mj42OTE9NTszPzc4sLy0urK+trmxvbW7s7+3uHB8dHpyfnZ5cX11e3N-d3jw-PT68v72+fH99fvz--f0BAOBQNBIPBYMhEOhUNhMPhcMRCORSNRKPRaMxGOxWNxOPxeMeADoQBAAOYAZwAVgBDAB2QA';
const thirteen = Array.from({ length: 13 }, () => `src=manual:${NEGATIVE_10K}`).join('&');

const LINKS: Array<[string, string]> = [
  ['13 packed lists of 10,000 negative times', `v=1&${thirteen}&paused`],
  ['manual times of 7,900 ";"', `v=1&src=manual:times=${';'.repeat(7900)}&paused`],
  ['clock jumps of 7,900 ";"', `v=1&clock=wall:jumps=${';'.repeat(7900)}&paused`],
  ['a right-to-left override in an experiment id', 'v=1&x=%E2%80%AEtxt.exe&paused'],
];

for (const [what, link] of LINKS) {
  test(`${what}: opens in seconds, problems grouped, and Copy link works`, async ({
    page,
    context,
    browser,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    // A plain link first: what loading the page costs on this machine, whatever the link. Each
    // load is the CPU time its main-thread tasks took (a CDP trace), which a machine busy with
    // other work does not stretch as it does their wall-clock time.
    let trace = await traceMainThread(browser);
    await open(page, './?v=1&l=nginx:rate=2r/s,burst=5&paused');
    await expect(page.locator('.charts-panel svg').first()).toBeVisible();
    const plain = await trace.stop();
    trace = await traceMainThread(browser);
    await open(page, `./?${link}`);
    const problems = page.getByTestId('link-problems');
    await expect(problems).toBeVisible();
    const hostile = await trace.stop();
    // The hostile link costs far less than the 263 s it took before: its load's main-thread CPU is
    // within 10 s of the plain link's, and both figures are printed. The decode itself is the
    // page's own measure below, and the grouping is counted.
    const extraMs = hostile.cpuMs - plain.cpuMs;
    console.log(
      `${what}: plain link ${Math.round(plain.cpuMs)} ms of main-thread CPU (${Math.round(plain.wallMs)} ms wall-clock), this one ${Math.round(extraMs)} ms more (${Math.round(hostile.wallMs - plain.wallMs)} ms wall-clock)`,
    );
    expect(extraMs).toBeLessThan(10_000);
    // The page's own measure of decode and repair (main.tsx; `BENCH=decode` reports it against
    // the 50 ms budget): recorded, and far from seconds however busy the machine.
    await expectOpenWithin(what, page, hostile, 1000);
    const items = problems.locator('li');
    const count = await items.count();
    expect(count).toBeGreaterThan(0);
    // Grouped: 10,000 bad items are one line each per list, not 10,000 lines.
    expect(count).toBeLessThanOrEqual(13);
    const text = (await problems.innerText()) ?? '';
    expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069\u200B-\u200F\uFEFF]/);
    await page.getByRole('button', { name: 'Copy link' }).click();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('?v=1');
    expect(copied.length - copied.indexOf('?') - 1).toBeLessThanOrEqual(8000);
    // The copied link opens to the same settings, without problems.
    await open(page, copied);
    await expect(page.getByTestId('link-problems')).toHaveCount(0);
  });
}

test('the override in a message is shown as \\u202E', async ({ page }) => {
  await open(page, './?v=1&x=%E2%80%AEtxt.exe&paused');
  await expect(page.getByTestId('link-problems')).toContainText(
    'x: no experiment called "\\u202Etxt.exe"',
  );
});
