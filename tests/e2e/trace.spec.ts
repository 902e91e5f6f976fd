import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dryRun, parseTrace, replayTrace, simTraceOf, windowStats } from '../../src/trace';
import { NGINX_1RS, NGINX_1RS_PAGE, expect, open, test } from './fixtures';

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
  // Another W: counted in a worker over the page's whole-ms offsets; the same figures as counted
  // here over the parsed arrivals.
  const w = windowStats(parseTrace(log, { name: 'access.log' }), 5000, 5);
  await page.locator('.trace-window input').fill('5000');
  await expect(page.getByTestId('trace-window-stats')).toHaveText(
    `Most requests a key sent in any 5,000 ms: p50 ${w.p50}, p90 ${w.p90}, p99 ${w.p99}, max ${w.max} ("${w.worst[0]?.key}").`,
  );
  // Only the worker scripts themselves may have been fetched; nothing was posted.
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
  await page.locator('.trace-panel > label.field select').selectOption('path');
  await expect(page.getByTestId('trace-keys')).toHaveText('3');
  await page.getByTestId('trace-file').setInputFiles({
    name: 'photo.png',
    mimeType: 'image/png',
    buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  });
  await expect(page.getByTestId('trace-error')).toContainText(
    '"photo.png" looks binary (NUL byte at offset 8)',
  );
  await expect(page.getByTestId('trace-keys')).toHaveText('3');
});

test('the dry run lists what the limiter being edited would change, as the replay computes it', async ({
  page,
}) => {
  await open(page, NGINX_1RS_PAGE);
  const bytes = readFileSync(join(fixtures, 'msec.log'));
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  const dry = page.getByTestId('trace-dry-run');
  await expect(dry).toBeVisible();
  // The same numbers computed here, for the link's limiter, without the page.
  const config = NGINX_1RS;
  const trace = parseTrace(new Uint8Array(bytes), { name: 'msec.log' });
  const replay = replayTrace(trace, config);
  const run = dryRun(trace, replay, 'recorded');
  expect(run.changes.length).toBeGreaterThan(0);
  await expect(page.getByTestId('trace-dry-run-counts')).toContainText(
    `Changes: ${run.toRejected} allowed → rejected, ${run.toAllowed} rejected → allowed, ${run.toDelayed} allowed → delayed.`,
  );
  await dry.locator('details summary').click();
  await expect(dry.locator('.trace-dry-run-list li')).toHaveCount(Math.min(50, run.changes.length));
  const download = page.waitForEvent('download');
  await dry.getByRole('button', { name: 'Download changes (CSV)' }).click();
  expect((await download).suggestedFilename()).toBe('msec-dry-run.csv');
  await expect(dry).toHaveScreenshot('trace-dry-run.png');
});

test('the dry run of a constructed log finds exactly the changes it was built with, off the main thread', async ({
  page,
}) => {
  const known = JSON.parse(readFileSync(join(fixtures, 'dryrun.json'), 'utf8')) as {
    link: string;
    flips: { client: string; offsetMs: number; flip: string; delayMs: number }[];
  };
  await open(page, `./?v=1&l=${known.link}&paused`);
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'dryrun.log'));
  const dry = page.getByTestId('trace-dry-run');
  const count = (f: string) => known.flips.filter((x) => x.flip === f).length;
  await expect(page.getByTestId('trace-dry-run-counts')).toContainText(
    `Changes: ${count('allowed→rejected')} allowed → rejected, ${count('rejected→allowed')} rejected → allowed, ${count('allowed→delayed')} allowed → delayed.`,
  );
  await dry.locator('details summary').click();
  await expect(dry.locator('.trace-dry-run-list li')).toHaveCount(known.flips.length);
  await expect(dry.getByTestId('trace-dry-run-by-time')).toBeVisible();
  // The CSV (written in the worker) lists every change: one line each, with the known offsets.
  const download = page.waitForEvent('download');
  await dry.getByRole('button', { name: 'Download changes (CSV)' }).click();
  const csv = readFileSync(await (await download).path(), 'utf8')
    .trim()
    .split('\n');
  expect(csv[0]).toBe('arrival_ms,offset_ms,key,change,delay_ms,recorded_status');
  expect(csv.slice(1).map((l) => l.split(',').slice(1, 5).join(','))).toEqual(
    known.flips.map((f) => `${f.offsetMs},${f.client},${f.flip},${f.delayMs}`),
  );
});

test('the log replays as the traffic; its link carries the fingerprint and asks for the file', async ({
  page,
}) => {
  await open(page, NGINX_1RS_PAGE);
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  await expect(page.getByTestId('trace-summary')).toBeVisible();
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  // The main view's numbers are the replay's, computed here without the page.
  const trace = parseTrace(new Uint8Array(readFileSync(join(fixtures, 'msec.log'))), {
    name: 'msec.log',
  });
  const replay = replayTrace(trace, {
    kind: 'leaky-bucket',
    rate: 1,
    rateUnit: 'r/s',
    burst: 1,
    delay: 'nodelay',
  });
  await expect(page.getByTestId('summary-offered')).toHaveText(String(trace.count));
  await expect(page.getByTestId('summary-rejected')).toHaveText(String(replay.rejected));
  await expect(page.getByTestId('timeline-mark').first()).toBeAttached();
  await page.screenshot({ path: test.info().outputPath('trace-replay-page.png'), fullPage: true });
  // The link names the file, not its requests.
  await expect(page).toHaveURL(/src=trace:name=msec\.log,bytes=\d+,requests=\d+,hash=[0-9a-f]{16}/);
  const link = page.url();
  // Opened without the file: it says which file to drop; the rest of the page works.
  const other = await page.context().newPage();
  await open(other, link);
  await expect(other.getByTestId('trace-wanted')).toContainText('msec.log');
  await expect(other.getByTestId('run-notice')).toContainText('drop that file on the page');
  await expect(other.getByTestId('summary-offered')).toHaveText('0');
  await other.screenshot({ path: test.info().outputPath('trace-link-without-file.png') });
  await other.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  await expect(other.getByTestId('trace-replaying')).toBeVisible();
  await expect(other.getByTestId('summary-rejected')).toHaveText(String(replay.rejected));
});

test('a log over 16 MB is read in ranges by range workers, merged as they come: the trace one stream reads', async ({
  page,
}) => {
  // ~19 MB of combined lines (over PARALLEL_MIN_BYTES, so the page reads it in ranges), times a
  // little out of order throughout, some far back (past the reorder window), some malformed.
  const lines: string[] = [];
  for (let i = 0; i < 90_000; i += 1) {
    if (i % 7_001 === 3) lines.push(`not a log line ${i}`);
    const back = i % 97 === 0 ? 2 : i % 20_011 === 12_000 ? 900 : 0;
    const s = 1_772_409_600 + Math.floor(i / 40) - back;
    const d = new Date(s * 1000);
    const mon = ['Jan', 'Feb', 'Mar', 'Apr'][d.getUTCMonth()] as string;
    const p = (n: number): string => String(n).padStart(2, '0');
    lines.push(
      `10.${i % 7}.${(i * 13) % 251}.${i % 199} - - [${p(d.getUTCDate())}/${mon}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000] "GET /api/items?page=${i % 40}&sort=price_desc HTTP/1.1" ${i % 31 === 0 ? 429 : 200} ${i % 4_000} "https://www.example.com/search/results?q=rate+limit" "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0 agent-${i % 17}"`,
    );
  }
  const text = `${lines.join('\n')}\n`;
  expect(text.length).toBeGreaterThan(17 * 1024 * 1024);
  const path = test.info().outputPath('ranges.log');
  writeFileSync(path, text);
  const whole = parseTrace(new TextEncoder().encode(text), { name: 'ranges.log' });
  expect(whole.report.outsideWindow).toBeGreaterThan(0);
  expect(whole.report.malformed).toBeGreaterThan(0);
  await open(page, NGINX_1RS_PAGE);
  await page.getByTestId('trace-file').setInputFiles(path);
  const summary = page.getByTestId('trace-summary');
  await expect(summary).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('trace-count')).toHaveText(whole.count.toLocaleString('en-US'));
  await expect(page.getByTestId('trace-keys')).toHaveText(
    whole.keys.length.toLocaleString('en-US'),
  );
  for (const note of whole.report.notes) await expect(summary).toContainText(note);
  // The same requests in the same order under the same keys: the replay's fingerprint.
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`hash=${simTraceOf(whole).hash}`));
});

test('the sweep fills a heatmap in workers; picking a cell sets the limiter and the main view agrees', async ({
  page,
}) => {
  await open(page, NGINX_1RS_PAGE);
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  const sweep = page.getByTestId('trace-sweep');
  await expect(sweep).toBeVisible();
  await sweep.getByRole('button', { name: /^Sweep \d+ settings$/ }).click();
  const cells = sweep.getByTestId('sweep-cell');
  const total = await cells.count();
  expect(total).toBeGreaterThan(100);
  await expect(sweep.getByTestId('sweep-progress')).toHaveText(`${total} of ${total} cells`);
  await expect(sweep.getByTestId('sweep-best')).toContainText('Smallest limit that fits');
  await sweep.screenshot({ path: test.info().outputPath('trace-sweep.png') });
  // Keyboard: focus the grid, move, read the cell's numbers.
  await sweep.getByTestId('trace-heatmap').focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowUp');
  await expect(sweep.getByTestId('sweep-detail')).toContainText('rate (r/s)');
  // Pick a cell: rate 2 r/s (the second column), burst as listed; the main view replays the log.
  const cell = cells.nth(2 * Math.round(Math.sqrt(total)) + 3);
  const label = (await cell.getAttribute('aria-label')) ?? '';
  const m = /rate \(r\/s\) (\d+), burst (\d+): .* rejected/.exec(label);
  expect(m).not.toBeNull();
  await cell.click();
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  const rate = Number(m?.[1]);
  const burst = Number(m?.[2]);
  const trace = parseTrace(new Uint8Array(readFileSync(join(fixtures, 'msec.log'))), {
    name: 'msec.log',
  });
  const replay = replayTrace(trace, {
    kind: 'leaky-bucket',
    rate,
    rateUnit: 'r/s',
    burst,
    delay: 'nodelay',
  });
  await expect(page).toHaveURL(new RegExp(`rate=${rate}r/s`));
  await expect(page.getByTestId('summary-rejected')).toHaveText(String(replay.rejected));
  const share = /: ([\d.]+)% rejected/.exec(label)?.[1];
  expect(Number(share)).toBeCloseTo((replay.rejected / trace.count) * 100, 1);
  await page.screenshot({ path: test.info().outputPath('trace-sweep-picked.png'), fullPage: true });
});

test('Kong: the sweep lays out second × minute in Kong’s words; a picked cell sets both and the main view agrees', async ({
  page,
}) => {
  await open(page, './?v=1&l=kong:second=2,minute=12&paused');
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  const sweep = page.getByTestId('trace-sweep');
  await expect(sweep).toContainText('second × minute');
  await expect(sweep).not.toContainText('pick one of those');
  await sweep.getByRole('button', { name: /^Sweep \d+ settings$/ }).click();
  const cells = sweep.getByTestId('sweep-cell');
  const total = await cells.count();
  expect(total).toBeGreaterThan(100);
  await expect(sweep.getByTestId('sweep-progress')).toHaveText(`${total} of ${total} cells`);
  await sweep.screenshot({ path: test.info().outputPath('trace-sweep-kong.png') });
  await sweep.getByTestId('trace-heatmap').focus();
  await page.keyboard.press('ArrowRight');
  await expect(sweep.getByTestId('sweep-detail')).toContainText('second 2, minute');
  // A cell with some requests rejected: its second and minute limits, and its share.
  const labels = await cells.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
  const i = labels.findIndex((l) => /: (?!0\.0%)[\d.]+% rejected/.test(l ?? ''));
  expect(i).toBeGreaterThanOrEqual(0);
  const label = labels[i] ?? '';
  const m = /^second (\d+), minute (\d+): ([\d.]+)% rejected/.exec(label);
  expect(m, label).not.toBeNull();
  await cells.nth(i).click();
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  const second = Number(m?.[1]);
  const minute = Number(m?.[2]);
  await expect(page).toHaveURL(new RegExp(`second=${second},minute=${minute}`));
  const trace = parseTrace(new Uint8Array(readFileSync(join(fixtures, 'msec.log'))), {
    name: 'msec.log',
  });
  // Kong's counters always expire (the system gives every limiter counterTtl).
  const replay = replayTrace(trace, { kind: 'calendar-windows', second, minute, counterTtl: true });
  expect(replay.rejected).toBeGreaterThan(0);
  await expect(page.getByTestId('summary-rejected')).toHaveText(String(replay.rejected));
  expect(Number(m?.[3])).toBeCloseTo((replay.rejected / trace.count) * 100, 1);
});

test('Envoy’s service with one unit: its limit × the next unit’s up to “none”, named requests_per_unit', async ({
  page,
}) => {
  await open(page, './?v=1&l=envoy-global:minute=8&paused');
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  const sweep = page.getByTestId('trace-sweep');
  await expect(sweep).toContainText(
    'requests_per_unit (unit: minute) × requests_per_unit (unit: hour)',
  );
  await sweep.getByRole('button', { name: /^Sweep \d+ settings$/ }).click();
  const cells = sweep.getByTestId('sweep-cell');
  const total = await cells.count();
  await expect(sweep.getByTestId('sweep-progress')).toHaveText(`${total} of ${total} cells`);
  // The top left cell: the least per minute, and no hour limit (the loosest, on top).
  await expect(
    sweep.locator(
      '[aria-label^="requests_per_unit (unit: minute) 1, requests_per_unit (unit: hour) none: "]',
    ),
  ).toHaveCount(1);
  await expect(sweep.getByTestId('trace-heatmap')).toContainText('none');
  // 17 columns are wider than the side column: the heatmap shrinks to it, nothing cut off.
  const map = await sweep.getByTestId('trace-heatmap').boundingBox();
  const panel = await sweep.boundingBox();
  expect(map !== null && panel !== null).toBe(true);
  if (map !== null && panel !== null) {
    expect(map.x + map.width).toBeLessThanOrEqual(panel.x + panel.width + 0.5);
  }
});

test('a trace is kept in the browser until deleted, exported compact, and re-imported', async ({
  page,
}) => {
  await open(page);
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'msec.log'));
  await expect(page.getByTestId('trace-count')).toHaveText(String(expected.count));
  const keep = page.getByTestId('trace-keep');
  const download = page.waitForEvent('download');
  await keep.getByRole('button', { name: 'Export trace (compact)' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('msec.trace.csv.gz');
  const exported = await file.path();
  await keep.getByRole('button', { name: 'Keep in this browser' }).click();
  const kept = page.getByTestId('trace-kept');
  await expect(kept.locator('tbody tr')).toHaveCount(1);
  await expect(kept).toContainText('msec.trace.csv.gz');
  await expect(kept).toContainText(String(expected.count));
  // Still there after a reload (a new page of the same browser).
  await open(page);
  await expect(page.getByTestId('trace-kept').locator('tbody tr')).toHaveCount(1);
  await page.getByRole('button', { name: 'Open "msec.trace.csv.gz"' }).click();
  await expect(page.getByTestId('trace-count')).toHaveText(String(expected.count));
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  // The kept copy replays as the file it was read from: the link names that file.
  await expect(page).toHaveURL(/src=trace:name=msec\.log,bytes=7565,/);
  // The exported file re-imports through the file chooser to the same fingerprint.
  const hash = /hash=([0-9a-f]{16})/.exec(page.url())?.[1];
  await page.getByTestId('trace-file').setInputFiles(exported);
  await expect(page.getByTestId('trace-replaying')).toBeVisible();
  expect(hash).toMatch(/^[0-9a-f]{16}$/);
  await page.getByRole('button', { name: 'Delete "msec.trace.csv.gz"' }).click();
  await expect(page.getByTestId('trace-kept')).toHaveCount(0);
});

test('a Kong dry run of a log whose first request is not on a minute rejects what Kong rejects, on UTC minutes', async ({
  page,
}) => {
  // Kong's rejections from the raw lines: per client address and UTC minute ⌊epoch s / 60⌋, the
  // first 3 requests pass and count, the rest are stopped (handler.lua; timestamp.lua minutes).
  const text = readFileSync(join(fixtures, 'clock-minute.log'), 'utf8');
  const used = new Map<string, number>();
  let rejected = 0;
  let requests = 0;
  let firstS = Infinity;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.split(' ');
    const msec = Number(fields[fields.length - 1]);
    firstS = Math.min(firstS, msec);
    const k = `${fields[0]} ${Math.floor(msec / 60)}`;
    const n = used.get(k) ?? 0;
    if (n >= 3) rejected += 1;
    else used.set(k, n + 1);
    requests += 1;
  }
  // The first request is at 12:00:00.201, not on a minute; from it, windows would reject 5.
  expect(firstS % 60).toBeGreaterThan(0);
  expect(rejected).toBe(3);
  await open(page, './?v=1&l=kong:minute=3&paused');
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, 'clock-minute.log'));
  const counts = page.getByTestId('trace-dry-run-counts');
  await expect(counts).toContainText(
    `${requests}: ${requests - rejected} admitted, 0 delayed, ${rejected} rejected.`,
  );
  // No sentence about windows starting elsewhere than the system's.
  await expect(page.getByTestId('trace-clock-windows')).toHaveCount(0);
  await expect(page.getByText('(its time 0)')).toHaveCount(0);
});
