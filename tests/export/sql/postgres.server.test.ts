/**
 * The generated SQL on a real PostgreSQL 15 (Debian's, started by the test on 127.0.0.1 in a
 * temporary folder) against core: random configs of every kind the SQL covers over random traces,
 * and a real-shaped access log, per request and per key; 0 disagreements wanted. All cases run as
 * one psql script, each query's rows between markers. Skips loudly without PostgreSQL.
 */
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgres } from '../../../src/export/sql/postgres';
import { FC_SEED } from '../../core/arbitraries';
import { loudSkip } from '../servers';
import { PG_BIN, postgresAvailable, startPostgres } from './postgres';
import type { Postgres } from './postgres';
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
import type { Case, Out } from './proof';

const available = postgresAvailable();
if (!available) loudSkip('the SQL proof on PostgreSQL', `${PG_BIN}/postgres`);

let pg: Postgres | undefined;
beforeAll(async () => {
  if (available) pg = await startPostgres();
}, 120_000);
afterAll(async () => {
  await pg?.stop();
}, 60_000);

/** Runs every case in one script: one table per case, then its two queries, between markers. */
function runAll(cases: Case[]): string[] {
  const db = pg as Postgres;
  const csv = ['case_id,key,ts,status,seq'];
  cases.forEach((c, i) => {
    for (const r of c.rows) csv.push(`${i},${r.key},${r.t},${r.status},${r.seq}`);
  });
  db.query(
    'DROP TABLE IF EXISTS all_logs; CREATE TABLE all_logs (case_id int, key text, ts bigint, status int, seq int);',
  );
  db.copyIn('all_logs', csv.join('\n') + '\n');
  const script: string[] = [];
  cases.forEach((c, i) => {
    const table = { ...TABLE, table: `logs_${i}` };
    script.push(
      `CREATE TEMP VIEW logs_${i} AS SELECT key, ts, status, seq FROM all_logs WHERE case_id = ${i};`,
      `\\echo '#case ${i} per-request'`,
      sqlOf(postgres, c, 'per-request', table),
      `\\echo '#case ${i} per-key'`,
      sqlOf(postgres, c, 'per-key', table),
    );
  });
  const out = db.query(script.join('\n'));
  const parts = out.split(/^#case \d+ per-(?:request|key)\n/m).slice(1);
  const problems: string[] = [];
  cases.forEach((c, i) => {
    const want = expected(c);
    const parse = (text: string | undefined): Out[] =>
      normal(Papa.parse<Record<string, string>>((text ?? '').trim(), { header: true }).data);
    const d1 = firstDifference(parse(parts[2 * i]), perRequestOrder(want, c));
    if (d1 !== null) problems.push(`${c.name} per request ${JSON.stringify(c.config)}: ${d1}`);
    const d2 = firstDifference(parse(parts[2 * i + 1]), perKeyOf(want));
    if (d2 !== null) problems.push(`${c.name} per key ${JSON.stringify(c.config)}: ${d2}`);
  });
  return problems;
}

describe.skipIf(!available)('generated SQL on PostgreSQL equals core', () => {
  it('random configs of every kind over random traces: 0 disagreements', () => {
    const cases = randomCases(15, FC_SEED + 1);
    expect(runAll(cases).slice(0, 5)).toEqual([]);
  }, 180_000);

  it('typical settings over a real-shaped access log: 0 disagreements', () => {
    const rows = accessLog(3000, 11);
    const cases = TYPICAL.map((config) => ({ name: config.kind, config, rows }));
    expect(runAll(cases).slice(0, 5)).toEqual([]);
  }, 180_000);
});
