import {
  emptyKeyId,
  holdTrace,
  keyEmptyByClient,
  parseTrace,
  replayColumns,
  replayWithEmptyKey,
  virtualTimes,
} from '../../src/trace';
import { systemById } from '../../src/systems';
import { NGINX_1RS, NGINX_1RS_PAGE, expect, open, test } from './fixtures';

const T = Date.UTC(2026, 11, 6, 18, 0, 0);

/** A CSV keyed by an address every request shares, with a `plan` column of four values. */
const csv = [
  'time,ip,plan,status',
  ...Array.from({ length: 40 }, (_, i) => `${T + i * 50},10.0.0.1,tier${i % 4},200`),
].join('\n');

/** nginx `main` lines: every third request without X-Forwarded-For (logged `-`). */
const mainLog = Array.from({ length: 30 }, (_, i) => {
  const d = new Date(T + i * 100);
  const stamp = `06/Dec/2026:18:00:${String(d.getUTCSeconds()).padStart(2, '0')} +0000`;
  const xff = i % 3 === 0 ? '-' : `203.0.113.${i % 5}`;
  return `10.0.0.9 - - [${stamp}] "GET /a HTTP/1.1" 200 3 "-" "ua" "${xff}"`;
}).join('\n');

for (const width of [1280, 390]) {
  test(`any column can be the key, and requests without one follow the system's rule (${width} px)`, async ({
    page,
    errors,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await open(page, NGINX_1RS_PAGE);
    await page.getByTestId('trace-file').setInputFiles({
      name: 'plans.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await expect(page.getByTestId('trace-count')).toHaveText('40');
    await expect(page.getByTestId('trace-keys')).toHaveText('1');
    const key = page.getByTestId('trace-key');
    await key.selectOption({ label: 'column plan' });
    await expect(page.getByTestId('trace-keys')).toHaveText('4');
    await expect(page.getByTestId('trace-summary')).toContainText('by field "plan"');
    const panel = page.locator('.trace-panel');
    await panel.screenshot({ path: test.info().outputPath(`trace-key-column-${width}.png`) });

    // A log without X-Forwarded-For on some lines, keyed by its first hop: nginx (the default
    // limiter) does not limit them.
    await key.selectOption('xff-first');
    await page.getByTestId('trace-file').setInputFiles({
      name: 'main.log',
      mimeType: 'text/plain',
      buffer: Buffer.from(mainLog),
    });
    await expect(page.getByTestId('trace-count')).toHaveText('30');
    // The rule is said once, under the statistics; the dry run does not repeat it.
    await expect(page.getByTestId('trace-stats-empty')).toHaveText(
      '10 requests have no X-Forwarded-For: nginx does not limit them (not counted). Not ranked with the keys above.',
    );
    await expect(page.getByText(/nginx does not limit them/)).toHaveCount(1);
    // The dry run decides them as nginx does: admitted, and not counted against anyone.
    const trace = parseTrace(Buffer.from(mainLog), {
      name: 'main.log',
      keySpec: [{ kind: 'xff-first' }],
    });
    const columns = { timeMs: virtualTimes(trace), keyId: trace.keyId, keys: trace.keys };
    const config = NGINX_1RS;
    const nginx = replayWithEmptyKey(columns, config, { id: emptyKeyId(trace), outcome: 'admit' });
    const shared = replayColumns(columns, config);
    expect(nginx.rejected).toBeLessThan(shared.rejected);
    await expect(page.getByTestId('trace-dry-run-counts')).toContainText(
      `${nginx.admitted} admitted, 0 delayed, ${nginx.rejected} rejected`,
    );
    await page.getByTestId('trace-stats-empty').scrollIntoViewIfNeeded();
    await panel.screenshot({ path: test.info().outputPath(`trace-empty-keys-${width}.png`) });
    // The stage replays the log with nginx's rule too: request #1 has no X-Forwarded-For, and the
    // inspector says nginx let it through without a limiter.
    await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
    await expect(page.getByTestId('trace-replaying')).toBeVisible();
    await page
      .getByRole('button', { name: /^Request #1,/ })
      .first()
      .click();
    const inspector = page.getByTestId('inspector');
    await expect(page.getByTestId('inspector-empty-key')).toHaveText('not limited (no key)');
    await expect(page.getByTestId('http-response')).toHaveText('HTTP/1.1 200 OK');
    await inspector.screenshot({
      path: test.info().outputPath(`inspector-empty-key-${width}.png`),
    });
    expect(errors).toEqual([]);
  });
}

/** nginx `main` lines: 203.0.113.7 behind a proxy (named by X-Forwarded-For) and directly (none). */
const kongLog = Array.from({ length: 12 }, (_, i) => {
  const stamp = `06/Dec/2026:18:00:${String(i).padStart(2, '0')} +0000`;
  const direct = i % 2 === 1;
  const addr = direct ? (i % 4 === 1 ? '203.0.113.7' : '198.51.100.9') : '10.0.0.9';
  return `${addr} - - [${stamp}] "GET /a HTTP/1.1" 200 3 "-" "ua" "${direct ? '-' : '203.0.113.7'}"`;
}).join('\n');

for (const width of [1280, 390]) {
  test(`Kong counts a request without X-Forwarded-For with its address's other requests, on the stage as in the dry run (${width} px, dark)`, async ({
    page,
    errors,
  }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await open(page, './?v=1&l=kong:minute=5&paused');
    await page.getByTestId('trace-key').selectOption('xff-first');
    await page.getByTestId('trace-file').setInputFiles({
      name: 'main.log',
      mimeType: 'text/plain',
      buffer: Buffer.from(kongLog),
    });
    await expect(page.getByTestId('trace-count')).toHaveText('12');
    await expect(page.getByTestId('trace-stats-empty')).toHaveText(
      "6 requests have no X-Forwarded-For: Kong uses the client address as the key instead. The stage, the dry run and the sweep count them with their address's other requests. Not ranked with the keys above.",
    );
    // Said once in the panel.
    await expect(page.getByText(/Kong uses the client address/)).toHaveCount(1);
    // The dry run: 203.0.113.7's nine requests (six by header, three direct) against 5 a minute.
    const { held } = holdTrace(
      parseTrace(Buffer.from(kongLog), { name: 'main.log', keySpec: [{ kind: 'xff-first' }] }),
    );
    const moved = keyEmptyByClient(held, held.emptyClients)!;
    const kong = systemById('kong')!;
    const config = kong.derive!({ kind: 'calendar-windows', minute: 5 });
    const run = replayColumns(
      { timeMs: held.times as Int32Array, keyId: moved.keyId, keys: moved.keys },
      config,
    );
    expect(run.rejected).toBe(4);
    await expect(page.getByTestId('trace-dry-run-counts')).toContainText(
      `${run.admitted} admitted, 0 delayed, ${run.rejected} rejected`,
    );
    await page.getByTestId('trace-stats-empty').scrollIntoViewIfNeeded();
    await page
      .locator('.trace-panel')
      .screenshot({ path: test.info().outputPath(`trace-empty-keys-kong-${width}.png`) });
    // The stage replays the log the same way: the same numbers as the dry run.
    await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
    await expect(page.getByTestId('trace-replaying')).toBeVisible();
    await expect(page.getByTestId('summary-offered')).toHaveText('12');
    await expect(page.getByTestId('summary-admitted')).toHaveText(String(run.admitted));
    await expect(page.getByTestId('summary-rejected')).toHaveText(String(run.rejected));
    // Request #2 came straight from 203.0.113.7 with no header: keyed by that address, marked so
    // (the stage is paused at 0, where request #1 is; the inspector steps to the next).
    await page
      .getByRole('button', { name: /^Request #1,/ })
      .first()
      .click();
    const inspector = page.getByTestId('inspector');
    await expect(inspector.getByTestId('inspector-key-note')).toHaveCount(0);
    await inspector.getByRole('button', { name: 'Next →' }).click();
    await expect(inspector.getByRole('heading', { level: 2 })).toContainText('Request #2');
    await expect(inspector.getByTestId('inspector-key-note')).toHaveText(
      "(the client address: Kong's fallback for an empty key)",
    );
    await expect(inspector.locator('dd.mono').filter({ hasText: '203.0.113.7' })).toBeVisible();
    await inspector.screenshot({
      path: test.info().outputPath(`inspector-kong-address-${width}.png`),
    });
    await page.screenshot({ path: test.info().outputPath(`stage-kong-${width}.png`) });
    expect(errors).toEqual([]);
  });
}
