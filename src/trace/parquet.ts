/**
 * Parquet files (what log pipelines write: Spark, Athena/Trino CTAS, DuckDB `COPY … (FORMAT
 * parquet)`, Firehose) → a trace. Read with hyparquet, one row group at a time and only the
 * columns a request needs, so a large file is never held whole: each row group's column chunks
 * are sliced from the file, decoded, turned into requests and let go before the next.
 *
 * Columns are found by name as the CSV and JSON-lines readers find them (delimited.ts
 * `findColumns`): a timestamp column (`timestamp`, `time`, `ts` …), and optionally the client
 * address, X-Forwarded-For, path, user agent, status and cost. The time column may be a Parquet
 * TIMESTAMP (ms, µs or ns; INT96 too), a number of epoch seconds / ms / µs / ns (told apart by
 * size, as in CSV) or text (ISO 8601, nginx `$time_local`).
 *
 * Bad input is named, never half-loaded: a file that is not Parquet (no `PAR1` at its start), a
 * file cut short (no `PAR1` footer), damaged metadata or pages (the row group and column), no
 * timestamp column, a nested column (struct, list, map) where a flat one is needed.
 */
import { parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type {
  Compressors,
  DecodedArray,
  FileMetaData,
  ParquetParsers,
  SchemaElement,
  SchemaTree,
} from 'hyparquet';
import { decompressBrotli } from 'hyparquet-compressors/src/brotli.js';
import { decompressLz4, decompressLz4Raw } from 'hyparquet-compressors/src/lz4.js';
import { decompress as decompressZstd } from 'fzstd';
import { gunzipSync } from 'fflate';
import { TraceBuilder, TraceMerger } from './builder';
import type { BuiltTrace } from './builder';
import { findColumns } from './delimited';
import type { Columns } from './delimited';
import type { ParseOptions } from './parse';
import { startsWithParquetMagic } from './parquetDetect';
import { parseCost, parseStatus, pathOfUrl } from './record';
import type { RequestRecord } from './record';
import { parseAnyTime, parseEpoch } from './time';
import { MAX_TRACE_REQUESTS, TraceError } from './types';
import type { KeySpec } from './types';
import { plural, quoteText } from '../core';

/** A file read in slices (a browser `File`, or bytes in tests). */
export interface ParquetSource {
  byteLength: number;
  slice(start: number, end: number): Promise<ArrayBuffer>;
}

/** How far reading got (bytes: the end of the last row group read, of `total`). */
export interface ParquetProgress {
  bytes: number;
  total: number;
  requests: number;
  lines: number;
  malformed: number;
}

/**
 * Decoded bytes of the columns read from one row group, at most: a row group is read whole (its
 * pages are compressed together per column), so a writer's huge row group is refused, not read.
 */
export const MAX_ROW_GROUP_BYTES = 512 * 1024 * 1024;

/**
 * Codecs read (parquet-format `CompressionCodec`): SNAPPY by hyparquet itself, GZIP by fflate (the
 * page's gzip reader), ZSTD by fzstd, BROTLI, LZ4 and LZ4_RAW by hyparquet-compressors (the files
 * that hold them: its index would add a WebAssembly snappy). LZO is not read.
 */
const COMPRESSORS: Compressors = {
  GZIP: (input) => gunzipSync(input),
  ZSTD: (input) => decompressZstd(input),
  BROTLI: decompressBrotli,
  LZ4: decompressLz4,
  LZ4_RAW: decompressLz4Raw,
};

/**
 * Parquet timestamps as whole epoch ms (floored, as parseEpoch floors µs and ns), not Date objects;
 * a DATE as its day's start.
 */
const PARSERS: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (v) => Number(v),
  timestampFromMicroseconds: (v) => Number(floorDiv(v, 1000n)),
  timestampFromNanoseconds: (v) => Number(floorDiv(v, 1_000_000n)),
  dateFromDays: (days) => days * 86_400_000,
};

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b < 0n ? q - 1n : q;
}

const KB = (n: number): string =>
  n < 1024 * 1024
    ? `${Math.ceil(n / 1024).toLocaleString('en-US')} kB`
    : `${Math.round(n / (1024 * 1024)).toLocaleString('en-US')} MB`;

/** What a top-level column is, for messages: `a struct`, `a list`, `a map`, `repeated`. */
function nestedKind(node: SchemaTree): string | null {
  const e = node.element;
  const t = e.logical_type?.type ?? e.converted_type;
  if (t === 'LIST') return 'a list';
  if (t === 'MAP' || t === 'MAP_KEY_VALUE') return 'a map';
  if (node.children.length > 0) return 'a struct';
  if (e.repetition_type === 'REPEATED') return 'a repeated field (a list)';
  return null;
}

/** The Parquet type of a flat column, as a message names it. */
function typeName(e: SchemaElement): string {
  const lt = e.logical_type;
  if (lt?.type === 'TIMESTAMP')
    return `TIMESTAMP(${lt.unit}, ${lt.isAdjustedToUTC ? 'UTC' : 'no zone: read as UTC'})`;
  if (lt !== undefined) return lt.type;
  return e.converted_type ?? e.type ?? 'unknown';
}

/** How a time column's values are read. */
type TimeKind = 'instant' | 'date' | 'number' | 'text';

function timeKindOf(e: SchemaElement, name: string): TimeKind {
  const lt = e.logical_type;
  const ct = e.converted_type;
  if (lt?.type === 'TIMESTAMP' || ct === 'TIMESTAMP_MILLIS' || ct === 'TIMESTAMP_MICROS')
    return 'instant';
  if (e.type === 'INT96') return 'instant';
  if (lt?.type === 'DATE' || ct === 'DATE') return 'date';
  if (e.type === 'INT32' || e.type === 'INT64' || e.type === 'FLOAT' || e.type === 'DOUBLE')
    return 'number';
  if (e.type === 'BYTE_ARRAY' || e.type === 'FIXED_LEN_BYTE_ARRAY') return 'text';
  throw new TraceError(
    `${name}: the timestamp column is ${e.type ?? 'untyped'}, not a time (a TIMESTAMP, epoch seconds/ms/µs/ns, or ISO 8601 text).`,
  );
}

/** A cell as text (what a key, status or cost is read from); undefined when null. */
function cellText(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (v instanceof Uint8Array)
    return Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('');
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x));
}

/** Checks the file's two `PAR1` marks and the footer length before anything is decoded. */
async function checkFrame(src: ParquetSource, name: string): Promise<void> {
  const size = src.byteLength;
  const head = new Uint8Array(await src.slice(0, Math.min(size, 64)));
  if (!startsWithParquetMagic(head)) {
    const text = new TextDecoder('utf-8').decode(head.subarray(0, 24));
    throw new TraceError(
      `${name} is not a Parquet file: a Parquet file starts with "PAR1", and this one starts with ${quoteText(text, 40)}. ` +
        'If it is a text log, rename it (the page reads nginx, ALB, HAR, CSV/TSV and JSON lines, gzip too). Nothing was loaded.',
    );
  }
  if (size < 12) {
    throw new TraceError(
      `${name} is ${plural(size, 'byte')}: too short to be a Parquet file (it is cut short). Nothing was loaded.`,
    );
  }
  const tail = new Uint8Array(await src.slice(size - 8, size));
  if (!startsWithParquetMagic(tail.subarray(4))) {
    throw new TraceError(
      `${name} is cut short: it starts as Parquet but does not end with Parquet's footer ("PAR1" in its last 4 bytes, at byte ${(size - 4).toLocaleString('en-US')}), ` +
        'so its metadata (the schema and where each row group is) is missing — the file was truncated or is still being written. Nothing was loaded.',
    );
  }
  const metaLen = new DataView(tail.buffer, tail.byteOffset, 8).getUint32(0, true);
  if (metaLen > size - 12) {
    throw new TraceError(
      `${name} is damaged: its footer says the metadata is ${plural(metaLen, 'byte')}, but the file has ${plural(size - 12, 'byte')} before it. Nothing was loaded.`,
    );
  }
}

/** The columns a trace needs: the roles found by name, and the fields the key names. */
interface Plan {
  cols: Columns;
  /** Top-level columns read, each flat. */
  read: string[];
  timeKind: TimeKind;
  timeType: string;
  /** Nested columns not read (named in the report). */
  skippedNested: string[];
}

function planColumns(meta: FileMetaData, opts: ParseOptions, keySpec: KeySpec): Plan {
  const { name } = opts;
  const tree = parquetSchema(meta);
  const top = new Map(tree.children.map((c) => [c.element.name, c]));
  const names = [...top.keys()];
  const nested = tree.children
    .map((c) => ({ col: c.element.name, kind: nestedKind(c) }))
    .filter((c): c is { col: string; kind: string } => c.kind !== null);
  const nestedMsg = (col: string, kind: string, role: string): TraceError =>
    new TraceError(
      `${name}: column ${quoteText(col)} (the ${role}) is nested — ${kind} — and the page reads flat columns only. ` +
        `Write it flat (e.g. DuckDB \`SELECT ${col}.field AS ${col}_field …\` or Spark \`col("${col}.field")\`), or choose another column. Nothing was loaded.`,
    );
  let cols: Columns;
  try {
    cols = findColumns(names, opts, `${name} (Parquet schema)`);
  } catch (e) {
    if (!(e instanceof TraceError) || nested.length === 0) throw e;
    // No time among the top-level names: a nested column may hold it.
    const list = nested.map((c) => `${quoteText(c.col)} (${c.kind})`).join(', ');
    throw new TraceError(
      `${e.message.replace(/\.$/, '')}. Nested columns are not searched: ${list}; write the time as a top-level column.`,
    );
  }
  const roles: [keyof Columns, string][] = [
    ['time', 'timestamp column'],
    ['client', 'client address'],
    ['xff', 'X-Forwarded-For'],
    ['path', 'path'],
    ['userAgent', 'user agent'],
    ['status', 'status'],
    ['cost', 'cost'],
  ];
  const read = new Set<string>();
  for (const [role, label] of roles) {
    const col = cols[role];
    if (col === undefined) continue;
    const node = top.get(col) as SchemaTree;
    const kind = nestedKind(node);
    if (kind !== null) throw nestedMsg(col, kind, label);
    read.add(col);
  }
  for (const part of keySpec) {
    if (part.kind !== 'field') continue;
    const node = top.get(part.name);
    if (node === undefined) continue; // as in CSV: a missing field is an empty key part
    const kind = nestedKind(node);
    if (kind !== null) throw nestedMsg(part.name, kind, 'key');
    read.add(part.name);
  }
  const timeEl = (top.get(cols.time) as SchemaTree).element;
  return {
    cols,
    read: [...read],
    timeKind: timeKindOf(timeEl, name),
    timeType: typeName(timeEl),
    skippedNested: nested.map((c) => c.col).filter((c) => !read.has(c)),
  };
}

/** One row group's columns, each as one array of its rows. */
async function readGroup(
  src: ParquetSource,
  meta: FileMetaData,
  columns: string[],
  rowStart: number,
  rowEnd: number,
): Promise<Map<string, ArrayLike<unknown>>> {
  const pieces = new Map<string, { at: number; data: DecodedArray }[]>();
  await parquetRead({
    file: src,
    metadata: meta,
    columns,
    rowStart,
    rowEnd,
    compressors: COMPRESSORS,
    parsers: PARSERS,
    onChunk: (c) => {
      let list = pieces.get(c.columnName);
      if (list === undefined) pieces.set(c.columnName, (list = []));
      list.push({ at: c.rowStart, data: c.columnData });
    },
  });
  const out = new Map<string, ArrayLike<unknown>>();
  const n = rowEnd - rowStart;
  for (const col of columns) {
    const list = pieces.get(col) ?? [];
    if (list.length === 1 && list[0]?.at === rowStart && list[0].data.length === n) {
      out.set(col, list[0].data as ArrayLike<unknown>);
      continue;
    }
    const all = new Array<unknown>(n);
    for (const { at, data } of list) {
      for (let i = 0; i < data.length; i += 1) {
        const r = at + i - rowStart;
        if (r >= 0 && r < n) all[r] = (data as ArrayLike<unknown>)[i];
      }
    }
    out.set(col, all);
  }
  return out;
}

/** Why a hyparquet error happened, for people: its message without the library's prefix. */
function libraryReason(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/^parquet /, '');
}

/**
 * Reads a Parquet file into a trace, row group by row group (`onProgress` after each). Throws a
 * TraceError naming what is wrong and where; nothing is returned then.
 */
export async function readParquetTrace(
  src: ParquetSource,
  opts: ParseOptions,
  onProgress?: (p: ParquetProgress) => void,
): Promise<BuiltTrace> {
  const { name } = opts;
  const keySpec = opts.keySpec ?? [{ kind: 'client' }];
  const maxRequests = opts.maxRequests ?? MAX_TRACE_REQUESTS;
  await checkFrame(src, name);
  let meta: FileMetaData;
  try {
    meta = await parquetMetadataAsync(src, { parsers: PARSERS });
  } catch (e) {
    throw new TraceError(
      `${name}: its Parquet metadata (the footer) cannot be read (${libraryReason(e)}): the file is damaged. Nothing was loaded.`,
    );
  }
  const rowsInFile = Number(meta.num_rows);
  if (rowsInFile > maxRequests) {
    throw new TraceError(
      `Too many requests: ${name} has ${plural(rowsInFile, 'row')}; the page holds at most ${plural(maxRequests, 'request')}. Filter it first (e.g. one day, or WHERE status = 429). Nothing was loaded.`,
    );
  }
  const plan = planColumns(meta, opts, keySpec);
  const { cols, timeKind } = plan;
  const builder = new TraceBuilder(keySpec, maxRequests);
  const merger = new TraceMerger(name, keySpec, maxRequests);
  const codecs = new Set<string>();
  let resolutionMs = timeKind === 'instant' ? 1 : timeKind === 'date' ? 86_400_000 : 1000;
  let rowStart = 0;
  const groups = meta.row_groups;
  for (let g = 0; g < groups.length; g += 1) {
    const rg = groups[g] as (typeof groups)[number];
    const rows = Number(rg.num_rows);
    const where = `row group ${(g + 1).toLocaleString('en-US')} of ${groups.length.toLocaleString('en-US')} (rows ${(rowStart + 1).toLocaleString('en-US')}–${(rowStart + rows).toLocaleString('en-US')})`;
    let bytes = 0;
    let endByte = 0;
    for (const c of rg.columns) {
      const md = c.meta_data;
      if (md === undefined) continue;
      const top = md.path_in_schema[0] ?? '';
      const start = Number(md.dictionary_page_offset ?? md.data_page_offset);
      endByte = Math.max(endByte, start + Number(md.total_compressed_size));
      if (!plan.read.includes(top)) continue;
      bytes += Number(md.total_uncompressed_size);
      codecs.add(md.codec);
      if (start + Number(md.total_compressed_size) > src.byteLength) {
        throw new TraceError(
          `${name}: ${where}, column ${quoteText(top)} runs past the end of the file (to byte ${(start + Number(md.total_compressed_size)).toLocaleString('en-US')} of ${src.byteLength.toLocaleString('en-US')}): the file is damaged. Nothing was loaded.`,
        );
      }
    }
    if (bytes > MAX_ROW_GROUP_BYTES) {
      throw new TraceError(
        `${name}: ${where} holds ${KB(bytes)} of the columns the page reads; the page reads row groups up to ${KB(MAX_ROW_GROUP_BYTES)} at once. Write smaller row groups (e.g. DuckDB ROW_GROUP_SIZE 122880). Nothing was loaded.`,
      );
    }
    let data: Map<string, ArrayLike<unknown>>;
    try {
      data = await readGroup(src, meta, plan.read, rowStart, rowStart + rows);
    } catch (e) {
      throw new TraceError(
        `${name}: ${where} cannot be read (${libraryReason(e)}). Nothing was loaded.`,
      );
    }
    const col = (c: string | undefined): ArrayLike<unknown> | null =>
      c === undefined ? null : (data.get(c) ?? null);
    const times = col(cols.time) as ArrayLike<unknown>;
    const client = col(cols.client);
    const xff = col(cols.xff);
    const path = col(cols.path);
    const ua = col(cols.userAgent);
    const status = col(cols.status);
    const cost = col(cols.cost);
    for (let i = 0; i < rows; i += 1) {
      const row = rowStart + i + 1;
      const rec = recordOf(i);
      builder.noteLine(String(row));
      if (typeof rec === 'string') builder.bad(row, `row ${row.toLocaleString('en-US')}: ${rec}`);
      else builder.add(rec, row);
    }
    rowStart += rows;
    merger.add(builder.takeChunk());
    onProgress?.({
      bytes: Math.min(src.byteLength, endByte),
      total: src.byteLength,
      requests: builder.count,
      lines: builder.lines,
      malformed: builder.malformed,
    });

    /** Row i of this group as a record, or why it is malformed. */
    function recordOf(i: number): RequestRecord | string {
      const v = times[i];
      let timeMs: number;
      if (v === null || v === undefined)
        return `no value in timestamp column ${quoteText(cols.time)}`;
      if (timeKind === 'instant' || timeKind === 'date') {
        timeMs = v as number;
      } else {
        const text = cellText(v) as string;
        const t = timeKind === 'number' ? parseEpoch(text) : parseAnyTime(text.trim());
        if (t === null)
          return `${quoteText(text)} in column ${quoteText(cols.time)} is not a time (ISO 8601 or epoch)`;
        timeMs = t.ms;
        if (t.resolutionMs < resolutionMs) resolutionMs = t.resolutionMs;
      }
      const statusText = status === null ? undefined : cellText(status[i]);
      const st = parseStatus(statusText);
      if (Number.isNaN(st))
        return `${quoteText(statusText ?? '')} in column ${quoteText(cols.status ?? '')} is not an HTTP status`;
      const costText = cost === null ? undefined : cellText(cost[i]);
      const co = parseCost(costText);
      if (Number.isNaN(co))
        return `${quoteText(costText ?? '')} in column ${quoteText(cols.cost ?? '')} is not a whole number 0 – 65535`;
      const text = (a: ArrayLike<unknown> | null): string =>
        a === null ? '' : (cellText(a[i]) ?? '');
      return {
        timeMs,
        status: st,
        cost: co,
        client: text(client),
        xff: text(xff),
        path: pathOfUrl(text(path)),
        userAgent: text(ua),
        field: (f) => {
          const a = data.get(f);
          return a === undefined ? undefined : cellText(a[i]);
        },
      };
    }
  }
  merger.add(builder.finishReader(rowStart));
  const codecList = [...codecs].sort().join(', ') || 'UNCOMPRESSED';
  const built = merger.finish({
    format: 'parquet',
    formatName: `Parquet (${plural(groups.length, 'row group')}, ${codecList})`,
    resolutionMs,
    timeSource:
      `arrival = column "${cols.time}" (${plan.timeType}` +
      (timeKind === 'instant' ? ', floored to whole ms)' : ')'),
  });
  if (plan.skippedNested.length > 0) {
    built.report.notes.push(
      `Nested ${plan.skippedNested.length === 1 ? 'column' : 'columns'} not read (not needed): ${plan.skippedNested.map((c) => quoteText(c)).join(', ')}.`,
    );
  }
  return built;
}
