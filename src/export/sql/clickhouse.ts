/**
 * ClickHouse (23.10 or later: arrayFold takes the accumulator first). Not run here: every
 * construct below is one whose meaning the ClickHouse documentation states, cited where it is
 * used; tests check the text per construct (tests/export/sql/dialects.test.ts).
 *
 * - arrayFold(lambda(acc, x), arr, initial): the lambda returns the accumulator's type, so every
 *   field is toInt64: https://clickhouse.com/docs/sql-reference/functions/array-functions#arrayFold
 * - tuple, tupleElement(t, n): https://clickhouse.com/docs/sql-reference/functions/tuple-functions
 * - groupArray, arraySort (tuples compare element by element), arrayPushBack, arraySlice,
 *   length: https://clickhouse.com/docs/sql-reference/functions/array-functions
 * - ARRAY JOIN of several arrays of one length, side by side:
 *   https://clickhouse.com/docs/sql-reference/statements/select/array-join
 * - intDiv (rounds down; our numerators are ≥ 0), least, greatest, round:
 *   https://clickhouse.com/docs/sql-reference/functions/arithmetic-functions#intDiv
 * - toUnixTimestamp64Milli(DateTime64): https://clickhouse.com/docs/sql-reference/functions/type-conversion-functions#toUnixTimestamp64Milli
 * - window functions, RANGE BETWEEN UNBOUNDED PRECEDING AND n PRECEDING:
 *   https://clickhouse.com/docs/sql-reference/window-functions
 */
import { elementFields, initFields, isList, stepFields } from './fold';
import type { Machine } from './machine';
import { foldFinal } from './plan';
import type { Dialect, MachineStage } from './plan';
import type { TimeUnit } from './types';

const i64 = (x: string) => `toInt64(${x})`;

export const clickhouse: Dialect = {
  engine: 'clickhouse',
  ident: (s) => `\`${s}\``,
  str: (s) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  intDiv: (a, b) => `intDiv(${a}, ${b})`,
  least: (a, b) => `least(${a}, ${b})`,
  greatest: (a, b) => `greatest(${a}, ${b})`,
  text: (x) => `toString(${x})`,
  concat: (parts) => `concat(${parts.join(', ')})`,
  bigint: (x) => `toInt64OrNull(toString(${x}))`,
  msOf(col: string, unit: TimeUnit): string {
    switch (unit) {
      case 'timestamp':
        return `toUnixTimestamp64Milli(toDateTime64(${col}, 3))`;
      case 's':
        return `toInt64(round(${col} * 1000))`;
      case 'ms':
        return `toInt64(floor(${col}))`;
      case 'us':
        return `intDiv(toInt64(${col}), 1000)`;
      case 'ns':
        return `intDiv(toInt64(${col}), 1000000)`;
    }
  },
  limit: (n) => `LIMIT ${n}`,
  rangeFrames: true,
  foldMethod:
    'a fold of each key\u2019s requests in time order (arrayFold over arraySort(groupArray(tuple(t, seq, …)))) with the limiter\u2019s state as a tuple of Int64',
  machine(m: Machine, input: string, perKey: boolean): MachineStage {
    const el = elementFields(m, true);
    const elIndex = new Map(el.map((n, i) => [n, i + 1]));
    const init = initFields(m, perKey, (v) => `${v}`, 'CAST([] AS Array(Int64))');
    const accIndex = new Map(init.map(([n], i) => [n, i + 1]));
    const tuple = (fields: [string, string][]) =>
      `tuple(${fields.map(([n, v]) => (isList(n) ? v : i64(v))).join(', ')})`;
    const step = stepFields(
      m,
      clickhouse,
      perKey,
      (n) => `tupleElement(acc, ${accIndex.get(n) as number})`,
      (n) => `tupleElement(x, ${elIndex.get(n) as number})`,
      (l, v) => `arrayPushBack(${l}, ${i64(v)})`,
    );
    const f = (n: string) => `tupleElement(f, ${accIndex.get(n) as number})`;
    const ctes: [string, string][] = [
      [
        'g',
        `SELECT k, arraySort(groupArray(tuple(${el.map((n) => (n === 'seq' ? n : i64(n))).join(', ')}))) AS els\n  FROM ${input}\n  GROUP BY k`,
      ],
      [
        'fr',
        `SELECT k, els, arrayFold((acc, x) -> ${tuple(step)}, els, ${tuple(init)}) AS f\n  FROM g`,
      ],
    ];
    if (perKey) {
      ctes.push(['s', `SELECT k,\n    ${foldFinal(f)}\n  FROM fr`]);
      return { prelude: '', ctes, ends: 's' };
    }
    const e = (n: string) => `tupleElement(x, ${elIndex.get(n) as number})`;
    ctes.push([
      'd',
      `SELECT k, ${e('t')} AS t, ${e('st')} AS st, seq, ${e('wr')} AS wr, o, dl
  FROM (
    SELECT k, els,
      arraySlice(arrayPushBack(${f('ol')}, ${f('o')}), 2) AS ols,
      arraySlice(arrayPushBack(${f('dll')}, ${f('dl')}), 2) AS dls,
      arrayEnumerate(els) AS ids
    FROM fr
  )
  ARRAY JOIN els AS x, ols AS o, dls AS dl, ids AS seq`,
    ]);
    return { prelude: '', ctes, ends: 'd' };
  },
};
