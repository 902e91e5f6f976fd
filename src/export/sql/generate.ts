/**
 * The dry run as one query (or a short script) for the engine the logs live in. See plan.ts for
 * the query's shape, machine.ts for the stateful limiters, exactness.ts for what each engine
 * computes exactly, and one file per engine for its syntax and the documentation it follows.
 */
import { checkAlgorithmConfig } from '../../core';
import type { AlgorithmConfig } from '../../core';
import { NotExpressible, machineFor } from './machine';
import type { Machine } from './machine';
import { RECORDED_REJECTIONS, checkName, qualified, renderEx, windowed } from './plan';
import type { Dialect } from './plan';
import { PER_KEY_COLUMNS, PER_REQUEST_COLUMNS } from './types';
import type { LogTable, SqlOptions, SqlResult } from './types';

/** The most keys a per-request query may ask for. */
export const MAX_TOP_KEYS = 10_000;

/** What is wrong with the table's description, or null. */
function checkTable(table: LogTable, quote: string): string | null {
  const names: [string, string | undefined][] = [
    ['The time column', table.time],
    ['The status column', table.status],
    ['The order column', table.order],
    ...table.key.map((k, i): [string, string] => [`Key column ${i + 1}`, k]),
  ];
  for (const part of table.table.split('.')) {
    const bad = checkName('The table name', part, quote);
    if (bad !== null) return bad;
  }
  for (const [what, name] of names) {
    if (name === undefined) continue;
    const bad = checkName(what, name, quote);
    if (bad !== null) return bad;
  }
  if (table.key.length > 8) return 'A key of more than 8 columns is not supported.';
  return null;
}

/** The quote character of a dialect's identifiers. */
const quoteOf = (d: Dialect) => d.ident('x').charAt(0);

/**
 * What the query's times count from, as an expression of `o0` (the log's first request, epoch ms),
 * so that they decide as the page's dry run does: its time 0 stands for the first request's epoch
 * ms, the windows of a clock-aligned limiter are placed on the clock (a Redis INCR window keyed
 * ⌊now / W⌋, Kong kong/tools/timestamp.lua, envoyproxy/ratelimit src/limiter/cache_key.go) and
 * every other limiter decides on time differences.
 * - fixed window and the aligned sliding-window counter: the start of the clock's window holding
 *   the first request, ⌊o0 / W⌋ · W. Then ⌊t / W⌋ is the clock's window index less a constant and
 *   t − ⌊t / W⌋ · W the offset in the clock's window, while t stays small (under W + the log's span).
 * - calendar windows: 0, times are epoch ms (UTC calendar months and years need the real date);
 *   their machine multiplies no time by anything but 1, so every value stays below 2^53.
 * - the others: o0 itself (times from the first request; their products of a time and a rate stay
 *   small, as the machines' caps assume).
 */
function baseOf(config: AlgorithmConfig, d: Dialect): string {
  switch (config.kind) {
    case 'fixed-window':
      return `${d.intDiv('o0', String(config.windowMs))} * ${config.windowMs}`;
    case 'sliding-window-counter':
      return config.anchor === 'entry'
        ? 'o0'
        : `${d.intDiv('o0', String(config.windowMs))} * ${config.windowMs}`;
    case 'calendar-windows':
      return '0';
    default:
      return 'o0';
  }
}

/** The query computing the page's dry run of `config` over `table` on `d`'s engine. */
export function generateWith(
  d: Dialect,
  config: AlgorithmConfig,
  table: LogTable,
  options: SqlOptions,
): SqlResult {
  const engine = d.engine;
  const issues = checkAlgorithmConfig(config);
  if (issues.length > 0) {
    return {
      ok: false,
      engine,
      message: `The limiter is not valid: ${issues.map((i) => i.message).join('; ')}`,
    };
  }
  const bad = checkTable(table, quoteOf(d));
  if (bad !== null) return { ok: false, engine, message: bad };
  const top = options.output === 'per-request' ? options.topKeys : undefined;
  if (top !== undefined && (!Number.isInteger(top) || top < 1 || top > MAX_TOP_KEYS)) {
    return {
      ok: false,
      engine,
      message: `The number of busiest keys must be a whole number from 1 to ${MAX_TOP_KEYS.toLocaleString('en-US')}.`,
    };
  }
  let machine: Machine | null = null;
  if (config.kind === 'sliding-log' && config.logRejected !== true) {
    return {
      ok: false,
      engine,
      message:
        'A sliding log that logs only admitted requests decides each request on the times of up to `limit` earlier admitted ones, which no window function or fixed-size fold state holds; it is not written as SQL. Its logRejected variant (every request logged) is.',
    };
  }
  if (config.kind === 'sliding-log' && !d.rangeFrames) {
    return {
      ok: false,
      engine,
      message: `The sliding log needs a window frame of a fixed time span (RANGE … PRECEDING), which ${engine} does not document.`,
    };
  }
  if (config.kind !== 'fixed-window' && config.kind !== 'sliding-log') {
    try {
      machine = machineFor(config);
    } catch (e) {
      if (e instanceof NotExpressible) return { ok: false, engine, message: e.message };
      throw e;
    }
  }
  const q = (s: string) => d.ident(s);
  const keyParts = table.key.map((c) => `COALESCE(NULLIF(${d.text(q(c))}, ''), '-')`);
  const keyExpr =
    keyParts.length === 0
      ? d.str('all')
      : keyParts.length === 1
        ? (keyParts[0] as string)
        : d.concat(keyParts.flatMap((p, i) => (i === 0 ? [p] : [d.str(' | '), p])));
  const statusExpr = table.status === undefined ? '0' : `COALESCE(${d.bigint(q(table.status))}, 0)`;
  const seqExpr = table.order === undefined ? '0' : q(table.order);
  const ctes: [string, string][] = [];
  ctes.push([
    'src',
    `SELECT ${keyExpr} AS k,
    ${d.msOf(q(table.time), table.timeUnit)} AS ms,
    ${statusExpr} AS st,
    ${seqExpr} AS seq
  FROM ${qualified(d, table.table)}
  WHERE ${q(table.time)} IS NOT NULL`,
  ]);
  const wr =
    options.baseline === 'recorded'
      ? `CASE WHEN st IN (${RECORDED_REJECTIONS.join(', ')}) THEN 1 ELSE 0 END`
      : '0';
  // The first request and what times count from (baseOf), one row: read by scalar subqueries, not
  // MIN(ms) OVER () (a window over the whole table makes the engine hold every row at once).
  const base = baseOf(config, d);
  ctes.push(['o', `SELECT o0, ${base} AS ob\n  FROM (SELECT MIN(ms) AS o0 FROM src) f`]);
  ctes.push(['r', `SELECT k, ms - (SELECT ob FROM o) AS t, st, seq, ${wr} AS wr\n  FROM src`]);
  let input = 'r';
  if (top !== undefined) {
    ctes.push(['top', `SELECT k FROM r GROUP BY k ORDER BY COUNT(*) DESC, k ${d.limit(top)}`]);
    ctes.push(['rt', 'SELECT * FROM r WHERE k IN (SELECT k FROM top)']);
    input = 'rt';
  }
  let prelude = '';
  let ends: 'd' | 's' = 'd';
  let method: string;
  const perKey = options.output === 'per-key';
  if (machine === null) {
    ctes.push(['d', windowed(config, d, input) as string]);
    method =
      'window functions: ROW_NUMBER per key and window' +
      (config.kind === 'sliding-log' ? ', and a COUNT over a RANGE frame of the window' : '');
  } else {
    (d.preInStep === true ? [] : machine.pre).forEach(([name, ex], i) => {
      const layer = `p${i + 1}`;
      const expr = renderEx(ex, d, { in: (n) => n, st: (n) => n, let: (n) => n });
      ctes.push([layer, `SELECT *, ${expr} AS ${name} FROM ${input}`]);
      input = layer;
    });
    const stage = d.machine(machine, input, perKey);
    prelude = stage.prelude;
    ctes.push(...stage.ctes);
    ends = stage.ends;
    method = d.foldMethod;
  }
  if (perKey && ends === 'd') {
    const sum = (c: string) => `SUM(CASE WHEN ${c} THEN 1 ELSE 0 END)`;
    ctes.push([
      's',
      `SELECT k,
    ${sum('o = 0')} AS admitted,
    ${sum('o = 1')} AS delayed,
    ${sum('o = 2')} AS rejected,
    ${sum('wr = 0 AND o = 2')} AS to_rejected,
    ${sum('wr = 1 AND o <> 2')} AS to_allowed,
    ${sum('wr = 0 AND o = 1')} AS to_delayed
  FROM d
  GROUP BY k`,
    ]);
  }
  const final = perKey
    ? `SELECT k AS ${q('key')},
  admitted + delayed + rejected AS requests,
  admitted, delayed, rejected, to_rejected, to_allowed, to_delayed
FROM s
ORDER BY k`
    : `SELECT k AS ${q('key')},
  ${base === 'o0' ? 't' : 't + (SELECT ob - o0 FROM o)'} AS time_ms,
  st AS status,
  CASE o WHEN 0 THEN 'admit' WHEN 1 THEN 'delay' ELSE 'reject' END AS outcome,
  dl AS delay_ms,
  CASE WHEN wr = 0 AND o = 2 THEN 'to_rejected'
    WHEN wr = 1 AND o <> 2 THEN 'to_allowed'
    WHEN wr = 0 AND o = 1 THEN 'to_delayed'
    ELSE 'same' END AS ${q('change')}
FROM d
ORDER BY k, t, seq`;
  const body = `WITH\n${ctes.map(([n, b]) => `${n} AS (\n  ${b}\n)`).join(',\n')}\n${final};\n`;
  const notes: string[] = [];
  if (table.order === undefined) {
    notes.push(
      'No order column: requests of one key logged in the same millisecond are taken in an order the engine picks. Each key\u2019s counts of admitted, delayed and rejected requests do not depend on it; which of those requests flip against the recorded status can.',
    );
  }
  notes.push(
    'As the page\u2019s dry run: windows and calendar periods are on the UTC clock (a window of W ms starts at a multiple of W since 1970), every other limit counts time from the log\u2019s first request, and time_ms is ms since the first request.',
  );
  return {
    ok: true,
    engine,
    sql: prelude + body,
    columns: perKey ? PER_KEY_COLUMNS : PER_REQUEST_COLUMNS,
    method,
    notes,
  };
}
