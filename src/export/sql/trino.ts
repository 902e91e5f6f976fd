/**
 * Trino and Amazon Athena (engine version 3 runs Trino). Not run here: every construct below is
 * one whose meaning the Trino documentation states, cited where it is used; tests check the text
 * per construct (tests/export/sql/dialects.test.ts).
 *
 * - reduce(array, initialState, inputFunction, outputFunction), lambdas, ROW state built with
 *   CAST(ROW(…) AS ROW(name type, …)) and read as a.name:
 *   https://trino.io/docs/current/functions/array.html#reduce and
 *   https://trino.io/docs/current/functions/lambda.html
 * - array_agg(x ORDER BY …): https://trino.io/docs/current/functions/aggregate.html#array_agg
 * - array || element, slice(array, start, length), cardinality:
 *   https://trino.io/docs/current/functions/array.html
 * - UNNEST of several arrays side by side (a ROW element expands into its fields), WITH
 *   ORDINALITY:
 *   https://trino.io/docs/current/sql/select.html#unnest
 * - bigint / bigint truncates (our numerators are ≥ 0), least, greatest, round:
 *   https://trino.io/docs/current/functions/math.html
 * - date_diff('millisecond', …): https://trino.io/docs/current/functions/datetime.html
 * - ROW_NUMBER, COUNT over RANGE BETWEEN UNBOUNDED PRECEDING AND n PRECEDING:
 *   https://trino.io/docs/current/sql/select.html#window-clause
 */
import { elementFields, initFields, isList, stepFields } from './fold';
import type { Machine } from './machine';
import { foldFinal, numericMs } from './plan';
import type { Dialect, MachineStage } from './plan';

export const trino: Dialect = {
  engine: 'trino',
  ident: (s) => `"${s}"`,
  str: (s) => `'${s.replace(/'/g, "''")}'`,
  intDiv: (a, b) => `(${a} / ${b})`,
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  text: (x) => `CAST(${x} AS varchar)`,
  concat: (parts) => `concat(${parts.join(', ')})`,
  bigint: (x) => `TRY_CAST(${x} AS bigint)`,
  msOf: (col, unit) =>
    unit === 'timestamp'
      ? `date_diff('millisecond', TIMESTAMP '1970-01-01 00:00:00', ${col})`
      : numericMs(col, unit, 'bigint', '/'),
  limit: (n) => `LIMIT ${n}`,
  rangeFrames: true,
  foldMethod:
    'a fold of each key\u2019s requests in time order (reduce over array_agg(… ORDER BY t, seq)) with the limiter\u2019s state as a ROW of bigints',
  machine(m: Machine, input: string, perKey: boolean): MachineStage {
    const el = elementFields(m, false);
    const elType = `ROW(${el.map((n) => `${n} bigint`).join(', ')})`;
    const init = initFields(m, perKey, (v) => `${v}`, 'CAST(ARRAY[] AS array(bigint))');
    const accType = `ROW(${init.map(([n]) => `${n} ${isList(n) ? 'array(bigint)' : 'bigint'}`).join(', ')})`;
    const row = (fields: [string, string][]) =>
      `CAST(ROW(${fields.map(([, v]) => v).join(', ')}) AS ${accType})`;
    const step = stepFields(
      m,
      trino,
      perKey,
      (n) => `a.${n}`,
      (n) => `x.${n}`,
      (l, v) => `(${l} || ${v})`,
    );
    const ctes: [string, string][] = [
      [
        'g',
        `SELECT k, array_agg(CAST(ROW(${el.join(', ')}) AS ${elType}) ORDER BY t, seq) AS els\n  FROM ${input}\n  GROUP BY k`,
      ],
      [
        'fr',
        `SELECT k, els, reduce(els, ${row(init)}, (a, x) -> ${row(step)}, a -> a) AS f\n  FROM g`,
      ],
    ];
    if (perKey) {
      ctes.push(['s', `SELECT k,\n    ${foldFinal((n) => `f.${n}`)}\n  FROM fr`]);
      return { prelude: '', ctes, ends: 's' };
    }
    ctes.push([
      'd',
      `SELECT k, u.t, u.st, u.seq, u.wr, u.o, u.dl
  FROM fr
  CROSS JOIN UNNEST(
    els,
    slice(f.ol || f.o, 2, cardinality(els)),
    slice(f.dll || f.dl, 2, cardinality(els))
  ) WITH ORDINALITY AS u(${[...el, 'o', 'dl', 'seq'].join(', ')})`,
    ]);
    return { prelude: '', ctes, ends: 'd' };
  },
};
