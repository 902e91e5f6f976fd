/**
 * The stage on a span of a log too large to hold. The log is 5.1 million short lines (~320 MB):
 * under the 1 GiB that streams from the start, it crosses the page's bound honestly, by holding
 * more requests than the page holds (the held read stops at the bound and the file is read by
 * streaming passes instead). On its overview the span is picked with the pointer and the keys,
 * in step with the From/To fields; read out of the file it is held, replayed on the stage, and
 * the dry run over it gives the stage's counts; the link names the file and the span. A span of
 * more than the page holds is said to be cut before it is read, and cut with words; cancel keeps
 * what the page had. The file is deleted afterwards.
 */
import { createWriteStream, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, open, test } from './fixtures';
import { combinedLine } from './attacks';

const DIR = '/tmp/stream-span';
const BIG = join(DIR, 'common-5.1M.log');
/** Requests in the log: over the 5,000,000 the page holds. 100 a second: 14 h 10 min. */
const LINES = 5_100_000;
const BUDGET = 5_000_000;
/** nginx at one request a minute per address, each of the 4,096 addresses back every ~41 s. */
const LINK = 'nginx:rate=1r/m,burst=0,nodelay';
const n = (v: number): string => v.toLocaleString('en-US');
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
/** The first request's time (attacks.ts `combinedLine`: 2026-01-05 00:00:00 UTC, 100 a second). */
const FIRST_MS = Date.UTC(2026, 0, 5);

async function writeBig(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const file = createWriteStream(BIG);
  const BLOCK = 20_000;
  for (let i = 0; i < LINES; i += BLOCK) {
    let s = '';
    for (let j = i; j < i + BLOCK; j += 1) s += `${combinedLine(j, false)}\n`;
    if (!file.write(s)) await new Promise<void>((r) => file.once('drain', () => r()));
  }
  await new Promise<void>((r) => file.end(r));
}

test.beforeAll(async () => {
  test.setTimeout(180_000);
  await writeBig();
  expect(statSync(BIG).size).toBeLessThan(1024 ** 3);
});

test.afterAll(() => {
  rmSync(DIR, { recursive: true, force: true });
});

/** Opens the page with a 3-request log held, then chooses the big log and waits for its pass. */
async function openBig(page: Page): Promise<void> {
  await open(page, `./?v=1&l=${LINK}&paused`);
  const small = join(DIR, 'small.log');
  writeFileSync(small, [0, 1, 2].map((i) => combinedLine(i, false)).join('\n'));
  await page.getByTestId('trace-file').setInputFiles(small);
  await expect(page.getByTestId('trace-count')).toHaveText('3');
  await page.getByTestId('trace-file').setInputFiles(BIG);
  await expect(page.getByTestId('trace-streamed-result')).toContainText(`${n(LINES)} requests`, {
    timeout: 300_000,
  });
}

// One page and one pass over the big log for both parts: reading it (a held read to the bound, then
// a streaming pass over 5.1M lines) is most of this spec's time. The looks, the cancel and the cut
// come first, while the page still holds the 3-request log; then the span is picked, read and
// replayed, replacing the 5,000,000 requests the cut read left held.
test('the span picker, 390 px and 1280 px, light and dark, has no axe violation; a span of more than the page holds is cut with words; cancel keeps what the page had; a span picked on the overview (pointer, keys) is read, replayed on the stage, equals its dry run, and the link names it', async ({
  page,
}) => {
  test.setTimeout(1_200_000);
  await test.step('the 5.1M-line log chosen: a held read to the bound, then a streaming pass', () =>
    openBig(page));
  const picker = page.getByTestId('trace-streamed-span');
  // The streamed panel with its span picker, looked at four ways; axe finds nothing on it.
  for (const { width, height, scheme } of [
    { width: 1280, height: 800, scheme: 'light' },
    { width: 390, height: 844, scheme: 'light' },
    { width: 1280, height: 800, scheme: 'dark' },
    { width: 390, height: 844, scheme: 'dark' },
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
    await expect(picker.getByTestId('trace-overview-chart')).toBeVisible();
    await picker.screenshot({ path: test.info().outputPath(`span-picker-${width}-${scheme}.png`) });
    const results = await new AxeBuilder({ page })
      .include('[data-testid="trace-streamed"]')
      .analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  // Cancel mid-read: the held 3-request log stays.
  await picker.getByTestId('trace-span-read').click();
  await expect(picker.getByTestId('trace-span-status')).toContainText(/in the span so far…$/, {
    timeout: 60_000,
  });
  await picker.getByRole('button', { name: 'Cancel' }).click();
  await expect(picker.getByTestId('trace-span-status')).toHaveText(
    'Cancelled: the page keeps the trace it had.',
  );
  await expect(page.getByTestId('trace-count')).toHaveText('3');

  // The whole log (the busiest 24 h holds all of it): cut where the first 5,000,000 end.
  await picker.getByTestId('trace-span-read').click();
  const cutMs = FIRST_MS + (BUDGET / 100) * 1000;
  await expect(picker.getByTestId('trace-span-status')).toHaveText(
    `${n(BUDGET)} requests of the span are held below; replay them on the stage there. The span was cut at ${iso(cutMs)}: the page holds at most ${n(BUDGET)} requests.`,
    { timeout: 400_000 },
  );
  await expect(page.getByTestId('trace-count')).toHaveText(n(BUDGET));

  // The picked span is still the busiest 24 h (the whole log) after the cut read.
  const from = picker.getByTestId('trace-span-from');
  const to = picker.getByTestId('trace-span-to');
  // The busiest 24 h covers the whole 14 h log: more than the page holds, said before the read.
  await expect(from).toHaveValue(iso(FIRST_MS));
  await expect(picker.getByTestId('trace-span-bound')).toContainText(
    `the page holds at most ${n(BUDGET)}: it will be cut where the first ${n(BUDGET)} end.`,
  );

  // Pointer: the span's end dragged left; the To field follows, the From stays.
  const end = picker.getByTestId('span-end');
  await end.scrollIntoViewIfNeeded();
  const box = await end.boundingBox();
  if (box === null) throw new Error('no span end on the chart');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width / 2, y);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 100, y, { steps: 4 });
  await page.mouse.move(box.x + box.width / 2 - 200, y, { steps: 4 });
  await page.mouse.up();
  await expect(from).toHaveValue(iso(FIRST_MS));
  const dragged = Date.parse(await to.inputValue());
  expect(dragged).toBeLessThan(FIRST_MS + LINES * 10);
  expect(dragged).toBeGreaterThan(FIRST_MS);

  // Keys: End of the span to its shortest (1 s after the start), then an hour later.
  await end.focus();
  await page.keyboard.press('Home');
  await expect(to).toHaveValue(iso(FIRST_MS + 1000));
  await page.keyboard.press('PageUp');
  await expect(to).toHaveValue(iso(FIRST_MS + 3_601_000));
  await expect(end).toHaveAttribute('aria-valuenow', '3601000');
  await page.keyboard.press('PageDown');
  await expect(to).toHaveValue(iso(FIRST_MS + 1000));
  // Ten bins (minutes) later: a span the stage holds whole (a longer one it cuts, and says so).
  for (let i = 0; i < 10; i += 1) await page.keyboard.press('ArrowRight');
  const toMs = FIRST_MS + 601_000;
  await expect(to).toHaveValue(iso(toMs));
  await expect(end).toHaveAttribute('aria-valuenow', '601000');
  // Typed: the chart follows the field.
  await to.fill(iso(FIRST_MS + 7_200_000));
  await expect(end).toHaveAttribute('aria-valuenow', '7200000');
  await to.fill(iso(toMs));
  await expect(end).toHaveAttribute('aria-valuenow', '601000');
  // 100 requests a second for 601 s.
  const want = 60_100;
  await expect(picker.getByTestId('trace-span-bound')).toContainText(
    `the page holds at most ${n(BUDGET)}: it fits.`,
  );

  await picker.getByTestId('trace-span-read').click();
  await expect(picker.getByTestId('trace-span-status')).toContainText(
    `${n(want)} requests of the span are held below`,
    { timeout: 300_000 },
  );
  await expect(page.getByTestId('trace-count')).toHaveText(n(want));
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  // The stage's counts and the dry run over the same span.
  await expect(page.getByTestId('summary-offered')).toHaveText(n(want), { timeout: 120_000 });
  const counts = page.getByTestId('trace-dry-run-counts');
  await expect(counts).toContainText(`Replayed the stage's span, ${n(want)}:`, {
    timeout: 120_000,
  });
  const rejected = (await page.getByTestId('summary-rejected').textContent()) ?? '';
  expect(Number(rejected.replace(/,/g, ''))).toBeGreaterThan(0);
  await expect(counts).toContainText(` ${rejected} rejected.`);

  // The link names the whole file and the span read out of it.
  await expect(page).toHaveURL(
    new RegExp(
      `src=trace:name=common-5\\.1M\\.log,bytes=${statSync(BIG).size},requests=${want},hash=[0-9a-f]{16},span_from=${FIRST_MS},span_to=${toMs}`,
    ),
  );
  // Reopened, it says which file and which span; the file chosen again, the span is restored.
  const link = page.url();
  const other = await page.context().newPage();
  await open(other, link);
  await expect(other.getByTestId('trace-wanted-span')).toHaveText(
    '2026-01-05 00:00:00 UTC to 2026-01-05 00:10:01 UTC',
  );
  await expect(other.getByTestId('trace-wanted')).toContainText('the span picker');
  await other.getByTestId('trace-file').setInputFiles(BIG);
  const again = other.getByTestId('trace-streamed-span');
  await expect(again.getByTestId('trace-span-to')).toHaveValue(iso(toMs), { timeout: 300_000 });
  await expect(again.getByTestId('trace-span-from')).toHaveValue(iso(FIRST_MS));
  await expect(again).toContainText('The span the link names is picked for you.');
  await other.close();
});
