/**
 * Spark SQL (3.1 or later; Databricks SQL too). Not run here: every construct below is one whose
 * meaning the Spark SQL documentation states, cited where it is used; tests check the text per
 * construct (tests/export/sql/dialects.test.ts).
 *
 * - aggregate(expr, start, merge, finish): the accumulator has start's type, so every field is
 *   cast to BIGINT: https://spark.apache.org/docs/latest/api/sql/index.html#aggregate
 * - named_struct, struct fields read as a.name: https://spark.apache.org/docs/latest/api/sql/index.html#named_struct
 * - collect_list, array_sort (structs compare field by field), concat of arrays, array, size,
 *   slice: https://spark.apache.org/docs/latest/api/sql/index.html#array_sort
 * - posexplode (0-based positions), arr[i] (0-based):
 *   https://spark.apache.org/docs/latest/api/sql/index.html#posexplode
 * - `div` (integral division), least, greatest, round:
 *   https://spark.apache.org/docs/latest/api/sql/index.html#div
 * - unix_millis(timestamp): https://spark.apache.org/docs/latest/api/sql/index.html#unix_millis
 * - window frames RANGE BETWEEN UNBOUNDED PRECEDING AND n PRECEDING:
 *   https://spark.apache.org/docs/latest/sql-ref-syntax-qry-select-window.html
 */
import { elementFields, initFields, isList, stepFields } from './fold';
import type { Machine } from './machine';
import { foldFinal, numericMs } from './plan';
import type { Dialect, MachineStage } from './plan';

const big = (x: string) => `CAST(${x} AS BIGINT)`;

export const spark: Dialect = {
  engine: 'spark',
  ident: (s) => `\`${s}\``,
  str: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  intDiv: (a, b) => `(${a} div ${b})`,
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  text: (x) => `CAST(${x} AS STRING)`,
  concat: (parts) => `concat(${parts.join(', ')})`,
  bigint: (x) => `TRY_CAST(${x} AS BIGINT)`,
  msOf: (col, unit) =>
    unit === 'timestamp' ? `unix_millis(${col})` : numericMs(col, unit, 'BIGINT', 'div'),
  limit: (n) => `LIMIT ${n}`,
  rangeFrames: true,
  foldMethod:
    'a fold of each key\u2019s requests in time order (aggregate over array_sort(collect_list(named_struct(t, seq, …)))) with the limiter\u2019s state as a struct of BIGINTs',
  machine(m: Machine, input: string, perKey: boolean): MachineStage {
    const el = elementFields(m, true);
    const struct = (fields: [string, string][]) =>
      `named_struct(${fields.map(([n, v]) => `'${n}', ${isList(n) ? v : big(v)}`).join(', ')})`;
    const init = initFields(m, perKey, (v) => `${v}`, 'CAST(array() AS ARRAY<BIGINT>)');
    const step = stepFields(
      m,
      spark,
      perKey,
      (n) => `a.${n}`,
      (n) => `x.${n}`,
      (l, v) => `concat(${l}, array(${big(v)}))`,
    );
    const ctes: [string, string][] = [
      [
        'g',
        `SELECT k, array_sort(collect_list(named_struct(${el.map((n) => `'${n}', ${n === 'seq' ? n : big(n)}`).join(', ')}))) AS els\n  FROM ${input}\n  GROUP BY k`,
      ],
      [
        'fr',
        `SELECT k, els, aggregate(els, ${struct(init)}, (a, x) -> ${struct(step)}, a -> a) AS f\n  FROM g`,
      ],
    ];
    if (perKey) {
      ctes.push(['s', `SELECT k,\n    ${foldFinal((n) => `f.${n}`)}\n  FROM fr`]);
      return { prelude: '', ctes, ends: 's' };
    }
    ctes.push(
      [
        'fl',
        `SELECT k, els,
    slice(concat(f.ol, array(f.o)), 2, size(els)) AS ols,
    slice(concat(f.dll, array(f.dl)), 2, size(els)) AS dls
  FROM fr`,
      ],
      [
        'd',
        `SELECT k, x.t AS t, x.st AS st, pos AS seq, x.wr AS wr, ols[pos] AS o, dls[pos] AS dl
  FROM (SELECT k, ols, dls, posexplode(els) AS (pos, x) FROM fl)`,
      ],
    );
    return { prelude: '', ctes, ends: 'd' };
  },
};
