/**
 * PostgreSQL (checked with PostgreSQL 15). The stateful limiters are a user-defined aggregate made
 * for the session (`pg_temp`): a PL/pgSQL step function over the state as a bigint[], used as a
 * running window aggregate per key, which gives every request's decision in one ordered pass.
 *
 * Documentation followed (PostgreSQL 15):
 * - CREATE AGGREGATE (SFUNC, STYPE, INITCOND): https://www.postgresql.org/docs/15/sql-createaggregate.html
 * - aggregates as window functions, the frame ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW:
 *   https://www.postgresql.org/docs/15/sql-expressions.html#SYNTAX-WINDOW-FUNCTIONS
 * - functions in pg_temp, called schema-qualified: https://www.postgresql.org/docs/15/runtime-config-client.html#GUC-SEARCH-PATH
 * - PL/pgSQL: https://www.postgresql.org/docs/15/plpgsql.html
 * - bigint / bigint truncates toward zero (our numerators are ≥ 0):
 *   https://www.postgresql.org/docs/15/functions-math.html
 * - EXTRACT(EPOCH FROM …) is numeric (exact): https://www.postgresql.org/docs/15/functions-datetime.html
 */
import type { Machine } from './machine';
import { renderEx, numericMs } from './plan';
import type { Dialect, MachineStage, Scope } from './plan';

export const postgres: Dialect = {
  engine: 'postgres',
  ident: (s) => `"${s}"`,
  str: (s) => `'${s.replace(/'/g, "''")}'`,
  intDiv: (a, b) => `(${a} / ${b})`,
  least: (a, b) => `LEAST(${a}, ${b})`,
  greatest: (a, b) => `GREATEST(${a}, ${b})`,
  text: (x) => `CAST(${x} AS text)`,
  concat: (parts) => `(${parts.join(' || ')})`,
  bigint: (x) => `CAST(${x} AS bigint)`,
  msOf: (col, unit) =>
    unit === 'timestamp'
      ? `CAST(floor(EXTRACT(EPOCH FROM ${col}) * 1000) AS bigint)`
      : numericMs(col, unit, 'bigint', '/'),
  limit: (n) => `LIMIT ${n}`,
  rangeFrames: true,
  preInStep: true,
  foldMethod:
    'a user-defined aggregate (a PL/pgSQL step over the limiter\u2019s state as whole numbers) run per key in time order as a window aggregate',
  machine(m: Machine, input: string): MachineStage {
    const n = m.state.length;
    const index = new Map(m.state.map(([name], i) => [name, i + 1]));
    const params = ['t'];
    const scope: Scope = {
      in: (p) => (p === 't' ? 'i_t' : `p_${p}`),
      st: (s) => `a[${index.get(s) as number}]`,
      let: (l) => `l_${l}`,
    };
    // The per-request values first (preInStep), then the values read from the state.
    const lets = [
      ...m.pre.map(([p, e]) => `  p_${p} := ${renderEx(e, postgres, scope)};`),
      ...m.lets.map(([l, e]) => `  l_${l} := ${renderEx(e, postgres, scope)};`),
    ];
    const next = [...m.next, m.outcome, m.delay].map((e) => renderEx(e, postgres, scope));
    const init = [...m.state.map(([, v]) => v), -1, 0];
    const prelude = `CREATE OR REPLACE FUNCTION pg_temp.rll_step(a bigint[], ${params.map((p) => `i_${p} bigint`).join(', ')})
RETURNS bigint[] LANGUAGE plpgsql IMMUTABLE AS $rll$
DECLARE
${[...m.pre.map(([p]) => `  p_${p} bigint;`), ...m.lets.map(([l]) => `  l_${l} bigint;`)].join('\n')}
BEGIN
${lets.join('\n')}
  RETURN ARRAY[
    ${next.join(',\n    ')}
  ]::bigint[];
END
$rll$;
CREATE OR REPLACE AGGREGATE pg_temp.rll_fold(${params.map(() => 'bigint').join(', ')}) (
  SFUNC = pg_temp.rll_step, STYPE = bigint[], INITCOND = '{${init.join(',')}}'
);
`;
    return {
      prelude,
      ctes: [
        [
          'f',
          `SELECT k, t, st, seq, wr,
    pg_temp.rll_fold(${params.join(', ')}) OVER (PARTITION BY k ORDER BY t, seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS a
  FROM ${input}`,
        ],
        ['d', `SELECT k, t, st, seq, wr, a[${n + 1}] AS o, a[${n + 2}] AS dl FROM f`],
      ],
      ends: 'd',
    };
  },
};
