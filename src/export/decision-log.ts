/**
 * The decision log: every decision of every limiter of a run, as CSV (RFC 4180) or JSON, for a
 * spreadsheet, a notebook or a bug report. Pure: it reads a `SimResult` and its config and returns
 * the text in pieces (a `Blob` takes them as they are, so a large log is never one giant string).
 *
 * A run can hold up to MAX_DECISIONS (4,000,000) decisions; a log holds at most MAX_LOG_DECISIONS.
 * A cut is never silent: the JSON says where it cut, and the UI says so before a CSV is written.
 */
import { systemOf } from '../systems';
import { csvField } from '../trace/csv';
import { plural, rejectStatus, toSeconds } from '../core';
import { encodeConfig } from '../config';
import type { PlaygroundConfig } from '../config';
import { OUTCOMES, OUTCOME_DELAY, OUTCOME_REJECT, rowRange } from '../sim';
import type { LaneResult, SimResult } from '../sim';

/**
 * The most decisions one log holds (about 20 MB of CSV). Above it the log keeps every decision
 * that arrived before a cut time in every lane (see `planDecisionLog`).
 */
export const MAX_LOG_DECISIONS = 200_000;

/** The JSON log's format version (its `version` field). */
export const DECISION_LOG_VERSION = 1;

/** Decisions per piece of text: pieces of ~100 kB keep the Blob's part list short. */
const ROWS_PER_PART = 1000;

/** What a log will hold, worked out before any text is written (the UI asks before a cut). */
export interface DecisionLogPlan {
  /** Decisions in the run, every lane. */
  total: number;
  /** Decisions the log holds (≤ maxDecisions). */
  included: number;
  /** Decisions written per lane: each lane's first `rows[i]` rows. */
  rows: number[];
  /**
   * null when the log holds every decision. Otherwise the log holds every decision that arrived
   * before `cutAtMs` (virtual ms) in every lane, plus each lane's first few at `cutAtMs` itself.
   */
  cutAtMs: number | null;
  /** Of the decisions included, how many arrived at `cutAtMs` itself (0 without a cut). */
  atCut: number;
  maxDecisions: number;
}

/** A log ready to save. */
export interface DecisionLogFile {
  /** The text, in pieces: `new Blob(parts, { type: mimeType })`. */
  parts: string[];
  mimeType: string;
  plan: DecisionLogPlan;
}

export interface DecisionLogOptions {
  /** The cap on decisions. Default MAX_LOG_DECISIONS. */
  maxDecisions?: number;
  /** The JSON's `link`. Default: `?` + `encodeConfig(config)` (the page's query string). */
  link?: string;
}

/** The last row (exclusive) of `lane` that arrived before tMs. */
function rowsBefore(lane: LaneResult, tMs: number): number {
  return rowRange(lane.columns, 0, tMs)[1];
}

/**
 * Which rows a log of at most `maxDecisions` holds. Under the cap: all of them. Over it: the largest
 * cut time T such that the decisions before T in every lane fit, so every lane covers the same
 * stretch of time and the lanes stay comparable; what room is left goes to the decisions at T, the
 * same share to each lane (a burst of many requests at one instant is not left out entirely).
 */
export function planDecisionLog(
  result: SimResult,
  maxDecisions = MAX_LOG_DECISIONS,
): DecisionLogPlan {
  const max = Math.max(0, Math.floor(maxDecisions));
  const lanes = result.lanes;
  const all = lanes.map((l) => l.columns.rows);
  const total = all.reduce((a, b) => a + b, 0);
  if (total <= max) {
    return { total, included: total, rows: all, cutAtMs: null, atCut: 0, maxDecisions: max };
  }
  const before = (tMs: number) => lanes.reduce((n, l) => n + rowsBefore(l, tMs), 0);
  // before(0) = 0 ≤ max; before(untilMs) = total > max (every arrival is < untilMs).
  let lo = 0;
  let hi = Math.max(1, result.untilMs);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (before(mid) <= max) lo = mid;
    else hi = mid;
  }
  const cutAtMs = lo;
  const complete = before(cutAtMs);
  const share = Math.floor((max - complete) / lanes.length);
  const rows = lanes.map((l) => {
    const start = rowsBefore(l, cutAtMs);
    return start + Math.min(share, rowsBefore(l, cutAtMs + 1) - start);
  });
  const included = rows.reduce((a, b) => a + b, 0);
  return { total, included, rows, cutAtMs, atCut: included - complete, maxDecisions: max };
}

/** The plan in one sentence (the JSON's note, the UI's warning). */
export function describeCut(plan: DecisionLogPlan): string | null {
  if (plan.cutAtMs === null) return null;
  const n = (x: number) => x.toLocaleString('en-US');
  const t = `${n(plan.cutAtMs)} ms`;
  const lanes = plan.rows.length > 1 ? ' in every lane' : '';
  const at = plan.atCut > 0 ? `, and ${n(plan.atCut)} of those at ${t}` : '';
  return (
    `The run has ${plural(plan.total, 'decision', 'decisions', n)}; a log holds at most ${n(plan.maxDecisions)}. ` +
    `This one holds ${n(plan.included)}: every decision that arrived before ${t}${lanes}${at}. ` +
    `Shorten the run (or the traffic) to log all of them.`
  );
}

/** One decision, as both formats write it (numbers are whole; people count from 1). */
interface Row {
  /** The request (first attempt) it belongs to: origin + 1 — the "Request #n" of the marks, inspector and compare table. */
  request: number;
  /** Row in the lane + 1: this lane's decision number (retries included). */
  row: number;
  attempt: number;
  arrivalMs: number;
  key: string;
  /** Client number, from 1. */
  client: number;
  /** Instance number, from 1. */
  instance: number;
  outcome: string;
  delayMs: number;
  /** When it reached the backend: arrival + delay; null when rejected. */
  releaseMs: number | null;
  retryAfterMs: number;
  remaining: number;
  resetMs: number;
  status: number;
  /** The `Retry-After` header value (whole seconds, rounded up); null when not rejected. */
  retryAfter: string | null;
}

/** The fields of a row, in column order, with the CSV header name of each. */
const FIELDS: ReadonlyArray<readonly [keyof Row, string]> = [
  ['request', 'request'],
  ['row', 'row'],
  ['attempt', 'attempt'],
  ['arrivalMs', 'arrival_ms'],
  ['key', 'key'],
  ['client', 'client'],
  ['instance', 'instance'],
  ['outcome', 'outcome'],
  ['delayMs', 'delay_ms'],
  ['releaseMs', 'release_ms'],
  ['retryAfterMs', 'retry_after_ms'],
  ['remaining', 'remaining'],
  ['resetMs', 'reset_ms'],
  ['status', 'status'],
  ['retryAfter', 'retry_after'],
];

/** What each field means: the JSON carries it so the file explains itself. */
const FIELD_NOTES: Readonly<Record<keyof Row, string>> = {
  request:
    "the request (first attempt) this attempt belongs to, from 1; the same in every lane (the page's Request #n)",
  row: "this lane's decision number, from 1 (retries included)",
  attempt: '1 for a first attempt, 2 for its first retry …',
  arrivalMs: 'virtual time the attempt reached the limiter, ms',
  key: 'the limiter key it was counted against',
  client: 'the client that sent it, from 1',
  instance: 'the service instance that decided it, from 1',
  outcome: 'admit, delay or reject',
  delayMs: 'how long a delayed request waited, ms (0 otherwise)',
  releaseMs: 'when it reached the backend (arrival + delay), ms; null when rejected',
  retryAfterMs: 'smallest wait after which the same request passes, ms (0 unless rejected)',
  remaining: 'further requests at the same instant that would be admitted',
  resetMs: 'time until the key is back to idle with no more traffic, ms',
  status: 'HTTP status the client got: 200, or 429 (nginx: limit_req_status, default 503)',
  retryAfter: 'the Retry-After header, whole seconds rounded up; null unless rejected',
};

/** Reads rows of one lane straight from the columns (no object per row beyond the Row itself). */
function rowReader(result: SimResult, lane: LaneResult): (row: number) => Row {
  const c = lane.columns;
  const status = rejectStatus(lane.config);
  const clientKey = lane.clientKey ?? result.clientKey;
  return (r) => {
    const code = c.outcome[r] as number;
    const wait = c.waitMs[r] as number;
    const arrivalMs = c.arrivalMs[r] as number;
    const origin = c.origin[r] as number;
    const client = result.arrivals.client[origin] as number;
    const rejected = code === OUTCOME_REJECT;
    const delayMs = code === OUTCOME_DELAY ? wait : 0;
    return {
      request: origin + 1,
      row: r + 1,
      attempt: c.attempt[r] as number,
      arrivalMs,
      key: result.keyNames[clientKey[client] as number] as string,
      client: client + 1,
      instance: (c.instance[r] as number) + 1,
      outcome: OUTCOMES[code] ?? 'reject',
      delayMs,
      releaseMs: rejected ? null : arrivalMs + delayMs,
      retryAfterMs: rejected ? wait : 0,
      remaining: c.remaining[r] as number,
      resetMs: c.resetMs[r] as number,
      status: rejected ? status : 200,
      retryAfter: rejected ? String(toSeconds(wait)) : null,
    };
  };
}

/** One CSV field: the page's one writer (src/trace/csv.ts), re-exported for this module's users. */
export { csvField };

const CRLF = '\r\n';

/** Appends the rows of every lane, ROWS_PER_PART to a piece. */
function writeRows(
  result: SimResult,
  plan: DecisionLogPlan,
  lane: number,
  line: (row: Row) => string,
  separator: string,
  parts: string[],
): void {
  const laneResult = result.lanes[lane] as LaneResult;
  const read = rowReader(result, laneResult);
  const n = plan.rows[lane] ?? 0;
  for (let start = 0; start < n; start += ROWS_PER_PART) {
    const end = Math.min(n, start + ROWS_PER_PART);
    const lines: string[] = [];
    for (let r = start; r < end; r += 1) lines.push(line(read(r)));
    parts.push((start === 0 ? '' : separator) + lines.join(separator));
  }
}

/**
 * The log as CSV: a header row, then one row per decision per limiter (lane by lane, in decision
 * order), CRLF line ends. Columns: lane, then `FIELDS`. `config` is accepted for symmetry with the
 * JSON (the CSV has no room for it: the JSON carries the config and the link).
 */
export function decisionLogCsv(
  result: SimResult,
  _config: PlaygroundConfig,
  options: DecisionLogOptions = {},
): DecisionLogFile {
  const plan = planDecisionLog(result, options.maxDecisions);
  const parts = [['lane', ...FIELDS.map(([, header]) => header)].join(',') + CRLF];
  result.lanes.forEach((lane, i) => {
    const name = csvField(lane.name);
    const rowParts: string[] = [];
    writeRows(
      result,
      plan,
      i,
      (row) => `${name},${FIELDS.map(([field]) => csvField(row[field])).join(',')}`,
      CRLF,
      rowParts,
    );
    for (const part of rowParts) parts.push(part);
    if (rowParts.length > 0) parts.push(CRLF);
  });
  return { parts, mimeType: 'text/csv;charset=utf-8', plan };
}

/** One JSON row: the fields in column order, on one line. */
function jsonRow(row: Row): string {
  const out: Record<string, unknown> = {};
  for (const [field] of FIELDS) out[field] = row[field];
  return JSON.stringify(out);
}

/**
 * The log as JSON: the format version, the link and config that reproduce the run, the cut (if
 * any), and per lane its name, system id, algorithm config, a metrics summary and its decisions, one per line.
 * The metrics cover the whole run even when the decisions were cut.
 */
export function decisionLogJson(
  result: SimResult,
  config: PlaygroundConfig,
  options: DecisionLogOptions = {},
): DecisionLogFile {
  const plan = planDecisionLog(result, options.maxDecisions);
  const cut = describeCut(plan);
  const head = {
    version: DECISION_LOG_VERSION,
    generatedBy: 'Rate Limit Lab',
    link: options.link ?? `?${encodeConfig(config)}`,
    decisions: plan.total,
    written: plan.included,
    maxDecisions: plan.maxDecisions,
    cutAtMs: plan.cutAtMs,
    notes: [...(cut === null ? [] : [cut]), ...result.truncation],
    fields: FIELD_NOTES,
    config,
  };
  const headText = JSON.stringify(head, null, 2);
  const parts = [`${headText.slice(0, headText.lastIndexOf('}')).trimEnd()},\n  "lanes": [`];
  result.lanes.forEach((lane, i) => {
    const m = lane.metrics;
    const entry = config.limiters[i];
    const meta = {
      name: lane.name,
      // The system the lane models (`l=<system>:…` in the link), beside the algorithm's config.
      system: systemOf(entry ?? { config: lane.config }).id,
      config: lane.config,
      decisions: lane.columns.rows,
      written: plan.rows[i] ?? 0,
      metrics: {
        offered: m.total.offered,
        admitted: m.total.admitted,
        delayed: m.total.delayed,
        rejected: m.total.rejected,
        peakPassed: m.peakPassed,
        delay: { p50Ms: m.delay.p50Ms, p95Ms: m.delay.p95Ms, maxMs: m.delay.maxMs },
      },
    };
    const metaText = JSON.stringify(meta);
    parts.push(`${i === 0 ? '' : ','}\n    ${metaText.slice(0, -1)},"requests":[`);
    const rowParts: string[] = [];
    writeRows(result, plan, i, jsonRow, ',\n      ', rowParts);
    if (rowParts.length > 0) parts.push('\n      ', ...rowParts, '\n    ');
    parts.push(']}');
  });
  parts.push('\n  ]\n}\n');
  return { parts, mimeType: 'application/json', plan };
}
