/**
 * Reading a query's output back (CSV as psql, DuckDB, BigQuery, Athena, Spark or ClickHouse write
 * it, header first): which of the two outputs it is, every row checked (types, sums, known
 * values), and a message naming what is wrong and where (row and column) for anything else. A bad
 * file is refused whole: nothing half-read is shown as if it were the query's answer.
 */
import Papa from 'papaparse';
import { plural, quoteText } from '../../core';
import { PER_KEY_COLUMNS, PER_REQUEST_COLUMNS } from './types';

/** The longest output read, in characters (a per-request output of busy keys fits). */
export const MAX_READBACK_CHARS = 64 * 1024 * 1024;
/** The most rows read. */
export const MAX_READBACK_ROWS = 1_000_000;
/** Problems listed (all are counted). */
const LISTED = 8;

export interface PerKeyRow {
  key: string;
  requests: number;
  admitted: number;
  delayed: number;
  rejected: number;
  to_rejected: number;
  to_allowed: number;
  to_delayed: number;
}

export type Outcome = 'admit' | 'delay' | 'reject';
export type Change = 'same' | 'to_rejected' | 'to_allowed' | 'to_delayed';

export interface PerRequestRow {
  key: string;
  time_ms: number;
  status: number;
  outcome: Outcome;
  delay_ms: number;
  change: Change;
}

export type Readback =
  | { ok: true; kind: 'per-key'; rows: PerKeyRow[] }
  | { ok: true; kind: 'per-request'; rows: PerRequestRow[] }
  | { ok: false; message: string; problems: string[] };

const OUTCOMES: readonly string[] = ['admit', 'delay', 'reject'];
const CHANGES: readonly string[] = ['same', 'to_rejected', 'to_allowed', 'to_delayed'];
const n = (v: number) => v.toLocaleString('en-US');

/** The columns' difference from an expected list, in words. */
function columnsProblem(got: string[], want: readonly string[], what: string): string {
  const missing = want.filter((c) => !got.includes(c));
  const extra = got.filter((c) => !want.includes(c));
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.join(', ')}`);
  if (extra.length > 0) parts.push(`unexpected ${extra.map((c) => quoteText(c)).join(', ')}`);
  if (parts.length === 0) parts.push(`in another order (want ${want.join(', ')})`);
  return `The output's columns do not match the ${what} query's: ${parts.join('; ')}.`;
}

/** Reads `text` as one of the two outputs; refuses it whole, saying why, when anything is off. */
export function readBack(text: string): Readback {
  if (text.length > MAX_READBACK_CHARS) {
    return {
      ok: false,
      message: `The output is ${n(text.length)} characters; at most ${n(MAX_READBACK_CHARS)} are read. Ask for the per-key output, or fewer busiest keys.`,
      problems: [],
    };
  }
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ''), {
    skipEmptyLines: 'greedy',
    preview: MAX_READBACK_ROWS + 2,
  });
  const data = parsed.data;
  if (data.length === 0) return { ok: false, message: 'The output is empty.', problems: [] };
  if (data.length > MAX_READBACK_ROWS + 1) {
    return {
      ok: false,
      message: `The output has more than ${n(MAX_READBACK_ROWS)} rows; ask for fewer busiest keys.`,
      problems: [],
    };
  }
  const header = (data[0] as string[]).map((h) => h.trim());
  const isKey = header.join(',') === PER_KEY_COLUMNS.join(',');
  const isRequest = header.join(',') === PER_REQUEST_COLUMNS.join(',');
  if (!isKey && !isRequest) {
    // Name the difference from the output it is closer to.
    const overlap = (w: readonly string[]) => w.filter((c) => header.includes(c)).length;
    const perKey = overlap(PER_KEY_COLUMNS) >= overlap(PER_REQUEST_COLUMNS);
    return {
      ok: false,
      message: perKey
        ? columnsProblem(header, PER_KEY_COLUMNS, 'per-key')
        : columnsProblem(header, PER_REQUEST_COLUMNS, 'per-request'),
      problems: [],
    };
  }
  const problems: string[] = [];
  let count = 0;
  const problem = (s: string) => {
    count += 1;
    if (problems.length < LISTED) problems.push(s);
  };
  const width = header.length;
  const whole = (row: number, col: string, v: string): number => {
    if (!/^\d{1,15}$/.test(v.trim())) {
      problem(`row ${row}, column ${col}: ${quoteText(v)} is not a whole number ≥ 0`);
      return 0;
    }
    return Number(v.trim());
  };
  const keysSeen = new Set<string>();
  const perKey: PerKeyRow[] = [];
  const perRequest: PerRequestRow[] = [];
  for (let i = 1; i < data.length; i += 1) {
    const cells = data[i] as string[];
    const row = i + 1; // the header is line 1
    if (cells.length !== width) {
      problem(`row ${row}: ${plural(cells.length, 'field')}, the header has ${width}`);
      continue;
    }
    const key = cells[0] as string;
    if (isKey) {
      const [requests, admitted, delayed, rejected, toR, toA, toD] = PER_KEY_COLUMNS.slice(1).map(
        (c, j) => whole(row, c, cells[j + 1] as string),
      ) as [number, number, number, number, number, number, number];
      if (keysSeen.has(key)) problem(`row ${row}: key ${quoteText(key)} appears twice`);
      keysSeen.add(key);
      if (admitted + delayed + rejected !== requests) {
        problem(
          `row ${row}: admitted + delayed + rejected = ${n(admitted + delayed + rejected)}, not requests (${n(requests)})`,
        );
      }
      perKey.push({
        key,
        requests,
        admitted,
        delayed,
        rejected,
        to_rejected: toR,
        to_allowed: toA,
        to_delayed: toD,
      });
    } else {
      const outcome = (cells[3] as string).trim();
      const change = (cells[5] as string).trim();
      if (!OUTCOMES.includes(outcome))
        problem(`row ${row}, column outcome: ${quoteText(outcome)} is not admit, delay or reject`);
      if (!CHANGES.includes(change))
        problem(
          `row ${row}, column change: ${quoteText(change)} is not same, to_rejected, to_allowed or to_delayed`,
        );
      perRequest.push({
        key,
        time_ms: whole(row, 'time_ms', cells[1] as string),
        status: whole(row, 'status', cells[2] as string),
        outcome: outcome as Outcome,
        delay_ms: whole(row, 'delay_ms', cells[4] as string),
        change: change as Change,
      });
    }
  }
  for (const e of parsed.errors.slice(0, 3)) {
    problem(`row ${(e.row ?? 0) + 1}: ${e.message}`);
  }
  if (count > 0) {
    return {
      ok: false,
      message: `The output has ${count === 1 ? 'a problem' : plural(count, 'problem')}; nothing was read.`,
      problems,
    };
  }
  return isKey
    ? { ok: true, kind: 'per-key', rows: perKey }
    : { ok: true, kind: 'per-request', rows: perRequest };
}
