import { SYSTEMS } from '../../src/systems';
import { expect, open, test } from './fixtures';

/**
 * Every system's own "Copy link": picked in the page, its link copied and opened again, it shows
 * the same system and parameters and lists no problem (Spring Cloud Gateway's reopened with
 * "l[0]: is missing", a message naming nothing), and names every parameter in plain words
 * (Caddy's was written `window%20%2B%201%20ms`). tests/config/system-links.test.ts checks every
 * value of every parameter the same way, without a browser.
 */
test('each system picked in the page copies a link that reopens it with no problem', async ({
  page,
  context,
  errors,
}) => {
  test.setTimeout(120_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  for (const system of SYSTEMS) {
    await open(page);
    await page.getByLabel('System', { exact: true }).selectOption(system.id);
    const fields = page.getByRole('region', { name: 'Limiter', exact: true });
    const values = async (): Promise<string[]> =>
      fields
        .locator('input, select')
        .evaluateAll((els) =>
          els.map((el) =>
            el instanceof HTMLInputElement && el.type === 'checkbox'
              ? String(el.checked)
              : (el as HTMLInputElement).value,
          ),
        );
    const before = await values();
    await page.getByRole('button', { name: 'Copy link' }).click();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(link, system.id).not.toContain('%');
    await open(page, link);
    await expect(page.getByTestId('link-problems'), `${system.id}: ${link}`).toHaveCount(0);
    await expect(page.getByLabel('System', { exact: true })).toHaveValue(system.id);
    expect(await values(), `${system.id}: ${link}`).toEqual(before);
  }
  expect(errors).toEqual([]);
});
