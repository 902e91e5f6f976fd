import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import type { BrowserContext, Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures';

const file = join(import.meta.dirname, '..', 'trace', 'fixtures', 'apache.log.gz');

/** The parameters of a link that say what runs (the moment and the paused flag aside). */
function runOf(url: string): string {
  const q = new URL(url).searchParams;
  q.delete('t');
  q.delete('paused');
  return q.toString();
}

/** The link "Copy link" makes of what is on the screen. */
async function copiedLink(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Copy link' }).click();
  return page.evaluate(() => navigator.clipboard.readText());
}

/** Opens `url` in `context` and waits for the page and its lazy parts. */
async function openIn(context: BrowserContext, url: string): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url);
  await page.evaluate(() => document.fonts.ready);
  await expect(page.locator('.lazy-loading')).toHaveCount(0);
  return page;
}

/** The log opened and replayed through nginx (1r/s, burst 5, nodelay) in `context`'s page. */
async function replayIn(context: BrowserContext, baseURL: string | undefined): Promise<Page> {
  const page = await openIn(context, `${baseURL}?v=1&l=nginx:rate=1r/s,burst=5,nodelay&paused`);
  await page.getByTestId('trace-file').setInputFiles(file);
  await expect(page.getByTestId('trace-count')).toHaveText('10,000');
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  return page;
}

/** The browser on the profile in `profile` (a restart: the same storage), as the project runs it. */
function launchIn(profile: string, info: TestInfo): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    ...info.project.use.launchOptions,
    viewport: { width: 1280, height: 800 },
    deviceScaleFactor: 1,
    locale: 'en-US',
    timezoneId: 'UTC',
    permissions: ['clipboard-read', 'clipboard-write'],
  });
}

test('a kept trace comes back whole after the browser restarts: the same fingerprint, replay, span and link', async ({
  baseURL,
}, info) => {
  test.setTimeout(120_000);
  const profile = mkdtempSync(join(tmpdir(), 'rll-profile-'));
  const launch = () => launchIn(profile, info);
  try {
    let context = await launch();
    let page = await replayIn(context, baseURL);
    await expect(page.getByTestId('trace-replaying')).toBeVisible();
    // Another span than the default (two hours earlier): it must come back too.
    const body = page.getByTestId('span-body');
    const busiest = Number(await body.getAttribute('aria-valuenow'));
    await body.focus();
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    await expect(body).toHaveAttribute('aria-valuenow', String(busiest - 7_200_000));
    // The span's run is computed in the worker: read its count once it has settled (no
    // "Updating" on the stage, and the same count twice in a row).
    let rejected: string | null = null;
    await expect
      .poll(async () => {
        const updating = await page.locator('.sim-updating').count();
        const now = await page.getByTestId('summary-rejected').textContent();
        const settled = updating === 0 && now === rejected;
        rejected = now;
        return settled;
      })
      .toBe(true);
    const link = await copiedLink(page);
    expect(link).toContain(`from=${(busiest - 7_200_000) / 60_000}m`);
    const hash = /hash=([0-9a-f]{16})/.exec(link)?.[1];
    expect(hash).toMatch(/^[0-9a-f]{16}$/);
    await page.getByRole('button', { name: 'Keep in this browser' }).click();
    await expect(page.getByTestId('trace-kept').locator('tbody tr')).toHaveCount(1);
    await context.close();

    // The browser again, on the page's address without a link: the saved settings open.
    context = await launch();
    page = await openIn(context, `${baseURL}`);
    await expect(page.getByTestId('trace-replaying')).toBeVisible();
    await expect(page.getByTestId('trace-wanted')).toHaveCount(0);
    await expect(page.getByTestId('trace-keep')).toContainText(
      'Opened apache.log.gz, kept in this browser.',
    );
    await expect(page.getByTestId('summary-rejected')).toHaveText(rejected ?? '');
    expect(runOf(await copiedLink(page))).toBe(runOf(link));
    // Nothing to press again: no "Replay" button, the link is the one written before.
    await expect(
      page.getByRole('button', { name: 'Replay this log through the limiters' }),
    ).toHaveCount(0);
    await page.screenshot({ path: info.outputPath('trace-reopened.png') });
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});

test('a span picked just before the browser closes is the span it opens with (the saved settings follow each edit at once)', async ({
  baseURL,
}, info) => {
  test.setTimeout(120_000);
  const profile = mkdtempSync(join(tmpdir(), 'rll-profile-'));
  const launch = () => launchIn(profile, info);
  try {
    let context = await launch();
    let page = await replayIn(context, baseURL);
    await page.getByRole('button', { name: 'Keep in this browser' }).click();
    await expect(page.getByTestId('trace-kept').locator('tbody tr')).toHaveCount(1);
    const body = page.getByTestId('span-body');
    const busiest = Number(await body.getAttribute('aria-valuenow'));
    await body.focus();
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    await expect(body).toHaveAttribute('aria-valuenow', String(busiest - 7_200_000));
    // Closed at once: well within the 400 ms the address bar waits to push the edit's entry.
    await context.close();

    context = await launch();
    page = await openIn(context, `${baseURL}`);
    await expect(page.getByTestId('trace-replaying')).toBeVisible();
    expect(await copiedLink(page)).toContain(`from=${(busiest - 7_200_000) / 60_000}m`);
    await context.close();
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
});
