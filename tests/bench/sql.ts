/**
 * SQL for log stores (`BENCH=sql`): the generated dry-run query timed on real DuckDB
 * (`@duckdb/node-api`, embedded) and a PostgreSQL 15 started for the bench (skipped, saying so,
 * without it). Figures only, each beside its target and the load average.
 *
 * The log is made inside the engine from a seed: a request every 60 ms (10M requests ≈ 7 days),
 * about 3,000 client addresses with a heavy tail (the busiest sends ~7 %), 2 % recorded 429s.
 * Target (issue): the DuckDB query of a windowed algorithm over 10M requests in ≤ 10 s. The
 * stateful algorithms (token bucket, GCRA, nginx) fold each key's requests in order, so their time
 * follows the busiest key's length; they are printed at sizes that finish (a size is skipped once
 * a run at the size before took over SQL_BENCH_LIMIT_S, default 60 s).
 */
import { loadavg } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import type { AlgorithmConfig } from '../../src/core';
import { generateSql } from '../../src/export/sql';
import type { Engine, LogTable } from '../../src/export/sql';
import { postgresAvailable, startPostgres } from '../export/sql/postgres';

const TABLE: LogTable = {
  table: 'logs',
  time: 'ts',
  timeUnit: 'ms',
  key: ['client'],
  status: 'status',
  order: 'seq',
};

const WINDOWED: [string, AlgorithmConfig][] = [
  ['fixed window 100/min', { kind: 'fixed-window', limit: 100, windowMs: 60_000 }],
  [
    'sliding log 100/min (every request logged)',
    { kind: 'sliding-log', limit: 100, windowMs: 60_000, logRejected: true },
  ],
];
const STATEFUL: [string, AlgorithmConfig][] = [
  [
    'token bucket 10, 5/s',
    { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 },
  ],
  ['GCRA 30/min, burst 15', { kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 }],
  [
    'nginx 10r/s burst=20 nodelay',
    { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 20, delay: 'nodelay' },
  ],
];

/** The seeded log as SQL over `n` rows (i = 0 … n − 1), for DuckDB and PostgreSQL alike. */
function logSelect(engine: Engine, n: number): string {
  // A multiplicative hash of i in [0, 1): the address is ⌊3000·u³⌋ (a heavy tail).
  const u = '((i * 2654435761) % 4294967296) / 4294967296.0';
  const series = engine === 'duckdb' ? `range(${n}) r(i)` : `generate_series(0, ${n - 1}) i`;
  return `SELECT 'c' || CAST(floor(3000 * pow(${u}, 3)) AS bigint) AS client,
    1700000000000 + i * 60 AS ts,
    CASE WHEN i % 50 = 0 THEN 429 ELSE 200 END AS status,
    i AS seq
  FROM ${series}`;
}

const load = () => `load average ${loadavg()[0]?.toFixed(1)}`;
const limitS = Number(process.env.SQL_BENCH_LIMIT_S ?? 60);

function sqlOf(engine: Engine, config: AlgorithmConfig): string {
  const r = generateSql(engine, config, TABLE, {
    output: 'per-key',
    baseline: 'recorded',
  });
  if (!r.ok) throw new Error(r.message);
  return r.sql;
}

async function duckdbBench(): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const make = async (n: number) => {
    await con.run(`CREATE OR REPLACE TABLE logs AS ${logSelect('duckdb', n)}`);
  };
  await make(10_000_000);
  for (const [name, config] of WINDOWED) {
    const t0 = performance.now();
    const rows = (await con.runAndReadAll(sqlOf('duckdb', config))).getRows().length;
    const s = (performance.now() - t0) / 1000;
    console.log(
      `  DuckDB ${name}, 10M requests: ${s.toFixed(2)} s (target ≤ 10 s${s <= 10 ? ', met' : ', NOT met'}), ${rows} keys; ${load()}`,
    );
  }
  for (const [name, config] of STATEFUL) {
    for (const n of [10_000, 100_000, 1_000_000]) {
      await make(n);
      const t0 = performance.now();
      await con.runAndReadAll(sqlOf('duckdb', config));
      const s = (performance.now() - t0) / 1000;
      console.log(
        `  DuckDB ${name}, ${n.toLocaleString('en-US')} requests: ${s.toFixed(2)} s; ${load()}`,
      );
      if (s > limitS) break;
    }
  }
  con.closeSync();
}

async function postgresBench(): Promise<void> {
  if (!postgresAvailable()) {
    console.log('  PostgreSQL: SKIPPED (PostgreSQL 15 is not installed; .ci/run installs it)');
    return;
  }
  const pg = await startPostgres();
  try {
    const time = (sql: string) => {
      const t0 = performance.now();
      pg.query(sql);
      return (performance.now() - t0) / 1000;
    };
    let made = 0;
    const make = (n: number) => {
      if (made === n) return;
      pg.query(
        `DROP TABLE IF EXISTS logs; CREATE TABLE logs AS ${logSelect('postgres', n)}; ANALYZE logs;`,
      );
      made = n;
    };
    for (const [name, config] of [...WINDOWED, ...STATEFUL]) {
      for (const n of [100_000, 1_000_000, 10_000_000]) {
        make(n);
        const s = time(sqlOf('postgres', config));
        console.log(
          `  PostgreSQL ${name}, ${n.toLocaleString('en-US')} requests: ${s.toFixed(2)} s; ${load()}`,
        );
        if (s > limitS) break;
      }
    }
  } finally {
    await pg.stop();
  }
}

export async function runSqlBench(): Promise<void> {
  console.log('SQL for log stores: the generated dry-run query (per-key output)');
  await duckdbBench();
  await postgresBench();
}
