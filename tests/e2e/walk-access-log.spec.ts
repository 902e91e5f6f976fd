/**
 * An SRE with a real-shaped access log, as a walk through the page: a 10,000-line Apache combined
 * log of 83 hours (tests/trace/fixtures/apache.ts) chosen through the file input, its figures,
 * the dry run of an nginx limit, the stage's span, one cell of the sweep, and the nginx export,
 * which real nginx accepts. Every number the page shows is checked against one this test computes
 * from the raw file with its own parser and its own nginx limit_req, not with the page's code.
 * Screenshots are attached to the test's output at each step.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import { findBinary, loudSkip } from '../export/servers';
import { expect, open, test } from './fixtures';

const LOG = join(import.meta.dirname, '..', 'trace', 'fixtures', 'apache.log.gz');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Apache's combined format: %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i". */
const COMBINED =
  /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})\] "[^"]*" \d{3} (?:\d+|-) "[^"]*" "[^"]*"$/;

interface Request {
  key: string;
  ms: number;
}

/**
 * The file the SRE chooses: the fixture's lines with two a real log can hold put in, a line cut
 * in its user agent (a log rotated mid-write) and a line of something else.
 */
function theFile(): Buffer {
  const lines = gunzipSync(readFileSync(LOG)).toString('utf8').split('\n');
  const cut = (lines[4321] as string).slice(0, (lines[4321] as string).lastIndexOf('"') - 20);
  lines.splice(4322, 0, cut);
  lines.splice(8000, 0, '[warn] mod_fcgid: read data timeout in 40 seconds');
  return Buffer.from(lines.join('\n'));
}

/** The log read here: requests in time order (ties in file order), and the lines that are not. */
function readLog(file: Buffer): { requests: Request[]; malformed: number } {
  const lines = file.toString('utf8').split('\n');
  const requests: Request[] = [];
  let malformed = 0;
  for (const line of lines) {
    if (line === '') continue;
    const m = COMBINED.exec(line);
    if (m === null) {
      malformed += 1;
      continue;
    }
    const [, key, d, mon, y, h, mi, s, sign, oh, om] = m as unknown as string[];
    const offsetMs = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
    const utc = Date.UTC(Number(y), MONTHS.indexOf(mon as string), Number(d), +h!, +mi!, +s!);
    requests.push({ key: key as string, ms: utc - offsetMs });
  }
  requests.sort((a, b) => a.ms - b.ms);
  return { requests, malformed };
}

/**
 * How many requests nginx's limit_req rejects (ngx_http_limit_req_module.c, nginx 1.22.1,
 * ngx_http_limit_req_lookup): per key, in milli-requests, excess = max(0, excess − rate·ms/1000 +
 * 1000) with ms the time since the key's last passed request; a request whose excess would pass
 * burst·1000 is rejected and changes nothing; a new key starts at excess 0.
 */
function nginxRejected(requests: readonly Request[], ratePerSec: number, burst: number): number {
  const state = new Map<string, { excess: number; last: number }>();
  let rejected = 0;
  for (const r of requests) {
    const s = state.get(r.key);
    if (s === undefined) {
      state.set(r.key, { excess: 0, last: r.ms });
      continue;
    }
    const ms = Math.max(0, r.ms - s.last);
    const excess = Math.max(0, s.excess - Math.trunc((ratePerSec * 1000 * ms) / 1000) + 1000);
    if (excess > burst * 1000) rejected += 1;
    else {
      s.excess = excess;
      s.last = r.ms;
    }
  }
  return rejected;
}

const n = (v: number): string => v.toLocaleString('en-US');

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: test.info().outputPath(name), fullPage: true });
}

/** `nginx -t` on a configuration file: exit code and output. */
function nginxTest(nginx: string, prefix: string, file: string) {
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      nginx,
      ['-t', '-p', prefix, '-c', file, '-e', join(prefix, 'error.log')],
      { timeout: 10_000 },
      (error, stdout, stderr) =>
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), output: stdout + stderr }),
    );
  });
}

test('an Apache log → the figures, the dry run, a sweep cell and the nginx export, checked by hand', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const file = theFile();
  const { requests, malformed } = readLog(file);
  expect(malformed).toBe(2);
  const perKey = new Map<string, number>();
  for (const r of requests) perKey.set(r.key, (perKey.get(r.key) ?? 0) + 1);
  const [busiest, busiestCount] = [...perKey].sort((a, b) => b[1] - a[1])[0] as [string, number];
  const t0 = requests[0]!.ms;

  await open(page, './?v=1&l=nginx:rate=1r/s,burst=5,nodelay&paused');
  await page
    .getByTestId('trace-file')
    .setInputFiles({ name: 'access.log', mimeType: 'text/plain', buffer: file });
  await expect(page.getByTestId('trace-count')).toHaveText(n(requests.length), { timeout: 60_000 });
  await expect(page.getByTestId('trace-keys')).toHaveText(n(perKey.size));
  const summary = page.getByTestId('trace-summary');
  await expect(summary).toContainText(
    `${n(malformed)} malformed line${malformed === 1 ? '' : 's'}`,
  );
  const top = summary.locator('.trace-top-keys tbody tr').first();
  await expect(top.locator('td').nth(0)).toHaveText(`"${busiest}"`);
  await expect(top.locator('td').nth(1)).toHaveText(n(busiestCount));

  // The dry run of the whole log, before the stage replays any of it.
  const dry = page.getByTestId('trace-dry-run-counts');
  const whole = nginxRejected(requests, 1, 5);
  await expect(dry).toContainText(
    `Replayed ${n(requests.length)}: ${n(requests.length - whole)} admitted, 0 delayed, ${n(whole)} rejected.`,
    { timeout: 60_000 },
  );
  await shot(page, '1-loaded.png');

  // The stage replays a span; the overview's whole-log figure, and the span's, by hand.
  await page.getByRole('button', { name: 'Replay this log through the limiters' }).click();
  await expect(page.getByTestId('trace-overview-rejected')).toContainText(`rejects ${n(whole)}.`, {
    timeout: 60_000,
  });
  const spanText = await page.getByTestId('trace-overview-span').innerText();
  const clock =
    /(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC to (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC/.exec(
      spanText,
    );
  expect(clock, spanText).not.toBeNull();
  const from = Date.parse(`${clock![1]}T${clock![2]}Z`);
  const to = Date.parse(`${clock![3]}T${clock![4]}Z`);
  // Whole-ms virtual times from the first request; the span's bounds are whole seconds of it.
  const inSpan = requests.filter((r) => r.ms >= from && r.ms < to);
  expect(spanText).toContain(`${n(inSpan.length)} requests`);
  const spanRejected = nginxRejected(inSpan, 1, 5);
  await expect(dry).toContainText(
    `Replayed the stage's span, ${n(inSpan.length)}: ${n(inSpan.length - spanRejected)} admitted, 0 delayed, ${n(spanRejected)} rejected.`,
    { timeout: 60_000 },
  );
  console.log(
    `span ${clock![0]}, t0 ${new Date(t0).toISOString()}: ${inSpan.length} requests, ${spanRejected} rejected; whole log ${whole}`,
  );
  await shot(page, '2-replayed.png');

  // A sweep, and one of its cells by hand.
  await page.getByTestId('trace-dry-run').locator('details summary').click();
  const sweep = page.getByTestId('trace-sweep');
  await expect(sweep).toContainText(`exact replays of all ${n(requests.length)} requests`);
  const go = sweep.getByRole('button', { name: /^Sweep \d+ settings$/ });
  const total = Number(/\d+/.exec((await go.textContent()) ?? '')?.[0]);
  await go.click();
  await expect(sweep.getByTestId('sweep-progress')).toHaveText(`${total} of ${total} cells`, {
    timeout: 120_000,
  });
  const cells = sweep.getByTestId('sweep-cell');
  await expect(cells).toHaveCount(total);
  // Two cells by hand, their rate and burst read from their names: the link's own limit (the dry
  // run's figure), and the cell whose share rejected is the median of those above zero.
  const labels = await cells.evaluateAll((els) =>
    els.map((e) => e.getAttribute('aria-label') ?? ''),
  );
  const parsed = labels.map((label) => {
    const m = /^rate \(r\/s\) (\d+), burst (\d+): ([\d.]+)% rejected/.exec(label);
    expect(m, label).not.toBeNull();
    return { label, rate: Number(m![1]), burst: Number(m![2]), shown: m![3] as string };
  });
  const own = parsed.find((c) => c.rate === 1 && c.burst === 5);
  const some = parsed
    .filter((c) => Number(c.shown) > 0)
    .sort((x, y) => Number(x.shown) - Number(y.shown));
  const picked = [own, some[Math.floor(some.length / 2)]];
  for (const c of picked) {
    expect(c).toBeDefined();
    const share = nginxRejected(requests, c!.rate, c!.burst) / requests.length;
    expect(c!.shown, c!.label).toBe((share * 100).toFixed(share < 0.001 && share > 0 ? 3 : 1));
    console.log(`sweep cell ${c!.label}; by hand ${(share * 100).toFixed(3)}%`);
  }
  await sweep.screenshot({ path: test.info().outputPath('3-sweep.png') });

  // The nginx export carries the numbers set, and real nginx accepts it.
  await page.getByRole('button', { name: 'Export & import' }).click();
  await expect(page.getByRole('tab', { name: /^nginx/ })).toHaveAttribute('aria-selected', 'true');
  const code = page.getByTestId('export-code');
  await expect(code).toContainText(
    'limit_req_zone $binary_remote_addr zone=ratelimit:10m rate=1r/s;',
  );
  await expect(code).toContainText('limit_req zone=ratelimit burst=5 nodelay;');
  await page
    .locator('.export-section')
    .first()
    .screenshot({ path: test.info().outputPath('4-export.png') });
  const nginx = findBinary('nginx');
  if (nginx === undefined) {
    loudSkip('nginx -t on the exported config', 'nginx');
    return;
  }
  const lines = (await code.innerText()).split('\n').filter((l) => l.startsWith('limit_req'));
  const prefix = mkdtempSync(join(tmpdir(), 'walk-nginx-'));
  try {
    mkdirSync(join(prefix, 'logs'));
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(
      conf,
      [
        `pid ${join(prefix, 'nginx.pid')};`,
        'events {}',
        'http {',
        ...lines.filter((l) => l.startsWith('limit_req_zone ')),
        '  server {',
        '    listen 127.0.0.1:1;',
        '    location / {',
        ...lines.filter((l) => !l.startsWith('limit_req_zone ')),
        '      return 200;',
        '    }',
        '  }',
        '}',
      ].join('\n'),
    );
    const { code: exit, output } = await nginxTest(nginx, prefix, conf);
    expect(output).toContain('test is successful');
    expect(exit, output).toBe(0);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
});
