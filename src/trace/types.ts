/**
 * A trace: the requests of an access log, held as typed arrays (16 bytes a request: an 8-byte
 * arrival, a 4-byte key id, a 2-byte cost and a 2-byte recorded status), plus what the parser saw
 * on the way (format, resolution, malformed lines, reordering).
 *
 * Times are milliseconds since the Unix epoch (UTC) as the log records them; replay shifts them so
 * the first request is at virtual time 0 (src/trace/replay.ts).
 */

import { MAX_TRACE_SOURCE_REQUESTS } from '../sim';

/** Formats the parsers recognise. */
export type TraceFormat = 'nginx' | 'alb' | 'har' | 'csv' | 'tsv' | 'jsonl' | 'parquet';

/** One part of a key, chosen as a gateway would key its limiter. */
export type KeyPart =
  /** The address the connection came from (nginx `$remote_addr`, ALB `client:port` without port). */
  | { kind: 'client' }
  /** The first hop of X-Forwarded-For (what the client claims; spoofable). */
  | { kind: 'xff-first' }
  /** The last hop of X-Forwarded-For (what the nearest proxy saw). */
  | { kind: 'xff-last' }
  /** The request path without the query string. */
  | { kind: 'path' }
  /** A named field: a log variable (`http_x_api_key`), a CSV/JSON column, or a HAR request header. */
  | { kind: 'field'; name: string };

/** Parts joined in order; an empty list gives every request one key. */
export type KeySpec = KeyPart[];

/** A line (row, entry) that did not parse. Lines are 1-based; a CSV row counts from its header. */
export interface Malformed {
  line: number;
  reason: string;
}

export interface ParseReport {
  format: TraceFormat;
  /** A human name of the format, e.g. `nginx combined` or `nginx log_format "…"`. */
  formatName: string;
  /** Lines (rows, entries) read, blank lines excluded. */
  lines: number;
  /** Lines that did not parse; only the first few are listed in `malformedFirst`. */
  malformed: number;
  malformedFirst: Malformed[];
  /** Requests whose arrival was earlier than an earlier line's (they were sorted into place). */
  outOfOrder: number;
  /** The largest step back in time, ms. */
  maxBackstepMs: number;
  /** How far back a line may be and still be sorted into place while reading, ms. */
  reorderWindowMs?: number;
  /**
   * Requests earlier than requests already let out of the reorder window: they are sorted into
   * place at the end (the trace stays exact) and named in `notes`.
   */
  outsideWindow?: number;
  /** The line of the first of them (0 when none). */
  firstOutsideLine?: number;
  /**
   * The finest time step the log can express, ms: 1000 when only `$time_local` (whole seconds) is
   * there, 1 for `$msec`, ISO times with milliseconds and epoch-ms columns.
   */
  resolutionMs: number;
  /** How the arrival time was derived, in words (shown on the page). */
  timeSource: string;
  /** Notes for the page (mixed formats, 1-second resolution, identical lines …). */
  notes: string[];
  /**
   * What a request can be keyed by besides the built-in parts: a CSV/TSV header's columns, the
   * first JSON line's fields, or the request headers a HAR's entries carry (lower-case, at most
   * KEY_FIELDS_LISTED). Absent for line logs.
   */
  keyFields?: string[];
}

/** Columns or headers listed in `ParseReport.keyFields`. */
export const KEY_FIELDS_LISTED = 200;

export interface Trace {
  /** File name (or a label). */
  name: string;
  count: number;
  /** Arrival ms since the epoch, ascending. */
  arrivalMs: Float64Array;
  /** Index into `keys`. */
  keyId: Uint32Array;
  keys: string[];
  /** Cost (weight) of each request, 1 when the log has none. Capped at 65,535. */
  cost: Uint16Array;
  /** HTTP status the log recorded for each request, 0 when it has none. */
  status: Uint16Array;
  keySpec: KeySpec;
  report: ParseReport;
  /** The addresses of the requests whose key is empty, when the log has them (see the type). */
  emptyClients?: EmptyKeyClients;
}

/**
 * The client address of each request whose key is empty (src/trace/emptyKeys.ts), kept only for
 * those requests and only when the key is not the address itself: a system that falls back to the
 * client address for them (Kong) counts each with its address's other requests.
 */
export interface EmptyKeyClients {
  /**
   * One entry per empty-key request, in trace order (the i-th request of the empty key): 0 when its
   * line has no address, else 1 + an index into `names`.
   */
  client: Uint32Array;
  /** The addresses, each once. */
  names: string[];
}

/** The file is refused before reading more than this many bytes (compressed or not). */
export const MAX_FILE_BYTES = 1024 * 1024 * 1024;
/** Bytes a decompressed stream may grow to before it is refused. */
export const MAX_TEXT_BYTES = 2 * 1024 * 1024 * 1024 - 1;
/** Formats that must be read whole (HAR, CSV with quoted newlines) are refused above this. */
export const MAX_BUFFERED_BYTES = 256 * 1024 * 1024;
/** Requests a trace may hold: 16 bytes each, so at most 80 MB (the simulator's bound). */
export const MAX_TRACE_REQUESTS = MAX_TRACE_SOURCE_REQUESTS;
/** Distinct keys a trace may hold. */
export const MAX_TRACE_KEYS = 1_000_000;
/** Longest line read (bytes); a longer one is counted malformed, its text never decoded. */
export const MAX_LINE_BYTES = 1024 * 1024;
/** Malformed lines listed (all are counted). */
export const MALFORMED_LISTED = 20;
/** Earliest accepted time: 1970-01-01T00:00:00Z. */
export const MIN_EPOCH_MS = 0;
/** Latest accepted time: 2100-01-01T00:00:00Z. */
export const MAX_EPOCH_MS = 4_102_444_800_000;
/** Bytes per request the trace holds (arrival 8 + key 4 + cost 2 + status 2). */
export const BYTES_PER_REQUEST = 16;

/** A parse that cannot go on (the message names what and where). */
export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceError';
  }
}

/** The requests to skip in a replay: those of key `id`, with their outcome (src/trace/emptyKeys.ts). */
export interface EmptyKeyExempt {
  /** The empty key's id in the trace's keys. */
  id: number;
  outcome: 'admit' | 'reject';
}
