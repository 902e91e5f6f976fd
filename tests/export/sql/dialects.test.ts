/**
 * The engines that cannot run here (Trino/Athena, BigQuery, Spark SQL, ClickHouse): their queries
 * come from the same plan as the proven ones (tests/export/sql/duckdb.test.ts, postgres.server
 * .test.ts) and use only constructs each engine documents (cited in src/export/sql/<engine>.ts).
 * Checked here per construct: every function the text calls is on the engine's documented list,
 * no other engine's syntax slips in, brackets and quotes balance, the fold and the output have
 * the engine's shape; and BigQuery's JavaScript UDF, the one piece of code, runs against core.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../../src/core';
import { generateSql } from '../../../src/export/sql';
import { EXACTNESS } from '../../../src/export/sql/exactness';
import { machineJs } from '../../../src/export/sql/bigquery';
import { machineFor, nginxExpiryMatters } from '../../../src/export/sql/machine';
import type { Engine, SqlOptions } from '../../../src/export/sql/types';
import { ENGINES } from '../../../src/export/sql/types';
import { FC_SEED, configArb, runs } from '../../core/arbitraries';
import { TABLE, TYPICAL } from './proof';
import { coreDecisions } from './proof';
import { traceArb } from './traces';

/** Functions (and function-like keywords) each engine's documentation defines, lower case. */
const COMMON = [
  'cast',
  'coalesce',
  'nullif',
  'count',
  'sum',
  'min',
  'row_number',
  'over',
  'in',
  'as',
];
const DOCUMENTED: Record<Engine, string[]> = {
  duckdb: [
    ...COMMON,
    'epoch_ms',
    'round',
    'floor',
    'least',
    'greatest',
    'concat',
    'try_cast',
    'list',
    'list_reduce',
    'list_append',
    'unnest',
    'generate_series',
    'len',
  ],
  postgres: [
    ...COMMON,
    'extract',
    'round',
    'floor',
    'least',
    'greatest',
    'array',
    'rll_step',
    'rll_fold',
    'bigint',
  ],
  trino: [
    ...COMMON,
    'date_diff',
    'round',
    'floor',
    'least',
    'greatest',
    'concat',
    'try_cast',
    'array_agg',
    'row',
    'reduce',
    'slice',
    'cardinality',
    'array',
    'u',
    'unnest',
  ],
  bigquery: [
    ...COMMON,
    'unix_millis',
    'round',
    'floor',
    'div',
    'least',
    'greatest',
    'concat',
    'safe_cast',
    'array_agg',
    'struct',
    'unnest',
    'rll_fold',
    'array',
    'float64',
    'int64',
  ],
  spark: [
    ...COMMON,
    'unix_millis',
    'round',
    'floor',
    'least',
    'greatest',
    'concat',
    'try_cast',
    'collect_list',
    'array_sort',
    'named_struct',
    'aggregate',
    'array',
    'slice',
    'size',
    'posexplode',
  ],
  clickhouse: [
    ...COMMON,
    'touint64',
    'tounixtimestamp64milli',
    'todatetime64',
    'toint64',
    'toint64ornull',
    'tostring',
    'round',
    'floor',
    'intdiv',
    'least',
    'greatest',
    'concat',
    'grouparray',
    'arraysort',
    'tuple',
    'tupleelement',
    'arrayfold',
    'arraypushback',
    'arrayslice',
    'arrayenumerate',
    'array',
  ],
};
/** Keywords that may stand before a bracket (a condition, a subquery). */
const KEYWORDS = [
  'when',
  'then',
  'else',
  'and',
  'or',
  'not',
  'from',
  'select',
  'where',
  'join',
  'on',
  'by',
  'with',
  'returns',
];
/** Syntax that belongs to another engine and must not appear. */
const FOREIGN: Record<Engine, RegExp[]> = {
  duckdb: [],
  postgres: [],
  trino: [/\/\//, /::/, /`/, /\bdiv\b/i, /list_reduce|arrayFold|named_struct/],
  bigquery: [/\/\//, /::/, /"[a-z_]+"/, /list_reduce|arrayFold|named_struct|reduce\(/],
  spark: [/\/\//, /::/, /"[a-z_]+"/, /list_reduce|arrayFold|reduce\(/],
  clickhouse: [/\/\//, /::/, /\bdiv\b/i, /list_reduce|named_struct|reduce\(/],
};

/** The SQL with string literals, quoted names and the JavaScript body blanked out. */
function code(sql: string): string {
  return sql
    .replace(/r"""[\s\S]*?"""/g, 'r""""""')
    .replace(/'(?:[^'\\]|''|\\.)*'/g, "''")
    .replace(/"[^"]*"/g, '""')
    .replace(/`[^`]*`/g, '``');
}

function calls(sql: string): Set<string> {
  const out = new Set<string>();
  for (const m of code(sql).matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)) {
    out.add((m[1] as string).toLowerCase());
  }
  return out;
}

function balanced(sql: string): boolean {
  let depth = 0;
  for (const ch of code(sql)) {
    if (ch === '(' || ch === '[' || ch === '{') depth += 1;
    if (ch === ')' || ch === ']' || ch === '}') depth -= 1;
    if (depth < 0) return false;
  }
  return depth === 0;
}

const OPTIONS: SqlOptions[] = [
  { output: 'per-key', baseline: 'recorded' },
  { output: 'per-request', baseline: 'no-limit', topKeys: 20 },
];

/** Algorithm words, as in the exactness table, for a config. */
const SHAPES: Record<Engine, RegExp> = {
  duckdb: /list_reduce\(els, lambda a, x:/,
  postgres: /CREATE OR REPLACE AGGREGATE pg_temp\.rll_fold/,
  trino: /reduce\(els, CAST\(ROW\(/,
  bigquery: /CREATE TEMP FUNCTION rll_fold\(xs ARRAY<STRUCT<t FLOAT64/,
  spark: /aggregate\(els, named_struct\(/,
  clickhouse: /arrayFold\(\(acc, x\) -> tuple\(/,
};

describe('the queries of every engine, per construct', () => {
  for (const engine of ENGINES) {
    it(`${engine}: only documented functions, no foreign syntax, balanced, the engine's fold`, () => {
      for (const config of TYPICAL) {
        for (const options of OPTIONS) {
          const r = generateSql(engine, config, { ...TABLE, timeUnit: 'timestamp' }, options);
          if (!r.ok) throw new Error(`${engine} ${config.kind}: ${r.message}`);
          const undocumented = [...calls(r.sql)].filter(
            (f) => !DOCUMENTED[engine].includes(f) && !KEYWORDS.includes(f),
          );
          expect(undocumented, `${engine} ${config.kind}`).toEqual([]);
          for (const re of FOREIGN[engine]) expect(code(r.sql)).not.toMatch(re);
          expect(balanced(r.sql)).toBe(true);
          const stateful = config.kind !== 'fixed-window' && config.kind !== 'sliding-log';
          if (stateful) expect(r.sql).toMatch(SHAPES[engine]);
          else expect(r.sql).toMatch(/ROW_NUMBER\(\) OVER \(PARTITION BY k/);
          expect(r.columns[0]).toBe('key');
        }
      }
    });
  }

  it('names are quoted for each engine and a name that cannot be quoted is refused', () => {
    const table = { ...TABLE, table: 'analytics.access logs', key: ['client ip'] };
    const config: AlgorithmConfig = { kind: 'fixed-window', limit: 5, windowMs: 1000 };
    const opts = OPTIONS[0] as SqlOptions;
    const sql = (e: Engine) => {
      const r = generateSql(e, config, table, opts);
      return r.ok ? r.sql : r.message;
    };
    expect(sql('trino')).toContain('FROM "analytics"."access logs"');
    expect(sql('bigquery')).toContain('FROM `analytics`.`access logs`');
    expect(sql('clickhouse')).toContain('`client ip`');
    const bad = generateSql('spark', config, { ...table, time: 'a`b' }, opts);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/The time column contains `/);
    const nl = generateSql('postgres', config, { ...table, status: 'a\nb' }, opts);
    expect(nl.ok ? '' : nl.message).toMatch(/status column contains a control character/);
  });

  it('refuses what no engine expresses exactly, saying why', () => {
    const opts = OPTIONS[0] as SqlOptions;
    const log = generateSql(
      'duckdb',
      { kind: 'sliding-log', limit: 3, windowMs: 1000 },
      TABLE,
      opts,
    );
    expect(log.ok ? '' : log.message).toMatch(/only admitted requests/);
    const nginx = generateSql(
      'trino',
      { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/m', burst: 0, delay: 'nodelay' },
      TABLE,
      opts,
    );
    expect(nginx.ok ? '' : nginx.message).toMatch(/ngx_http_limit_req_expire/);
    // The exactness table says the same.
    const row = EXACTNESS.find((r) => r.algorithm.startsWith('sliding log (admitted'));
    expect(Object.values(row?.engines ?? {}).every((v) => v === null)).toBe(true);
  });
});

describe("BigQuery's JavaScript UDF equals core", () => {
  const kinds = [
    'token-bucket',
    'gcra',
    'leaky-bucket',
    'sliding-window-counter',
    'anchored-window',
    'calendar-windows',
  ] as const;
  for (const kind of kinds) {
    it(`${kind}: every decision`, () => {
      const arb = configArb[kind].filter(
        (c) => c.kind !== 'leaky-bucket' || !nginxExpiryMatters(c),
      );
      fc.assert(
        fc.property(arb, traceArb, (config, rows) => {
          const m = machineFor(config);
          // The UDF's body is the text the query carries: run as BigQuery runs it, as a function.
          // eslint-disable-next-line @typescript-eslint/no-implied-eval
          const udf = new Function('xs', machineJs(m, false)) as (
            xs: Record<string, number>[],
          ) => { o: number; dl: number }[];
          const want = coreDecisions(config, rows);
          const byKey = new Map<string, number[]>();
          rows.forEach((r, i) => byKey.set(r.key, [...(byKey.get(r.key) ?? []), i]));
          for (const idx of byKey.values()) {
            const xs = idx.map((i) => ({ t: (rows[i] as { t: number }).t, st: 200, wr: 0 }));
            const got = udf(xs);
            idx.forEach((i, j) => {
              expect([got[j]?.o, got[j]?.dl]).toEqual([want[i]?.outcome, want[i]?.delay]);
            });
          }
        }),
        { seed: FC_SEED, numRuns: runs(150) },
      );
    });
  }
});

describe('what the query’s times count from: the page’s dry run, nothing to choose', () => {
  const opts: SqlOptions = { output: 'per-request', baseline: 'recorded', topKeys: 5 };
  const sql = (config: AlgorithmConfig, o: SqlOptions = opts) => {
    const r = generateSql('duckdb', config, TABLE, o);
    if (!r.ok) throw new Error(r.message);
    return r;
  };

  it('windows from the start of the clock’s window holding the first request; others from it', () => {
    expect(sql({ kind: 'fixed-window', limit: 3, windowMs: 7000 }).sql).toContain(
      'SELECT o0, (o0 // 7000) * 7000 AS ob',
    );
    expect(sql({ kind: 'sliding-window-counter', limit: 3, windowMs: 500 }).sql).toContain(
      'SELECT o0, (o0 // 500) * 500 AS ob',
    );
    expect(sql({ kind: 'calendar-windows', minute: 3 }).sql).toContain('SELECT o0, 0 AS ob');
    const gcra = sql({ kind: 'gcra', count: 3, periodMs: 1000, burst: 1 });
    expect(gcra.sql).toContain('SELECT o0, o0 AS ob');
    // time_ms is ms since the first request whatever the times count from.
    expect(gcra.sql).toMatch(/^ {2}t AS time_ms,$/m);
    expect(sql({ kind: 'calendar-windows', minute: 3 }).sql).toMatch(
      /^ {2}t \+ \(SELECT ob - o0 FROM o\) AS time_ms,$/m,
    );
    expect(gcra.notes.join(' ')).toMatch(/windows and calendar periods are on the UTC clock/);
  });

  it('an old caller’s `origin` option is ignored: the same query, no error', () => {
    const config: AlgorithmConfig = { kind: 'fixed-window', limit: 3, windowMs: 1000 };
    for (const origin of ['first-request', 'epoch']) {
      const old = { ...opts, origin } as SqlOptions;
      expect(sql(config, old)).toEqual(sql(config));
    }
  });
});
