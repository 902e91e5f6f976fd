/**
 * A Parquet file written by real DuckDB (`@duckdb/node-api`, at test time) opened through the
 * page's file input: read in the parsing worker by the lazily loaded reader, with the same rows
 * (count, keys, time span) DuckDB reads from the file; a file named .parquet that is not Parquet
 * and one cut short are named and leave the loaded trace in place.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect, open, test } from './fixtures';

let dir = '';
let parquet = '';
let want = { rows: 0, keys: 0, first: '', last: '' };

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'parquet-e2e-'));
  parquet = join(dir, 'requests.parquet');
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await db.connect();
  await con.run(`COPY (
      SELECT TIMESTAMP '2026-03-02 10:00:00' + to_microseconds(i * 41_017) AS ts,
             '10.2.' || (i % 5) || '.' || CAST(floor(30 / (1 + (i * 7919 % 30))) AS INTEGER) AS client_ip,
             CASE WHEN i % 11 = 0 THEN 429 ELSE 200 END AS status,
             '/api/items/' || (i % 97) AS path,
             'GET' AS method
      FROM range(20000) t(i)
    ) TO '${parquet}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 4096)`);
  const r = await con.runAndReadAll(
    `SELECT count(*) AS n, count(DISTINCT client_ip) AS k,
            strftime(min(ts), '%Y-%m-%d %H:%M:%S') AS a, strftime(max(ts), '%Y-%m-%d %H:%M:%S.%g') AS b
     FROM read_parquet('${parquet}')`,
  );
  const o = r.getRowObjectsJS()[0] as Record<string, unknown>;
  want = { rows: Number(o.n), keys: Number(o.k), first: String(o.a), last: String(o.b) };
  con.closeSync();
  db.closeSync();
});

test.afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('a Parquet file opens through the file input with the rows DuckDB wrote', async ({
  page,
  errors,
}) => {
  await open(page);
  await page.getByTestId('trace-file').setInputFiles(parquet);
  const summary = page.getByTestId('trace-summary');
  await expect(summary).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('trace-count')).toHaveText(want.rows.toLocaleString('en-US'));
  await expect(page.getByTestId('trace-keys')).toHaveText(String(want.keys));
  await expect(summary).toContainText('Parquet (5 row groups, ZSTD)');
  // The first row is on a whole second (shown without ms), the last is not.
  await expect(summary).toContainText(`(${want.first} UTC to ${want.last} UTC)`);
  await expect(summary).toContainText(
    'arrival = column "ts" (TIMESTAMP(MICROS, no zone: read as UTC), floored to whole ms)',
  );
  await page
    .locator('.trace-panel')
    .screenshot({ path: test.info().outputPath('parquet-panel.png') });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page
    .locator('.trace-panel')
    .screenshot({ path: test.info().outputPath('parquet-panel-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  await page
    .locator('.trace-panel')
    .screenshot({ path: test.info().outputPath('parquet-panel-390.png') });

  // Not Parquet, though named so: a message, and the trace stays.
  await page.getByTestId('trace-file').setInputFiles({
    name: 'access.parquet',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from('127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326\n'),
  });
  await expect(page.getByTestId('trace-error')).toContainText(
    'access.parquet is not a Parquet file: a Parquet file starts with "PAR1"',
  );
  await expect(page.getByTestId('trace-count')).toHaveText(want.rows.toLocaleString('en-US'));

  // Cut short: named, and the trace stays.
  const bytes = readFileSync(parquet);
  await page.getByTestId('trace-file').setInputFiles({
    name: 'cut.parquet',
    mimeType: 'application/octet-stream',
    buffer: bytes.subarray(0, Math.floor(bytes.length / 2)),
  });
  await expect(page.getByTestId('trace-error')).toContainText('cut.parquet is cut short');
  await expect(page.getByTestId('trace-count')).toHaveText(want.rows.toLocaleString('en-US'));
  expect(errors).toEqual([]);
});
