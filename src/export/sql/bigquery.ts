/**
 * BigQuery (GoogleSQL). Not run here: every construct below is one whose meaning the BigQuery
 * documentation states, cited where it is used; tests check the text per construct and run the
 * JavaScript UDF's body against core (tests/export/sql/dialects.test.ts).
 *
 * The stateful limiters are a temporary JavaScript UDF carrying the limiter's step (rendered from
 * the same machine as every other engine's fold), called once per key on its requests in time
 * order. JavaScript has no 64-bit integer, and BigQuery does not take INT64 as a JavaScript UDF's
 * argument, so values cross as FLOAT64: every value is a whole number below 2^53 (machine.ts), so
 * FLOAT64 holds it exactly, and the UDF divides with a corrected floor as core does.
 *
 * - CREATE TEMP FUNCTION … LANGUAGE js, SQL type encodings in JavaScript (FLOAT64 → Number,
 *   ARRAY → Array, STRUCT → Object): https://cloud.google.com/bigquery/docs/user-defined-functions
 * - ARRAY_AGG(… ORDER BY …), STRUCT(… AS name): https://cloud.google.com/bigquery/docs/reference/standard-sql/aggregate_functions#array_agg
 * - UNNEST … WITH OFFSET: https://cloud.google.com/bigquery/docs/reference/standard-sql/query-syntax#unnest_operator
 * - DIV(x, y) (integer division), LEAST, GREATEST, ROUND, SAFE_CAST:
 *   https://cloud.google.com/bigquery/docs/reference/standard-sql/mathematical_functions#div
 * - UNIX_MILLIS(timestamp): https://cloud.google.com/bigquery/docs/reference/standard-sql/timestamp_functions#unix_millis
 * - window frames RANGE BETWEEN UNBOUNDED PRECEDING AND n PRECEDING (numeric ORDER BY):
 *   https://cloud.google.com/bigquery/docs/reference/standard-sql/window-function-calls
 */
import type { Ex, Machine } from './machine';
import type { Dialect, MachineStage } from './plan';
import type { TimeUnit } from './types';

/**
 * A machine expression as JavaScript over `x` (the request: t, st, wr), `p` (its per-request
 * values), `s` (the state) and `l` (lets).
 */
export function jsEx(e: Ex): string {
  switch (e.op) {
    case 'num':
      return e.v < 0 ? `(${e.v})` : String(e.v);
    case 'in':
      return e.name === 't' ? 'x.t' : `p.${e.name}`;
    case 'st':
      return `s.${e.name}`;
    case 'let':
      return `l.${e.name}`;
    case '+':
    case '-':
    case '*':
      return `(${jsEx(e.a)} ${e.op} ${jsEx(e.b)})`;
    case 'div':
      return `fd(${jsEx(e.a)}, ${jsEx(e.b)})`;
    case '=':
      return `(${jsEx(e.a)} === ${jsEx(e.b)})`;
    case '<>':
      return `(${jsEx(e.a)} !== ${jsEx(e.b)})`;
    case '<':
    case '<=':
    case '>':
    case '>=':
      return `(${jsEx(e.a)} ${e.op} ${jsEx(e.b)})`;
    case 'and':
      return `(${e.args.map(jsEx).join(' && ')})`;
    case 'or':
      return `(${e.args.map(jsEx).join(' || ')})`;
    case 'not':
      return `(!${jsEx(e.a)})`;
    case 'if':
      return `(${jsEx(e.c)} ? ${jsEx(e.a)} : ${jsEx(e.b)})`;
    case 'min':
      return `Math.min(${jsEx(e.a)}, ${jsEx(e.b)})`;
    case 'max':
      return `Math.max(${jsEx(e.a)}, ${jsEx(e.b)})`;
  }
}

/**
 * The UDF's body: a function of `xs` (one key's requests in time order, each {t, st, wr}); the
 * per-request values (`pre`) are computed here, not in SQL layers (see Dialect.preInStep).
 * Per request it returns [{t, st, wr, o, dl}]; per key, {admitted, …, to_delayed}.
 */
export function machineJs(m: Machine, perKey: boolean): string {
  const lines = [
    '// ⌊a / b⌋ for whole a and b > 0, corrected where the float quotient rounds (as core).',
    'const fd = (a, b) => { let q = Math.floor(a / b); if (q * b > a) q -= 1; else if ((q + 1) * b <= a) q += 1; return q; };',
    `let s = { ${m.state.map(([n, v]) => `${n}: ${v}`).join(', ')} };`,
    perKey
      ? 'const c = { admitted: 0, delayed: 0, rejected: 0, to_rejected: 0, to_allowed: 0, to_delayed: 0 };'
      : 'const out = [];',
    'for (const x of xs) {',
    '  const p = {};',
    '  const l = {};',
    ...m.pre.map(([n, e]) => `  p.${n} = ${jsEx(e)};`),
    ...m.lets.map(([n, e]) => `  l.${n} = ${jsEx(e)};`),
    `  const o = ${jsEx(m.outcome)};`,
    `  const dl = ${jsEx(m.delay)};`,
    `  s = { ${m.state.map(([n], i) => `${n}: ${jsEx(m.next[i] as Ex)}`).join(', ')} };`,
    ...(perKey
      ? [
          "  c[o === 0 ? 'admitted' : o === 1 ? 'delayed' : 'rejected'] += 1;",
          '  if (x.wr === 0 && o === 2) c.to_rejected += 1;',
          '  if (x.wr === 1 && o !== 2) c.to_allowed += 1;',
          '  if (x.wr === 0 && o === 1) c.to_delayed += 1;',
        ]
      : ['  out.push({ t: x.t, st: x.st, wr: x.wr, o, dl });']),
    '}',
    perKey ? 'return c;' : 'return out;',
  ];
  return lines.join('\n');
}

export const bigquery: Dialect = {
  engine: 'bigquery',
  ident: (s) => `\`${s}\``,
  str: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  intDiv: (a, b) => `DIV(${a}, ${b})`,
  least: (a, b) => `LEAST(${a}, ${b})`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  text: (x) => `CAST(${x} AS STRING)`,
  concat: (parts) => `CONCAT(${parts.join(', ')})`,
  bigint: (x) => `SAFE_CAST(${x} AS INT64)`,
  msOf(col: string, unit: TimeUnit): string {
    switch (unit) {
      case 'timestamp':
        return `UNIX_MILLIS(${col})`;
      case 's':
        return `CAST(ROUND(${col} * 1000) AS INT64)`;
      case 'ms':
        return `CAST(FLOOR(${col}) AS INT64)`;
      case 'us':
        return `DIV(CAST(${col} AS INT64), 1000)`;
      case 'ns':
        return `DIV(CAST(${col} AS INT64), 1000000)`;
    }
  },
  limit: (n) => `LIMIT ${n}`,
  rangeFrames: true,
  preInStep: true,
  foldMethod:
    'a temporary JavaScript UDF carrying the limiter\u2019s step, called once per key on its requests in time order (ARRAY_AGG(… ORDER BY t, seq))',
  machine(m: Machine, input: string, perKey: boolean): MachineStage {
    const fields = ['t', 'st', 'wr'];
    const argType = `ARRAY<STRUCT<${fields.map((n) => `${n} FLOAT64`).join(', ')}>>`;
    const counters = ['admitted', 'delayed', 'rejected', 'to_rejected', 'to_allowed', 'to_delayed'];
    const returns = perKey
      ? `STRUCT<${counters.map((n) => `${n} FLOAT64`).join(', ')}>`
      : 'ARRAY<STRUCT<t FLOAT64, st FLOAT64, wr FLOAT64, o FLOAT64, dl FLOAT64>>';
    const prelude = `CREATE TEMP FUNCTION rll_fold(xs ${argType})
RETURNS ${returns}
LANGUAGE js AS r"""
${machineJs(m, perKey)}
""";
`;
    const g: [string, string] = [
      'g',
      `SELECT k, ARRAY_AGG(STRUCT(${fields.map((n) => `CAST(${n} AS FLOAT64) AS ${n}`).join(', ')}) ORDER BY t, seq) AS els\n  FROM ${input}\n  GROUP BY k`,
    ];
    if (perKey) {
      return {
        prelude,
        ctes: [
          g,
          [
            's',
            `SELECT k, ${counters.map((n) => `CAST(f.${n} AS INT64) AS ${n}`).join(', ')}
  FROM (SELECT k, rll_fold(els) AS f FROM g)`,
          ],
        ],
        ends: 's',
      };
    }
    return {
      prelude,
      ctes: [
        g,
        [
          'd',
          `SELECT k, CAST(y.t AS INT64) AS t, CAST(y.st AS INT64) AS st, i AS seq, CAST(y.wr AS INT64) AS wr,
    CAST(y.o AS INT64) AS o, CAST(y.dl AS INT64) AS dl
  FROM g, UNNEST(rll_fold(g.els)) AS y WITH OFFSET AS i`,
        ],
      ],
      ends: 'd',
    };
  },
};
