/**
 * CSV / TSV (read with papaparse: quoted fields, quoted newlines, CRLF) and JSON lines. Both need a
 * timestamp column; key, cost and status columns are optional. Columns are found by name unless
 * the caller names them.
 */
import Papa from 'papaparse';
import { parseCost, parseStatus, pathOfUrl } from './record';
import type { RequestRecord } from './record';
import { parseAnyTime } from './time';
import { TraceError } from './types';
import { plural, quoteText } from '../core';
import { csvText } from './csv';
import { COMPACT_COLUMNS } from './compact';

/** Which column plays which part. `time` is required. */
export interface Columns {
  time: string;
  client?: string;
  /**
   * A column that names who sent the request when there is no client address column (a user, an
   * API key, a tenant): the key the trace takes by default then.
   */
  key?: string;
  xff?: string;
  path?: string;
  userAgent?: string;
  status?: string;
  cost?: string;
}

/** Caller's choices; anything not given is found by name. */
export interface ColumnOptions {
  timeColumn?: string;
  costColumn?: string;
}

const ROLE_NAMES: Record<keyof Columns, RegExp> = {
  time: /^(@?timestamp|time|ts|date|datetime|date_?time|time_?stamp|arrival(_?ms)?|started_?date_?time|request_creation_time|msec|time_iso8601|time_local)$/i,
  client: /^(client|client_?ip|ip|remote_?addr|remote_?ip|addr|address|src_?ip|source_?ip)$/i,
  // Who sent the request when no address is logged: a generic key, a user, an API key or token,
  // a tenant. Kept short; any other column can be picked on the page.
  key: /^(key|user|user_?id|username|api_?key|x[-_]api[-_]key|token|tenant|tenant_?id)$/i,
  xff: /^(x[-_]?forwarded[-_]?for|xff|http_x_forwarded_for)$/i,
  path: /^(path|url|uri|request_?uri|request_?path|endpoint|route)$/i,
  userAgent: /^(user[-_]?agent|ua|http_user_agent)$/i,
  status: /^(status|status_?code|http_?status|response_?code|code)$/i,
  cost: /^(cost|weight|tokens)$/i,
};

/** Finds the columns by name in `header`; throws naming the header when there is no time. */
export function findColumns(
  header: readonly string[],
  opts: ColumnOptions,
  where: string,
): Columns {
  const pick = (role: keyof Columns): string | undefined =>
    header.find((h) => ROLE_NAMES[role].test(h.trim()));
  const time = opts.timeColumn ?? pick('time');
  if (time === undefined || !header.includes(time)) {
    throw new TraceError(
      `${where}: no timestamp column` +
        (opts.timeColumn !== undefined ? ` named "${opts.timeColumn}"` : '') +
        ` among ${header
          .slice(0, 12)
          .map((h) => `"${h}"`)
          .join(', ')}` +
        ' (name one: timestamp, time, ts, date …; ISO 8601 or epoch seconds/ms).',
    );
  }
  const cols: Columns = { time };
  const set = (role: Exclude<keyof Columns, 'time'>, v: string | undefined): void => {
    if (v !== undefined) cols[role] = v;
  };
  set('client', pick('client'));
  set('key', pick('key'));
  set('xff', pick('xff'));
  set('path', pick('path'));
  set('userAgent', pick('userAgent'));
  set('status', pick('status'));
  set('cost', opts.costColumn ?? pick('cost'));
  return cols;
}

/** A record from a row given as a field getter; a string says why the row is malformed. */
export function recordFromRow(
  get: (name: string) => string | undefined,
  cols: Columns,
): RequestRecord | string {
  const raw = get(cols.time);
  if (raw === undefined || raw === '')
    return `no value in timestamp column ${quoteText(cols.time)}`;
  const t = parseAnyTime(raw.trim());
  if (!t)
    return `${quoteText(raw)} in column ${quoteText(cols.time)} is not a time (ISO 8601 or epoch)`;
  const status = parseStatus(cols.status !== undefined ? get(cols.status)?.trim() : undefined);
  if (Number.isNaN(status))
    return `${quoteText(get(cols.status ?? '') ?? '')} in column ${quoteText(cols.status ?? '')} is not an HTTP status`;
  const cost = parseCost(cols.cost !== undefined ? get(cols.cost)?.trim() : undefined);
  if (Number.isNaN(cost))
    return `${quoteText(get(cols.cost ?? '') ?? '')} in column ${quoteText(cols.cost ?? '')} is not a whole number 0 – 65535`;
  const text = (c: string | undefined): string => (c === undefined ? '' : (get(c) ?? ''));
  return {
    timeMs: t.ms,
    status,
    cost,
    // No address column: the key column stands for the client (the default key).
    client: text(cols.client ?? cols.key),
    xff: text(cols.xff),
    path: pathOfUrl(text(cols.path)),
    userAgent: text(cols.userAgent),
    field: get,
  };
}

/** Resolution of a time column's text (for the report). */
export function resolutionOf(raw: string): number {
  return parseAnyTime(raw.trim())?.resolutionMs ?? 1000;
}

/**
 * Reads delimited text (the whole file: quoted newlines may span chunks). Calls `row` for every
 * data row with the 1-based line number the row starts on.
 */
export function parseDelimited(
  text: string,
  delimiter: ',' | '\t',
  opts: ColumnOptions,
  row: (rec: RequestRecord | string, line: number) => void,
): { columns: Columns; resolutionMs: number; header: string[] } {
  const kind = delimiter === ',' ? 'CSV' : 'TSV';
  let header: string[] | null = null;
  let cols: Columns | null = null;
  let resolutionMs = 1000;
  let line = 1;
  let lastCursor = 0;
  let first = true;
  /** The header is the compact trace's (compact.ts): its keys are read back with csvText. */
  let compact = false;
  const countNewlines = (to: number): void => {
    for (let i = lastCursor; i < to; i += 1) if (text.charCodeAt(i) === 10) line += 1;
    lastCursor = to;
  };
  Papa.parse<string[]>(text, {
    delimiter,
    skipEmptyLines: true,
    step: (res) => {
      const rowStart = line;
      const fields = res.data;
      // meta.cursor is where this row ends: count the newlines up to it for the next row's line.
      countNewlines(res.meta.cursor);
      if (first) {
        first = false;
        header = fields.map((h) => h.trim());
        cols = findColumns(header, opts, `${kind} header (line ${rowStart})`);
        compact = header.join(',') === COMPACT_COLUMNS.join(',');
        return;
      }
      const h = header as string[];
      const c = cols as Columns;
      if (res.errors.length > 0) {
        row(`${kind}: ${(res.errors[0] as Papa.ParseError).message}`, rowStart);
        return;
      }
      if (fields.length !== h.length) {
        row(`has ${plural(fields.length, 'field')}; the header has ${h.length}`, rowStart);
        return;
      }
      const get = (name: string): string | undefined => {
        const i = h.indexOf(name);
        const cell = i >= 0 ? fields[i] : undefined;
        // A compact trace's keys were neutralised by the page's CSV writer: read back as they were.
        return compact && name === COMPACT_COLUMNS[1] && cell !== undefined ? csvText(cell) : cell;
      };
      const rec = recordFromRow(get, c);
      if (typeof rec !== 'string')
        resolutionMs = Math.min(resolutionMs, resolutionOf(get(c.time) ?? ''));
      row(rec, rowStart);
    },
  });
  if (cols === null || header === null) throw new TraceError(`${kind}: no header row.`);
  return { columns: cols, resolutionMs, header };
}

/** Dotted lookup in a JSON object (`request.headers.x-api-key`), as text. */
function lookup(obj: unknown, name: string): string | undefined {
  let v: unknown = (obj as Record<string, unknown>)[name];
  if (v === undefined && name.includes('.')) {
    v = obj;
    for (const p of name.split('.')) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string, unknown>)[p];
    }
  }
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A JSON-lines parser: columns come from the first object's keys. */
export function jsonLineParser(opts: ColumnOptions): {
  parse: (line: string) => RequestRecord | string;
  resolution: () => number;
  /** The first object's fields (null before one was read). */
  fields: () => string[] | null;
} {
  let cols: Columns | null = null;
  let fields: string[] | null = null;
  let resolutionMs = 1000;
  return {
    parse: (line) => {
      let obj: unknown;
      try {
        obj = JSON.parse(line);
      } catch {
        return 'not valid JSON';
      }
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
        return 'not a JSON object';
      }
      if (cols === null) {
        fields = Object.keys(obj);
        cols = findColumns(fields, opts, 'JSON lines (first object)');
      }
      const get = (name: string): string | undefined => lookup(obj, name);
      const rec = recordFromRow(get, cols);
      if (typeof rec !== 'string')
        resolutionMs = Math.min(resolutionMs, resolutionOf(get(cols.time) ?? ''));
      return rec;
    },
    resolution: () => resolutionMs,
    fields: () => fields,
  };
}
