/**
 * SQL for log stores: the page's dry run written as a query for the engine the logs live in.
 * Pure TypeScript; the page loads it only when the "Run it where your logs live" part opens.
 */
import type { AlgorithmConfig } from '../../core';
import { bigquery } from './bigquery';
import { clickhouse } from './clickhouse';
import { duckdb } from './duckdb';
import { generateWith } from './generate';
import type { Dialect } from './plan';
import { postgres } from './postgres';
import { spark } from './spark';
import { trino } from './trino';
import type { Engine, LogTable, SqlOptions, SqlResult } from './types';

export * from './types';
export { MAX_TOP_KEYS } from './generate';

const DIALECTS: Readonly<Record<Engine, Dialect>> = {
  duckdb,
  postgres,
  trino,
  bigquery,
  spark,
  clickhouse,
};

/** The query computing the page's dry run of `config` over `table` on `engine`. */
export function generateSql(
  engine: Engine,
  config: AlgorithmConfig,
  table: LogTable,
  options: SqlOptions,
): SqlResult {
  return generateWith(DIALECTS[engine], config, table, options);
}
