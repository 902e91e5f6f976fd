/**
 * The generated SQL on real DuckDB (`@duckdb/node-api` 1.5.6-r.1, embedded: no server) against
 * core: random configs of every kind the SQL covers over random traces (equal times, exact window
 * boundaries, minute gaps, month and year ends, many keys) and a real-shaped access log, per
 * request and per key. Every disagreement is reported; the test wants none.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdb } from '../../../src/export/sql/duckdb';
import { FC_SEED } from '../../core/arbitraries';
import {
  TABLE,
  TYPICAL,
  accessLog,
  expected,
  firstDifference,
  normal,
  perKeyOf,
  perRequestOrder,
  randomCases,
  sqlOf,
} from './proof';
import type { Case } from './proof';
import type { Row } from './traces';

let con: DuckDBConnection;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:', { threads: '2' });
  con = await db.connect();
});
afterAll(() => con?.closeSync());

async function load(rows: readonly Row[]): Promise<void> {
  await con.run(
    'CREATE OR REPLACE TABLE logs (key VARCHAR, ts BIGINT, status INTEGER, seq INTEGER)',
  );
  for (let i = 0; i < rows.length; i += 1000) {
    const values = rows
      .slice(i, i + 1000)
      .map((r) => `('${r.key}', ${r.t}, ${r.status}, ${r.seq})`)
      .join(',');
    await con.run(`INSERT INTO logs VALUES ${values}`);
  }
}

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const reader = await con.runAndReadAll(sql);
  return reader.getRowObjectsJS();
}

/** Disagreements of one case (per request, then per key); empty when the engine agrees. */
async function check(c: Case): Promise<string[]> {
  await load(c.rows);
  const want = expected(c);
  const problems: string[] = [];
  const perRequest = normal(await query(sqlOf(duckdb, c, 'per-request')));
  const d1 = firstDifference(perRequest, perRequestOrder(want, c));
  if (d1 !== null) problems.push(`${c.name} per request ${JSON.stringify(c.config)}: ${d1}`);
  const perKey = normal(await query(sqlOf(duckdb, c, 'per-key')));
  const d2 = firstDifference(perKey, perKeyOf(want));
  if (d2 !== null) problems.push(`${c.name} per key ${JSON.stringify(c.config)}: ${d2}`);
  return problems;
}

describe('generated SQL on DuckDB equals core', () => {
  it('random configs of every kind over random traces: 0 disagreements', async () => {
    const cases = randomCases(10, FC_SEED);
    const problems: string[] = [];
    let decisions = 0;
    for (const c of cases) {
      problems.push(...(await check(c)));
      decisions += c.rows.length;
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expect(decisions).toBeGreaterThan(1000);
  }, 120_000);

  it('typical settings over a real-shaped access log: 0 disagreements', async () => {
    const rows = accessLog(1500, 7);
    const problems: string[] = [];
    for (const config of TYPICAL) {
      problems.push(...(await check({ name: config.kind, config, rows })));
    }
    expect(problems.slice(0, 5)).toEqual([]);
  }, 120_000);

  it('reads TIMESTAMP, seconds and several key columns', async () => {
    const rows = accessLog(500, 3);
    await load(rows);
    await con.run(`CREATE OR REPLACE TABLE logs2 AS SELECT split_part(key, '.', 3) AS net, split_part(key, '.', 4) AS host,
      make_timestamp(ts * 1000) AS at, ts / 1000.0 AS sec, status, seq FROM logs`);
    const config = TYPICAL[4] as Case['config'];
    const c: Case = { name: 'variants', config, rows };
    // The key is net | host; the expected key is rewritten the same way.
    const want = expected({
      ...c,
      rows: rows.map((r) => ({ ...r, key: r.key.split('.').slice(2).join(' | ') })),
    });
    for (const [time, timeUnit] of [
      ['at', 'timestamp'],
      ['sec', 's'],
    ] as const) {
      const table = { ...TABLE, table: 'logs2', time, timeUnit, key: ['net', 'host'] };
      const got = normal(await query(sqlOf(duckdb, c, 'per-key', table)));
      expect(firstDifference(got, perKeyOf(want))).toBeNull();
    }
  }, 60_000);
});
