/**
 * DuckDB (checked with DuckDB 1.5.6 from npm, `@duckdb/node-api`). The stateful limiters fold each
 * key's requests with `list_reduce` over `list(… ORDER BY t, seq)`; the per-request output keeps the
 * fold's outcomes in a list and unnests it beside the requests.
 *
 * Documentation followed:
 * - list_reduce(list, lambda, initial_value), `lambda a, x:` syntax:
 *   https://duckdb.org/docs/stable/sql/functions/lambda (the initial value must have the list
 *   child's type, so every element carries the accumulator's fields as NULLs and back).
 * - list(x ORDER BY …) aggregate: https://duckdb.org/docs/stable/sql/functions/aggregates
 * - `//` integer division, least / greatest: https://duckdb.org/docs/stable/sql/functions/numeric
 * - unnest of several lists in one SELECT (zipped): https://duckdb.org/docs/stable/sql/query_syntax/unnest
 * - epoch_ms(timestamp): https://duckdb.org/docs/stable/sql/functions/timestamp
 */
import type { Machine } from './machine';
import { foldFinal, foldInit, foldStep, inlineScope, numericMs } from './plan';
import type { Dialect, MachineStage } from './plan';

const ident = (s: string) => `"${s}"`;

export const duckdb: Dialect = {
  engine: 'duckdb',
  ident,
  str: (s) => `'${s.replace(/'/g, "''")}'`,
  intDiv: (a, b) => `(${a} // ${b})`,
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  text: (x) => `CAST(${x} AS VARCHAR)`,
  concat: (parts) => `concat(${parts.join(', ')})`,
  bigint: (x) => `TRY_CAST(${x} AS BIGINT)`,
  msOf: (col, unit) =>
    unit === 'timestamp' ? `epoch_ms(${col})` : numericMs(col, unit, 'BIGINT', '//'),
  limit: (n) => `LIMIT ${n}`,
  rangeFrames: true,
  foldMethod:
    'a fold of each key\u2019s requests in time order (list_reduce over list(… ORDER BY t, seq)), carrying the limiter\u2019s state as whole numbers',
  machine(m: Machine, input: string, perKey: boolean): MachineStage {
    // One struct type for the elements and the accumulator (list_reduce's rule): the request's
    // fields, then the accumulator's.
    const elFields = ['t', 'st', 'wr', ...m.pre.map(([n]) => n)];
    const init = foldInit(m, perKey);
    const accFields = init.map(([n]) => n);
    const nul = (n: string) => (n === 'ol' || n === 'dll' ? 'NULL::BIGINT[]' : 'NULL::BIGINT');
    const struct = (vals: Map<string, string>) =>
      `{${[...elFields, ...accFields].map((n) => `'${n}': ${vals.get(n) ?? nul(n)}`).join(', ')}}`;
    const element = struct(new Map(elFields.map((n) => [n, `CAST(${n} AS BIGINT)`])));
    const initStruct = struct(
      new Map(init.map(([n, v]) => [n, v === 'list' ? '[]::BIGINT[]' : `CAST(${v} AS BIGINT)`])),
    );
    const scope = inlineScope(
      m,
      duckdb,
      (n) => `a.${n}`,
      (n) => `x.${n}`,
    );
    const step = foldStep(m, duckdb, scope, perKey, (l, v) => `list_append(${l}, ${v})`);
    const body = struct(new Map(step));
    const ctes: [string, string][] = [
      ['g', `SELECT k, list(${element} ORDER BY t, seq) AS els\n  FROM ${input}\n  GROUP BY k`],
      ['fr', `SELECT k, els, list_reduce(els, lambda a, x: ${body}, ${initStruct}) AS f\n  FROM g`],
    ];
    if (perKey) {
      ctes.push(['s', `SELECT k,\n    ${foldFinal((n) => `f.${n}`)}\n  FROM fr`]);
      return { prelude: '', ctes, ends: 's' };
    }
    ctes.push([
      'd',
      `SELECT k, x.t AS t, x.st AS st, seq, x.wr AS wr, o, dl
  FROM (
    SELECT k,
      unnest(els) AS x,
      unnest(generate_series(1, len(els))) AS seq,
      unnest(list_append(f.ol, f.o)[2:]) AS o,
      unnest(list_append(f.dll, f.dl)[2:]) AS dl
    FROM fr
  )`,
    ]);
    return { prelude: '', ctes, ends: 'd' };
  },
};
