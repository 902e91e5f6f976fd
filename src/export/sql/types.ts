/**
 * The dry run as SQL for the engine the logs live in: what the person says about their log table,
 * and what the generator gives back.
 */

/** The engines a query is written for. */
export type Engine = 'duckdb' | 'postgres' | 'trino' | 'bigquery' | 'spark' | 'clickhouse';

export const ENGINES: readonly Engine[] = [
  'duckdb',
  'postgres',
  'trino',
  'bigquery',
  'spark',
  'clickhouse',
];

/** Engines the tests run the generated SQL on (real DuckDB from npm, real PostgreSQL 15). */
export const PROVEN_ENGINES: readonly Engine[] = ['duckdb', 'postgres'];

export const ENGINE_NAMES: Readonly<Record<Engine, string>> = {
  duckdb: 'DuckDB',
  postgres: 'PostgreSQL',
  trino: 'Trino / Athena',
  bigquery: 'BigQuery',
  spark: 'Spark SQL',
  clickhouse: 'ClickHouse',
};

/**
 * How the time column holds a request's arrival: a TIMESTAMP, or a number of seconds,
 * milliseconds, microseconds or nanoseconds since 1970 (UTC).
 */
export type TimeUnit = 'timestamp' | 's' | 'ms' | 'us' | 'ns';

/** The person's log table. Names are used as written, each quoted for the engine. */
export interface LogTable {
  /** The table (or view), optionally qualified: `logs`, `analytics.access_logs`. */
  table: string;
  /** The column with the request's time. */
  time: string;
  timeUnit: TimeUnit;
  /**
   * Columns whose values make the limiter's key, joined with ` | ` as the page joins key parts;
   * an empty value is written `-`. Empty list: one key (`all`) for every request.
   */
  key: string[];
  /** The column with the recorded HTTP status; absent: every request counts as allowed. */
  status?: string;
  /**
   * A column that orders requests logged in the same millisecond (a line number, a request id
   * that grows). Absent: the engine picks the order of such ties.
   */
  order?: string;
}

/** What the query returns. */
export type SqlOutput = 'per-key' | 'per-request';

export interface SqlOptions {
  output: SqlOutput;
  /** As the page's dry run: against the recorded 429/503s, or against no limit at all. */
  baseline: 'recorded' | 'no-limit';
  /** With per-request output: only the requests of this many busiest keys (absent: all). */
  topKeys?: number;
}

export type SqlResult =
  | {
      ok: true;
      engine: Engine;
      /** The query (for PostgreSQL and BigQuery, a script: temporary functions, then the query). */
      sql: string;
      /** The output columns, in order. */
      columns: readonly string[];
      /** How the algorithm is computed there, in a sentence. */
      method: string;
      notes: string[];
    }
  | { ok: false; engine: Engine; message: string };

/** The columns of each output, in order (the page reads them back by these names). */
export const PER_KEY_COLUMNS = [
  'key',
  'requests',
  'admitted',
  'delayed',
  'rejected',
  'to_rejected',
  'to_allowed',
  'to_delayed',
] as const;

export const PER_REQUEST_COLUMNS = [
  'key',
  'time_ms',
  'status',
  'outcome',
  'delay_ms',
  'change',
] as const;
