import {
  emptyKeyId,
  parseTrace,
  replayColumns,
  replayWithEmptyKey,
  virtualTimes,
} from '../../src/trace';
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
    await expect(page.getByTestId('trace-empty-keys')).toHaveText(
      '10 requests have no X-Forwarded-For: nginx does not limit them (not counted).',
    );
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
    await page.getByTestId('trace-empty-keys').scrollIntoViewIfNeeded();
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
