import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import type { AlgorithmConfig } from '../../src/core';
import {
  heldVirtualTimes,
  holdTrace,
  parseTrace,
  replayColumns,
  spanColumns,
} from '../../src/trace';
import { clockText, defaultSpan } from '../../src/ui/stage/traceSpan';
import { expect, open, test } from './fixtures';

const fixtures = join(import.meta.dirname, '..', 'trace', 'fixtures');
const file = join(fixtures, 'apache.log.gz');
const LINK = 'nginx:rate=1r/s,burst=5,nodelay';
const CONFIG: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 5,
  delay: 'nodelay',
};

/** The 83-hour log as the page holds it, computed here without the page. */
function heldLog() {
  const { held } = holdTrace(
    parseTrace(new Uint8Array(gunzipSync(readFileSync(file))), { name: 'apache.log.gz' }),
  );
  const times = heldVirtualTimes(held);
  if (times === null) throw new Error('the fixture cannot be replayed');
  return { held, columns: { timeMs: times, keyId: held.keyId, keys: held.keys } };
}

/** What a replay of the span [fromMs, fromMs + lengthMs) decides, here. */
function spanReplay(fromMs: number, lengthMs: number) {
  const { columns } = heldLog();
  const span = spanColumns(columns, { fromMs, lengthMs }).columns;
  return { count: span.timeMs.length, rejected: replayColumns(span, CONFIG).rejected };
}

/** The stage's and the dry run's figures agree with the replay of the span computed here. */
async function expectAgreement(page: Page, fromMs: number, lengthMs: number) {
  const want = spanReplay(fromMs, lengthMs);
  await expect(page.getByTestId('summary-offered')).toHaveText(want.count.toLocaleString('en-US'));
  await expect(page.getByTestId('summary-rejected')).toHaveText(
    want.rejected.toLocaleString('en-US'),
  );
  await expect(page.getByTestId('trace-dry-run-counts')).toContainText(
    `Replayed the stage's span, ${want.count.toLocaleString('en-US')}:`,
  );
  await expect(page.getByTestId('trace-dry-run-counts')).toContainText(
    ` ${want.rejected.toLocaleString('en-US')} rejected.`,
  );
}

test('the whole log on the stage: its busiest day by default, the stage and the dry run agree on the span, the link carries it', async ({
  page,
}) => {
  await open(page, `./?v=1&l=${LINK}&paused`);
  await page.getByTestId('trace-file').setInputFiles(file);
  await expect(page.getByTestId('trace-count')).toHaveText('10,000');
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  const overview = page.getByTestId('trace-overview');
  await expect(overview).toBeVisible();

  const { held, columns } = heldLog();
  const span = defaultSpan(columns.timeMs);
  // 83 hours: the stage takes a day, the busiest one.
  expect(span.fromMs).not.toBeNull();
  const fromMs = span.fromMs ?? 0;
  expect(span.lengthMs).toBe(86_400_000);
  await expect(page.getByTestId('trace-overview-span')).toContainText(
    `${clockText(held.baseMs + fromMs)} to ${clockText(held.baseMs + fromMs + span.lengthMs)}`,
  );
  await expectAgreement(page, fromMs, span.lengthMs);
  // The whole log's rejections, replayed from its first request, in the overview.
  const whole = replayColumns(columns, CONFIG);
  await expect(page.getByTestId('trace-overview-rejected')).toContainText(
    `rejects ${whole.rejected.toLocaleString('en-US')}.`,
  );
  // No notice that requests are left out: the overview says which span is replayed.
  await expect(page.getByTestId('run-notice')).toHaveCount(0);
  // The link carries the span.
  await expect(page).toHaveURL(
    /src=trace:name=apache\.log\.gz,bytes=\d+,requests=10000,hash=[0-9a-f]{16},from=[^&]+&until=24h/,
  );
  const link = page.url();
  await overview.screenshot({ path: test.info().outputPath('trace-overview.png') });

  // Keyboard: the span's body moves an hour later with Page Up; both ends move.
  await page.getByTestId('span-body').focus();
  await page.keyboard.press('PageUp');
  await expectAgreement(page, fromMs + 3_600_000, span.lengthMs);
  await expect(page.getByTestId('span-body')).toHaveAttribute(
    'aria-valuetext',
    `${clockText(held.baseMs + fromMs + 3_600_000)} to ${clockText(held.baseMs + fromMs + 3_600_000 + span.lengthMs)}`,
  );
  // The start handle: a minute (one bin) earlier per arrow key, the end stays.
  await page.getByTestId('span-start').focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await expectAgreement(
    page,
    fromMs + 3_480_000,
    span.lengthMs + 120_000 > 86_400_000 ? 86_400_000 : span.lengthMs + 120_000,
  );

  // The start as a clock time: the first request's day at noon, a 6-hour span to 18:00.
  const day = new Date(held.baseMs).toISOString().slice(0, 10);
  await page.getByTestId('span-start-field').fill(`${day}T12:00`);
  await page.getByTestId('span-end-field').fill(`${day}T18:00`);
  const noon = Date.parse(`${day}T12:00:00Z`) - held.baseMs;
  await expect(page).toHaveURL(/until=6h/);
  await expectAgreement(page, noon, 6 * 3_600_000);
  await expect(page.getByTestId('trace-overview-span')).toContainText(
    `${day} 12:00:00 UTC to ${day} 18:00:00 UTC`,
  );

  // The link opens the same span (once the log is there).
  const other = await page.context().newPage();
  await open(other, link);
  await other.getByTestId('trace-file').setInputFiles(file);
  await expect(other.getByTestId('trace-replaying')).toBeVisible();
  await expectAgreement(other, fromMs, span.lengthMs);
});

test('the span is dragged on the overview with a pointer', async ({ page }) => {
  await open(page, `./?v=1&l=${LINK}&paused`);
  await page.getByTestId('trace-file').setInputFiles(file);
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  const body = page.getByTestId('span-body');
  await expect(body).toBeVisible();
  const before = Number(await body.getAttribute('aria-valuenow'));
  await body.scrollIntoViewIfNeeded();
  const box = await body.boundingBox();
  if (box === null) throw new Error('no span on the chart');
  // Drag the span's body 80 px left.
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 - 40, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + box.width / 2 - 80, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  await expect(body).not.toHaveAttribute('aria-valuenow', String(before));
  const after = Number(await body.getAttribute('aria-valuenow'));
  expect(after).toBeLessThan(before);
  await expectAgreement(page, after, 86_400_000);
});
