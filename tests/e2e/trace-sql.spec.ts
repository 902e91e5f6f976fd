import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Page } from '@playwright/test';
import { parseTrace } from '../../src/trace';
import { expect, open, test } from './fixtures';

/**
 * "Run it where your logs live", end to end: the query the page writes for DuckDB runs on real
 * DuckDB over the same log the page loaded, its CSV output is pasted back, and the page finds it
 * agrees key by key with its own dry run; a tampered output is refused or shown as differing.
 */
const fixtures = join(import.meta.dirname, '..', 'trace', 'fixtures');
const LOG = 'msec.log';

/** The log as the page parses it, in a DuckDB table logs(client, ts, status, seq). */
async function duckdbWithLog() {
  const trace = parseTrace(new Uint8Array(readFileSync(join(fixtures, LOG))), { name: LOG });
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  await con.run('CREATE TABLE logs (client VARCHAR, ts BIGINT, status INTEGER, seq INTEGER)');
  const values: string[] = [];
  for (let i = 0; i < trace.count; i += 1) {
    const key = (trace.keys[trace.keyId[i] as number] as string).replace(/'/g, "''");
    values.push(`('${key}', ${trace.arrivalMs[i]}, ${trace.status[i]}, ${i})`);
  }
  await con.run(`INSERT INTO logs VALUES ${values.join(',')}`);
  return con;
}

async function fill(page: Page) {
  const sql = page.getByTestId('trace-sql');
  await sql.getByRole('textbox', { name: 'Table' }).fill('logs');
  await sql.getByRole('textbox', { name: 'Time column' }).fill('ts');
  await sql.getByRole('combobox', { name: 'Time holds' }).selectOption('ms');
  await sql.getByRole('textbox', { name: 'Key columns' }).fill('client');
  await sql.getByRole('textbox', { name: 'Order column' }).fill('seq');
}

function toCsv(rows: Record<string, unknown>[]): string {
  const cols = Object.keys(rows[0] ?? {});
  return [cols.join(','), ...rows.map((r) => cols.map((c) => String(r[c])).join(','))].join('\n');
}

test("the page's DuckDB query, run on real DuckDB over the same log, agrees with its dry run", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await open(page, './?v=1&l=envoy:max_tokens=3,tokens_per_fill=1,fill_interval=1s&paused');
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, LOG));
  await expect(page.getByTestId('trace-summary')).toBeVisible();
  await page.getByTestId('trace-sql-open').click();
  await expect(page.getByTestId('trace-sql-proof')).toContainText(
    'Proven on DuckDB and PostgreSQL',
  );
  await fill(page);
  const sql = (await page.getByTestId('trace-sql-code').textContent()) ?? '';
  expect(sql).toContain('list_reduce');
  const con = await duckdbWithLog();
  const rows = (await con.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  expect(rows.length).toBeGreaterThan(1);
  const csv = toCsv(rows);
  await page.getByTestId('trace-sql-paste').fill(csv);
  await page.getByRole('button', { name: 'Read pasted output' }).click();
  await expect(page.getByTestId('trace-sql-summary')).toHaveText(
    new RegExp(`^Agrees: ${rows.length} of ${rows.length} keys agree`),
  );
  if (process.env.SQL_SHOTS !== undefined) {
    // For a person to look at (not compared): the form and query, and the comparison.
    await page
      .getByTestId('trace-sql-result')
      .screenshot({ path: `${process.env.SQL_SHOTS}/sql-agrees.png` });
    await page
      .getByTestId('trace-sql-code')
      .screenshot({ path: `${process.env.SQL_SHOTS}/sql-code.png` });
  }
  // Per request, for the busiest keys: every request agrees too.
  await page
    .getByTestId('trace-sql')
    .getByRole('combobox', { name: 'Output' })
    .selectOption('per-request');
  const perRequest = (await page.getByTestId('trace-sql-code').textContent()) ?? '';
  const reqRows = (await con.runAndReadAll(perRequest)).getRowObjectsJson() as Record<
    string,
    unknown
  >[];
  await page.getByTestId('trace-sql-paste').fill(toCsv(reqRows));
  await page.getByRole('button', { name: 'Read pasted output' }).click();
  await expect(page.getByTestId('trace-sql-summary')).toContainText(
    `${reqRows.length} of ${reqRows.length} requests agree`,
  );
  // A column lost on the way: refused, naming it.
  await page
    .getByTestId('trace-sql-paste')
    .fill(csv.replace(/,to_delayed/, '').replace(/,\d+$/gm, ''));
  await page.getByRole('button', { name: 'Read pasted output' }).click();
  await expect(page.getByTestId('trace-sql-error')).toContainText('missing to_delayed');
  con.closeSync();
});

test('SQL for log stores: no axe violation, on a phone and in the dark theme too', async ({
  page,
}) => {
  await open(page, './?v=1&l=gcra:max_burst=9,count=5,period=1s&paused');
  await page.getByTestId('trace-file').setInputFiles(join(fixtures, LOG));
  await page.getByTestId('trace-sql-open').click();
  await page.getByTestId('trace-sql').locator('details summary').click();
  const check = async () => {
    const results = await new AxeBuilder({ page }).include('[data-testid="trace-sql"]').analyze();
    expect(results.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`)).toEqual([]);
  };
  await check();
  await page.getByTestId('trace-sql-paste').fill('key,requests\nx,1\n');
  await page.getByRole('button', { name: 'Read pasted output' }).click();
  await expect(page.getByTestId('trace-sql-error')).toBeVisible();
  await check();
  if (process.env.SQL_SHOTS !== undefined) {
    await page
      .getByTestId('trace-sql')
      .screenshot({ path: `${process.env.SQL_SHOTS}/sql-1280.png` });
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await check();
  if (process.env.SQL_SHOTS !== undefined) {
    await page
      .getByTestId('trace-sql')
      .screenshot({ path: `${process.env.SQL_SHOTS}/sql-390-dark.png` });
  }
});
