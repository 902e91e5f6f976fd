import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, open, test } from './fixtures';

const fixtures = join(import.meta.dirname, '..', 'trace', 'fixtures');
const expected = JSON.parse(readFileSync(join(fixtures, 'expected.json'), 'utf8')) as {
  count: number;
  clients: number;
  natClient: string;
};

test('an access log loads through the file chooser, parsed in a worker, and never leaves the page', async ({
  page,
  errors,
}) => {
  await open(page);
  // Every request after the page is up: none may carry the file (no upload, no beacon).
  const sent: { url: string; method: string; body: string }[] = [];
  page.on('request', (r) =>
    sent.push({ url: r.url(), method: r.method(), body: r.postData() ?? '' }),
  );
  const log = readFileSync(join(fixtures, 'malformed.log'));
  const marker = 'Device/';
  expect(log.toString()).toContain(marker);
  await page.getByTestId('trace-file').setInputFiles({
    name: 'access.log',
    mimeType: 'text/plain',
    buffer: log,
  });
  const summary = page.getByTestId('trace-summary');
  await expect(summary).toBeVisible();
  await expect(page.getByTestId('trace-count')).toHaveText(String(expected.count));
  await expect(page.getByTestId('trace-keys')).toHaveText(String(expected.clients));
  await expect(summary).toContainText('nginx main + $request_time $msec');
  await expect(page.getByTestId('trace-nat')).toContainText(expected.natClient);
  await summary.locator('details summary').click();
  await expect(page.getByTestId('trace-malformed')).toContainText('line 5:');
  await expect(page.getByTestId('trace-window-stats')).toContainText('p99');
  await page
    .locator('.trace-panel')
    .screenshot({ path: test.info().outputPath('trace-panel.png') });
  await expect(page.locator('.trace-panel')).toHaveScreenshot('trace-panel.png');
  // Only the worker script itself may have been fetched; nothing was posted.
  for (const r of sent) {
    expect(r.method, r.url).toBe('GET');
    expect(r.url, r.url).not.toContain(marker);
    expect(r.body).toBe('');
  }
  expect(sent.every((r) => r.url.startsWith('http://127.0.0.1'))).toBe(true);
  expect(errors).toEqual([]);
});

test('re-keying parses the file again; a binary file gives a message and keeps the last trace', async ({
  page,
}) => {
  await open(page);
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  await expect(page.getByTestId('trace-keys')).toHaveText(String(expected.clients));
  await page.locator('.trace-panel select').selectOption('path');
  await expect(page.getByTestId('trace-keys')).toHaveText('3');
  await page.getByTestId('trace-file').setInputFiles({
    name: 'photo.png',
    mimeType: 'image/png',
    buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  });
  await expect(page.getByTestId('trace-error')).toContainText(
    'photo.png looks binary (NUL byte at offset 8)',
  );
  await expect(page.getByTestId('trace-keys')).toHaveText('3');
});
