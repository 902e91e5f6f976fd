/**
 * The plan every dialect follows, so that one query shape is proven on DuckDB and PostgreSQL and
 * the same shape is written for the engines that cannot run here:
 *
 *   src   the person's rows: key (columns joined with ' | ', empty → '-'), whole-ms time, status,
 *         tie-break order
 *   r     t = ms since the first request (or since 1970), and `wr` = 1 for a recorded 429/503
 *         when the baseline is what the log recorded
 *   top   (per-request output of the busiest keys only) the keys with most requests
 *   p1…   a machine's per-request values (src/export/sql/machine.ts `pre`), one layer each
 *   d     per request: the decision (o: 0 admit, 1 delay, 2 reject) and the delay
 *   s     per key: requests, admitted, delayed, rejected, and the changes against the baseline
 *
 * Windowed algorithms decide in `d` with window functions; stateful ones with the dialect's fold
 * (`Dialect.machine`). A change is what src/trace/dryrun.ts counts: allowed → rejected (not
 * recorded as rejected, rejected now), rejected → allowed, allowed → delayed.
 */
import type { AlgorithmConfig } from '../../core';
import type { Ex, Machine } from './machine';
import type { Engine, TimeUnit } from './types';

/** How a dialect reads the parts of an expression inside a fold or a step function. */
export interface Scope {
  in(name: string): string;
  st(name: string): string;
  let(name: string): string;
}

/** What each engine's file provides. */
export interface Dialect {
  engine: Engine;
  /** One quoted identifier. */
  ident(name: string): string;
  str(s: string): string;
  /** ⌊a / b⌋ for a ≥ 0, b > 0, as a 64-bit integer. */
  intDiv(a: string, b: string): string;
  least(a: string, b: string): string;
  greatest(a: string, b: string): string;
  /** A value as text. */
  text(x: string): string;
  /** Text values joined. */
  concat(parts: string[]): string;
  /** A value as a 64-bit integer (null when it is not one, where the engine can say). */
  bigint(x: string): string;
  /** The time column as whole ms since 1970. */
  msOf(col: string, unit: TimeUnit): string;
  /** `LIMIT n` as the engine writes it at the end of a query. */
  limit(n: number): string;
  /**
   * The stateful stage: CTEs that turn `input` (columns k, t, st, seq, wr and the machine's
   * `pre`) into `d` (per request: k, t, st, seq, o, dl) or, when the engine folds per key,
   * straight into `s` (per key). `prelude` goes before the query (temporary functions).
   */
  machine(m: Machine, input: string, perKey: boolean): MachineStage;
  /** How the stateful algorithms are computed, in a sentence, with the documentation to read. */
  foldMethod: string;
  /** Whether RANGE frames with a numeric offset are documented (sliding log, logRejected). */
  rangeFrames: boolean;
  /**
   * The machine's `pre` values are computed inside the engine's step (PostgreSQL): written as
   * layers of subqueries, PostgreSQL's planner folds them into one expression and copies each
   * value into every place it is read, which for the calendar's date arithmetic grows without
   * bound.
   */
  preInStep?: boolean;
}

export interface MachineStage {
  prelude: string;
  ctes: [name: string, body: string][];
  /** 's' when the ctes end in the per-key summary, 'd' when in per-request decisions. */
  ends: 'd' | 's';
}

/** The statuses a limit answers with, as the page's dry run reads them (src/trace/dryrun.ts). */
export const RECORDED_REJECTIONS = [429, 503] as const;

/** Renders a machine expression with the dialect's operators; booleans come out as SQL booleans. */
export function renderEx(e: Ex, d: Dialect, scope: Scope): string {
  const r = (x: Ex) => renderEx(x, d, scope);
  switch (e.op) {
    case 'num':
      return e.v < 0 ? `(${e.v})` : String(e.v);
    case 'in':
      return scope.in(e.name);
    case 'st':
      return scope.st(e.name);
    case 'let':
      return scope.let(e.name);
    case '+':
    case '-':
    case '*':
      return `(${r(e.a)} ${e.op} ${r(e.b)})`;
    case 'div':
      return d.intDiv(r(e.a), r(e.b));
    case '<':
    case '<=':
    case '=':
    case '<>':
    case '>':
    case '>=':
      return `${r(e.a)} ${e.op} ${r(e.b)}`;
    case 'and':
    case 'or':
      return `(${e.args.map(r).join(e.op === 'and' ? ' AND ' : ' OR ')})`;
    case 'not':
      return `(NOT ${r(e.a)})`;
    case 'if':
      // A constant condition (an option that is off or on) picks its branch here.
      if (e.c.op === 'num') return r(e.c.v !== 0 ? e.a : e.b);
      return `CASE WHEN ${r(e.c)} THEN ${r(e.a)} ELSE ${r(e.b)} END`;
    case 'min':
      return d.least(r(e.a), r(e.b));
    case 'max':
      return d.greatest(r(e.a), r(e.b));
  }
}

/**
 * A scope for lambdas, which cannot bind names: a `let` is written in place (in parentheses) each
 * time it is read. `acc` and `el` read the accumulator's and the element's fields.
 */
export function inlineScope(
  m: Machine,
  d: Dialect,
  acc: (name: string) => string,
  el: (name: string) => string,
): Scope {
  const lets = new Map(m.lets);
  const memo = new Map<string, string>();
  const scope: Scope = {
    in: el,
    st: acc,
    let(name) {
      let s = memo.get(name);
      if (s === undefined) {
        s = `(${renderEx(lets.get(name) as Ex, d, scope)})`;
        memo.set(name, s);
      }
      return s;
    },
  };
  return scope;
}

/** The per-key counters a fold carries, lagged by one request (see `foldStep`). */
export const FOLD_COUNTERS = ['n0', 'n1', 'n2', 'tor', 'toa', 'tod'] as const;

/**
 * One fold step as [field, expression] pairs over the accumulator `a`: the machine's next state,
 * the request's outcome `o` and delay `dl`, and either the per-key counters or the per-request
 * lists. Both are updated from the *previous* request's `o` and `pw` (its recorded flag), so the
 * outcome is written once rather than once per counter; `foldFinal` adds the last request's.
 */
export function foldStep(
  m: Machine,
  d: Dialect,
  scope: Scope,
  perKey: boolean,
  append: (list: string, value: string) => string,
): [string, string][] {
  const out: [string, string][] = m.state.map(([name], i) => [
    name,
    renderEx(m.next[i] as Ex, d, scope),
  ]);
  out.push(['o', renderEx(m.outcome, d, scope)], ['dl', renderEx(m.delay, d, scope)]);
  const o = scope.st('o');
  if (perKey) {
    const pw = scope.st('pw');
    out.push(['pw', scope.in('wr')]);
    const when = (c: string) => `CASE WHEN ${c} THEN 1 ELSE 0 END`;
    out.push(
      ['n0', `${scope.st('n0')} + ${when(`${o} = 0`)}`],
      ['n1', `${scope.st('n1')} + ${when(`${o} = 1`)}`],
      ['n2', `${scope.st('n2')} + ${when(`${o} = 2`)}`],
      ['tor', `${scope.st('tor')} + ${when(`${pw} = 0 AND ${o} = 2`)}`],
      ['toa', `${scope.st('toa')} + ${when(`${pw} = 1 AND ${o} IN (0, 1)`)}`],
      ['tod', `${scope.st('tod')} + ${when(`${pw} = 0 AND ${o} = 1`)}`],
    );
  } else {
    out.push(['ol', append(scope.st('ol'), o)], ['dll', append(scope.st('dll'), scope.st('dl'))]);
  }
  return out;
}

/** The accumulator's fields before a key's first request, as [field, value]. */
export function foldInit(m: Machine, perKey: boolean): [string, number | 'list'][] {
  const out: [string, number | 'list'][] = m.state.map(([n, v]) => [n, v]);
  out.push(['o', -1], ['dl', 0]);
  if (perKey) {
    out.push(['pw', 0]);
    for (const c of FOLD_COUNTERS) out.push([c, 0]);
  } else out.push(['ol', 'list'], ['dll', 'list']);
  return out;
}

/** Per-key output columns from a fold's final accumulator `f` (fields read with `field`). */
export function foldFinal(field: (name: string) => string): string {
  const o = field('o');
  const pw = field('pw');
  const when = (c: string) => `CASE WHEN ${c} THEN 1 ELSE 0 END`;
  return [
    `${field('n0')} + ${when(`${o} = 0`)} AS admitted`,
    `${field('n1')} + ${when(`${o} = 1`)} AS delayed`,
    `${field('n2')} + ${when(`${o} = 2`)} AS rejected`,
    `${field('tor')} + ${when(`${pw} = 0 AND ${o} = 2`)} AS to_rejected`,
    `${field('toa')} + ${when(`${pw} = 1 AND ${o} IN (0, 1)`)} AS to_allowed`,
    `${field('tod')} + ${when(`${pw} = 0 AND ${o} = 1`)} AS to_delayed`,
  ].join(',\n    ');
}

/**
 * A numeric time column as whole ms since 1970, written the same way for every engine that has
 * SQL's CAST: seconds (fractional) rounded to the ms, ms floored, µs and ns cut to whole ms by the
 * engine's integer division `div` (`/` on bigints in PostgreSQL and Trino, `//` in DuckDB, `div` in
 * Spark SQL), `bigint` the engine's name for a 64-bit integer.
 */
export function numericMs(
  col: string,
  unit: Exclude<TimeUnit, 'timestamp'>,
  bigint: string,
  div: string,
): string {
  switch (unit) {
    case 's':
      return `CAST(round(${col} * 1000) AS ${bigint})`;
    case 'ms':
      return `CAST(floor(${col}) AS ${bigint})`;
    case 'us':
      return `(CAST(${col} AS ${bigint}) ${div} 1000)`;
    case 'ns':
      return `(CAST(${col} AS ${bigint}) ${div} 1000000)`;
  }
}

/** Checks a name the person typed: it becomes a quoted identifier, so it needs no escaping. */
export function checkName(what: string, name: string, quote: string): string | null {
  if (name.trim() === '') return `${what} is empty.`;
  if (name.length > 256) return `${what} is longer than 256 characters.`;
  // Control characters (a newline, NUL …) have no place in a name.
  if (/[\p{Cc}]/u.test(name)) return `${what} contains a control character.`;
  if (name.includes(quote)) return `${what} contains ${quote}, which cannot be quoted here.`;
  return null;
}

/** A possibly qualified name (`schema.table`) quoted part by part. */
export function qualified(d: Dialect, name: string): string {
  return name
    .split('.')
    .map((p) => d.ident(p.trim()))
    .join('.');
}

/** The window-function decision of a windowed algorithm, or null when it needs a machine. */
export function windowed(config: AlgorithmConfig, d: Dialect, input: string): string | null {
  const order = 'ORDER BY t, seq';
  if (config.kind === 'fixed-window') {
    // The n-th request of a key in window ⌊t / W⌋ is admitted iff n ≤ limit: rejected requests
    // are not counted (src/core/algorithms/fixed-window.ts).
    const w = d.intDiv('t', String(config.windowMs));
    return `SELECT k, t, st, seq, wr,
    CASE WHEN ROW_NUMBER() OVER (PARTITION BY k, ${w} ${order}) <= ${config.limit} THEN 0 ELSE 2 END AS o,
    0 AS dl
  FROM ${input}`;
  }
  if (config.kind === 'sliding-log' && config.logRejected === true) {
    // Every request is logged: the entries counting at t are the key's earlier requests less
    // those at or before t − W (src/core/algorithms/sliding-log.ts: t − t0 < W counts).
    return `SELECT k, t, st, seq, wr,
    CASE WHEN ROW_NUMBER() OVER (PARTITION BY k ${order}) - 1
      - COUNT(*) OVER (PARTITION BY k ORDER BY t RANGE BETWEEN UNBOUNDED PRECEDING AND ${config.windowMs} PRECEDING)
      < ${config.limit} THEN 0 ELSE 2 END AS o,
    0 AS dl
  FROM ${input}`;
  }
  return null;
}
