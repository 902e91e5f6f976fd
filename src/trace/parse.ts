/**
 * The entry point: bytes (a whole file or chunks of it, gzip or not) → Trace. Line formats are
 * parsed as the chunks come (so a worker can report progress and stop); HAR and CSV/TSV are read
 * whole (a JSON document; quoted newlines) and refused above MAX_BUFFERED_BYTES.
 */
import { Gunzip } from 'fflate';
import { ALB_LINE, parseAlbLine } from './alb';
import { TraceBuilder, TraceMerger } from './builder';
import type { BuiltTrace, PartColumns, TraceChunk, TracePart } from './builder';
import { jsonLineParser, parseDelimited } from './delimited';
import type { ColumnOptions } from './delimited';
import { parseHar } from './har';
import { NGINX_PRESETS, compileLogFormat } from './nginx';
import type { NginxFormat } from './nginx';
import type { LineParser } from './record';
import { fastLineReader } from './fastLines';
import type { FastLineReader } from './fastLines';
import {
  KEY_FIELDS_LISTED,
  MAX_BUFFERED_BYTES,
  MAX_FILE_BYTES,
  MAX_LINE_BYTES,
  MAX_TEXT_BYTES,
  MAX_TRACE_REQUESTS,
  TraceError,
} from './types';
import type { KeySpec, ParseReport, TraceFormat } from './types';
import { plural, quoteText } from '../core';

export interface ParseOptions extends ColumnOptions {
  /** File name, shown in messages. */
  name: string;
  /** Skip detection. */
  format?: TraceFormat;
  /** An nginx log_format string (implies format 'nginx'). */
  logFormat?: string;
  /** A variable/field holding each request's cost (nginx). */
  costField?: string;
  /** Default: client address (HAR: the path). */
  keySpec?: KeySpec;
  /** Decompressed bytes read before the log is refused (default MAX_TEXT_BYTES). */
  maxTextBytes?: number;
  /** Requests held before the log is refused (default MAX_TRACE_REQUESTS). */
  maxRequests?: number;
  /**
   * The text the format is decided from (the start of the file), when the bytes pushed are a later
   * range of it: a range read in a worker of its own reads as the file's start says.
   */
  detectFrom?: string;
  /** Where in the file the bytes pushed start (a range read on its own), for messages. */
  rangeStart?: number;
  /**
   * Bytes the range holds (a range read on its own): once its first piece is read, its columns
   * are made room for every request the range is estimated to hold, instead of growing (and being
   * copied) again and again as they fill.
   */
  rangeBytes?: number;
  /** The merger read requests go to (a streaming pass's, src/trace/stream.ts); default its own. */
  merger?: TraceMerger;
  /** Columns for the requests read (a merged part's, given back), instead of new ones. */
  columns?: PartColumns | null;
}

/** The key when none is given: the client address. */
const DEFAULT_KEY: KeySpec = [{ kind: 'client' }];

/** Text read before the format is decided. */
const DETECT_BYTES = 64 * 1024;
const DETECT_LINES = 50;

const MB = (n: number): string => `${Math.round(n / (1024 * 1024)).toLocaleString('en-US')} MB`;

/** Refuses a file before reading it, naming the limit. */
export function checkFileSize(name: string, bytes: number): void {
  if (bytes > MAX_FILE_BYTES) {
    throw new TraceError(
      `${quoteText(name)} is ${MB(bytes)}; the page reads files up to ${MB(MAX_FILE_BYTES)}. ` +
        'Cut it (e.g. `tail -n 1000000`) or filter it first.',
    );
  }
}

/** Why a text is not a log: NUL bytes or mostly control characters, with the offset. */
function binaryReason(bytes: Uint8Array): string | null {
  const n = Math.min(bytes.length, 8192);
  let control = 0;
  for (let i = 0; i < n; i += 1) {
    const b = bytes[i] as number;
    if (b === 0) return `NUL byte at offset ${i}`;
    if (b < 9 || (b > 13 && b < 32)) control += 1;
  }
  return n > 0 && control / n > 0.1 ? `${control} control bytes in the first ${n}` : null;
}

/** The format a line looks like (for mixed-format messages), or null. */
export function lookOfLine(line: string): string | null {
  const t = line.trimStart();
  if (t.startsWith('{')) return 'JSON';
  if (ALB_LINE.test(t)) return 'an ALB entry';
  for (const f of compiledPresets()) {
    if (!f.regex.test(line)) continue;
    return f.name === COMMON ? commonLook(line) : f.name;
  }
  return null;
}

const COMMON = 'common log format';
/** The common log format's last field, `$body_bytes_sent`, as it should end a line. */
const COMMON_END = / \d{3} (?:\d+|-)$/;

/**
 * What a line that the common log format's pattern accepts really is: the pattern's last variable
 * takes the rest of the line, so a combined line cut inside its user agent (an odd number of
 * quotes after the size) or a line with more fields after the size matches it too.
 */
function commonLook(line: string): string {
  if (COMMON_END.test(line)) return COMMON;
  const m = / \d{3} (?:\d+|-)( .*)$/.exec(line);
  const after = m?.[1] ?? '';
  let quotes = 0;
  for (let i = 0; i < after.length; i += 1) if (after.charCodeAt(i) === 34) quotes += 1;
  return after.startsWith(' "') && quotes % 2 === 1
    ? 'an nginx combined line cut short (a quoted field is not closed)'
    : `${COMMON} with more fields after $body_bytes_sent`;
}

let presetCache: NginxFormat[] | null = null;
function compiledPresets(): NginxFormat[] {
  presetCache ??= NGINX_PRESETS.map((p) => compileLogFormat(p.format, p.name));
  return presetCache;
}

type Plan =
  | {
      kind: 'lines';
      format: TraceFormat;
      name: string;
      parse: LineParser;
      /** Reads plain lines from bytes (nginx formats), or null. */
      fast: FastLineReader | null;
      resolution: () => number;
      timeSource: string;
      /** The fields a request can be keyed by (JSON lines: the first object's), once read. */
      fields?: () => string[] | null;
    }
  | { kind: 'whole'; format: 'har' | 'csv' | 'tsv' };

/**
 * Why a head whose lines are mostly not in `best` (the nginx format its first matching line is in)
 * is refused: the first line that is not in it, what that line looks like, and how many.
 */
function mixedMessage(head: string, best: NginxFormat): string {
  const all = head.split('\n');
  // The last line of a partial head may be cut.
  const lines = all.slice(0, Math.max(1, all.length - 1)).map((l) => l.replace(/\r$/, ''));
  let firstIn = 0;
  let firstOut = 0;
  let out = 0;
  let read = 0;
  for (let i = 0; i < lines.length && read < DETECT_LINES; i += 1) {
    const l = lines[i] as string;
    if (l.trim() === '') continue;
    read += 1;
    if (best.regex.test(l)) {
      if (firstIn === 0) firstIn = i + 1;
    } else {
      out += 1;
      if (firstOut === 0) firstOut = i + 1;
    }
  }
  const wrong = lines[firstOut - 1] ?? '';
  const look = lookOfLine(wrong);
  return (
    `Mixed formats: line ${firstIn} is ${best.name}, but line ${firstOut} (${quoteText(wrong, 80)}) ` +
    `${look !== null ? `is ${look}` : `is not ${best.name} (${best.parse(wrong) as string})`}; ` +
    `${out} of the first ${plural(read, 'line')} are not ${best.name}. Choose the format, or split the log.`
  );
}

/** Decides the format from the first lines of the text. */
export function detectFormat(head: string, opts: ParseOptions): Plan {
  if (opts.logFormat !== undefined) {
    const f = compileLogFormat(opts.logFormat, undefined, opts.costField);
    return {
      kind: 'lines',
      format: 'nginx',
      name: f.name,
      parse: f.parse,
      fast: fastLineReader(f, opts.keySpec ?? DEFAULT_KEY, opts.costField),
      resolution: () => f.resolutionMs,
      timeSource: f.timeSource,
    };
  }
  const lines = head
    .split('\n')
    .map((l) => l.replace(/\r$/, ''))
    .filter((l) => l.trim() !== '');
  // The last line of a partial head may be cut.
  const sample = lines.slice(0, Math.min(DETECT_LINES, Math.max(1, lines.length - 1)));
  const first = (sample[0] ?? '').trimStart();
  const forced = opts.format;
  if (
    forced === 'har' ||
    (forced === undefined &&
      first.startsWith('{') &&
      /"log"\s*:/.test(head) &&
      /"entries"\s*:/.test(head))
  ) {
    return { kind: 'whole', format: 'har' };
  }
  if (forced === 'jsonl' || (forced === undefined && first.startsWith('{'))) {
    const j = jsonLineParser(opts);
    return {
      kind: 'lines',
      format: 'jsonl',
      name: 'JSON lines',
      parse: j.parse,
      fast: null,
      resolution: j.resolution,
      fields: j.fields,
      timeSource: 'arrival = the timestamp field',
    };
  }
  if (forced === 'alb' || (forced === undefined && ALB_LINE.test(first))) {
    return {
      kind: 'lines',
      format: 'alb',
      name: 'AWS ALB access log',
      parse: parseAlbLine,
      fast: null,
      resolution: () => 1,
      timeSource: 'arrival = request_creation_time (when the load balancer received the request)',
    };
  }
  if (forced === undefined || forced === 'nginx') {
    let best: NginxFormat | null = null;
    let bestHits = 0;
    // The common pattern's last variable takes the rest of the line, so it matches every line of
    // the longer formats (and combined lines cut short): it scores only lines that end after
    // $body_bytes_sent, unless no format has a majority that way.
    for (const strict of [true, false]) {
      for (const f of compiledPresets()) {
        let hits = 0;
        for (const l of sample) {
          if (f.regex.test(l) && (!strict || f.name !== COMMON || COMMON_END.test(l))) hits += 1;
        }
        if (hits > bestHits) {
          best = f;
          bestHits = hits;
        }
      }
      if (bestHits * 2 >= sample.length) break;
    }
    if (best !== null && bestHits * 2 < sample.length && forced === undefined) {
      throw new TraceError(mixedMessage(head, best));
    }
    if (best !== null && (bestHits * 2 >= sample.length || forced === 'nginx')) {
      const f =
        opts.costField !== undefined
          ? compileLogFormat(
              NGINX_PRESETS.find((p) => p.name === best.name)?.format ?? '',
              best.name,
              opts.costField,
            )
          : best;
      // The common pattern takes the rest of a line as $body_bytes_sent: say so when it did.
      const name =
        f.name === COMMON && sample.some((l) => f.regex.test(l) && !COMMON_END.test(l))
          ? `${COMMON} (fields after $body_bytes_sent are not read)`
          : f.name;
      return {
        kind: 'lines',
        format: 'nginx',
        name,
        parse: f.parse,
        fast: fastLineReader(f, opts.keySpec ?? DEFAULT_KEY, opts.costField),
        resolution: () => f.resolutionMs,
        timeSource: f.timeSource,
      };
    }
    if (forced === 'nginx') {
      throw new TraceError(
        `Line 1 matches none of the nginx formats the page knows (${NGINX_PRESETS.map((p) => p.name).join(', ')}); give the log_format.`,
      );
    }
  }
  if (forced === 'tsv' || (forced === undefined && first.includes('\t')))
    return { kind: 'whole', format: 'tsv' };
  if (forced === 'csv' || (forced === undefined && first.includes(',')))
    return { kind: 'whole', format: 'csv' };
  throw new TraceError(
    `Unrecognised format: line 1 (${quoteText(first, 80)}) is not nginx (combined, main, common or a known log_format), an ALB entry, HAR, JSON lines, CSV or TSV. Give the nginx log_format or choose the format.`,
  );
}

/** Compressed bytes handed to the inflater at once: deflate expands at most ~1,032×, so one
 * slice yields at most ~16 MB of text, however the file was made (a gzip bomb included). */
const INFLATE_SLICE = 16 * 1024;
/** Text bytes decoded at once (V8's string limit is ~536M characters; stay far below it). */
const TEXT_SLICE = 4 * 1024 * 1024;

/** Requests a whole-file stream reads before it hands them to its merger (bounded memory). */
const HANDOFF = 1 << 16;

const KB = (n: number): string =>
  n < 1024 * 1024 ? `${Math.ceil(n / 1024).toLocaleString('en-US')} kB` : MB(n);

/**
 * A streaming parser: push() chunks of the file as they are read, then finish(). Gzip is detected
 * from the first two bytes (1f 8b) and inflated on the fly, single- or multi-member.
 *
 * Everything is bounded: compressed input is inflated in INFLATE_SLICE pieces, text is split into
 * lines on bytes and decoded TEXT_SLICE at most at a time, a line over MAX_LINE_BYTES is counted
 * malformed without being decoded, and reading stops at MAX_TEXT_BYTES of text or the request cap
 * with a TraceError that says how far it got. Nothing is dropped silently: every line is a
 * request, a blank line, or a counted malformed line.
 */
export class TraceStream {
  /** Bytes pushed so far (as read from the file). */
  bytesIn = 0;
  /** Decompressed text bytes so far. */
  textBytes = 0;
  private gunzip: Gunzip | null = null;
  private started = false;
  private readonly decoder = new TextDecoder('utf-8');
  /** Text bytes held before the format is decided. */
  private headParts: Uint8Array[] = [];
  private headBytes = 0;
  /** The start of a line whose end has not come yet, in pieces (≤ MAX_LINE_BYTES in all). */
  private restParts: Uint8Array[] = [];
  private restBytes = 0;
  /** Bytes of an over-long line being skipped (0 when none). */
  private longLine = 0;
  private plan: Plan | null = null;
  private whole: string[] = [];
  private wholeBytes = 0;
  private lineNo = 0;
  private readonly builder: TraceBuilder;
  /** Sorts what the builder reads (null when this reads one range of a file, for a merger elsewhere). */
  private readonly merger: TraceMerger | null;
  private checkedBinary = false;
  /** Whether the range's columns were sized (sizeRange). */
  private sized = false;

  constructor(private readonly opts: ParseOptions) {
    const spec = opts.keySpec ?? DEFAULT_KEY;
    const max = opts.maxRequests ?? MAX_TRACE_REQUESTS;
    this.builder = new TraceBuilder(spec, max, opts.columns ?? null);
    this.merger =
      opts.rangeStart !== undefined ? null : (opts.merger ?? new TraceMerger(opts.name, spec, max));
    this.maxTextBytes = opts.maxTextBytes ?? MAX_TEXT_BYTES;
    if (opts.detectFrom !== undefined) {
      this.plan = detectFormat(opts.detectFrom, opts);
      this.started = true;
      this.checkedBinary = true;
    }
  }

  private readonly maxTextBytes: number;

  /** Requests read so far. */
  get requests(): number {
    return this.builder.count;
  }

  get lines(): number {
    return this.builder.lines;
  }

  get malformed(): number {
    return this.builder.malformed;
  }

  /** How far reading got, for messages: `line 12,345, 3 MB into the file (40 MB of text)`. */
  where(): string {
    const start = this.opts.rangeStart;
    if (start !== undefined) {
      return `line ${(this.lineNo + 1).toLocaleString('en-US')} of the part from byte ${start.toLocaleString('en-US')}, ${KB(start + this.bytesIn)} into the file`;
    }
    const text = this.gunzip !== null ? ` (${KB(this.textBytes)} of text)` : '';
    return `line ${(this.lineNo + 1).toLocaleString('en-US')}, ${KB(this.bytesIn)} into the file${text}`;
  }

  push(chunk: Uint8Array): void {
    this.guard(() => {
      this.bytesIn += chunk.length;
      if (!this.started) {
        this.started = true;
        if (chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b) {
          this.gunzip = new Gunzip((data) => this.text(data));
        }
      }
      const g = this.gunzip;
      if (g !== null) {
        for (let i = 0; i < chunk.length; i += INFLATE_SLICE) {
          g.push(chunk.subarray(i, i + INFLATE_SLICE), false);
          this.handOff();
        }
      } else {
        for (let i = 0; i < chunk.length; i += TEXT_SLICE) {
          this.text(chunk.subarray(i, i + TEXT_SLICE));
          this.handOff();
        }
      }
      this.sizeRange();
    });
  }

  /**
   * A range of known size (`rangeBytes`, plain text): after its first piece, room for the requests
   * of the whole range at that piece's requests a byte, 2 % over (an estimate short by a little
   * costs one growth; the part is handed on as a view of its length, so room over costs memory
   * only until it is merged).
   */
  private sizeRange(): void {
    const total = this.opts.rangeBytes;
    if (total === undefined || this.sized || this.gunzip !== null) return;
    const n = this.builder.count;
    if (n === 0) return;
    this.sized = true;
    this.builder.reserve(Math.ceil((n / this.bytesIn) * total * 1.02) + 1024);
  }

  /** Hands what was read to the merger once there is a chunk's worth. */
  private handOff(): void {
    if (this.merger !== null && this.builder.pending >= HANDOFF) {
      // Lent: the merger copies the requests into its reorder window before it returns, and the
      // builder fills the same columns again.
      this.merger.add(this.builder.takeChunk(false, true));
    }
  }

  /** Runs `f`; a cap reached inside it names where reading stopped. */
  private guard<T>(f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof TraceError && e.message.startsWith('Too many')) {
        throw new TraceError(`${e.message} Reading stopped at ${this.where()}.`);
      }
      if (e instanceof TraceError) throw e;
      if (this.gunzip !== null && e instanceof Error) {
        throw new TraceError(
          `${quoteText(this.opts.name)} is not valid gzip (${e.message}) at ${this.where()}: nothing was loaded.`,
        );
      }
      throw e;
    }
  }

  private text(bytes: Uint8Array): void {
    if (!this.checkedBinary && bytes.length > 0) {
      this.checkedBinary = true;
      const why = binaryReason(bytes);
      if (why !== null) {
        throw new TraceError(
          `${quoteText(this.opts.name)} looks binary (${why}${this.gunzip ? ' after gunzip' : ''}); expected a text log, HAR, CSV or JSON lines (gzip allowed).`,
        );
      }
    }
    if (this.textBytes + bytes.length > this.maxTextBytes) {
      throw new TraceError(
        `${quoteText(this.opts.name)} decompresses to more than ${MB(this.maxTextBytes)}, the most the page reads: ` +
          `stopped at ${this.where()}, with ${plural(this.requests, 'request')} read. Nothing was loaded.`,
      );
    }
    this.textBytes += bytes.length;
    if (this.plan === null) {
      let from = 0;
      if (this.headBytes === 0) {
        // Empty lines before the first text are counted, not held (a file may be gigabytes of them).
        while (from < bytes.length && bytes[from] === 10) from += 1;
        this.lineNo += from;
        if (from === bytes.length) return;
      }
      this.headParts.push(bytes.slice(from));
      this.headBytes += bytes.length - from;
      if (this.headBytes >= DETECT_BYTES) this.decide();
      return;
    }
    this.feed(bytes);
  }

  private decide(): void {
    const all = new Uint8Array(this.headBytes);
    let at = 0;
    for (const p of this.headParts) {
      all.set(p, at);
      at += p.length;
    }
    this.headParts = [];
    this.headBytes = 0;
    const head = new TextDecoder('utf-8').decode(all.subarray(0, DETECT_BYTES * 2));
    if (head.trim() === '')
      throw new TraceError(`${quoteText(this.opts.name)} is empty: no lines to read.`);
    this.plan = detectFormat(head, this.opts);
    for (let i = 0; i < all.length; i += TEXT_SLICE) this.feed(all.subarray(i, i + TEXT_SLICE));
  }

  private feed(bytes: Uint8Array): void {
    const plan = this.plan as Plan;
    if (plan.kind === 'whole') {
      this.wholeBytes += bytes.length;
      if (this.wholeBytes > MAX_BUFFERED_BYTES) {
        throw new TraceError(
          `${quoteText(this.opts.name)}: a ${plan.format.toUpperCase()} file is read whole, and the page reads at most ${MB(MAX_BUFFERED_BYTES)} of its text: ` +
            `stopped ${KB(this.bytesIn)} into the file${this.gunzip !== null ? ` (${KB(this.textBytes)} of text)` : ''}. Nothing was loaded. Use JSON lines or a line log for larger traces.`,
        );
      }
      this.whole.push(this.decoder.decode(bytes, { stream: true }));
      return;
    }
    this.lineBytes(plan, bytes);
  }

  /** Splits bytes into lines: whole lines are parsed, the unfinished end is kept. */
  private lineBytes(plan: Plan & { kind: 'lines' }, b: Uint8Array): void {
    let start = 0;
    if (this.restBytes > 0 || this.longLine > 0) {
      const nl = b.indexOf(10);
      const upTo = nl < 0 ? b.length : nl;
      if (this.longLine > 0 || this.restBytes + upTo > MAX_LINE_BYTES) {
        this.longLine += this.restBytes + upTo;
        this.restParts = [];
        this.restBytes = 0;
        if (nl < 0) return;
        this.tooLong();
      } else if (nl < 0) {
        this.restParts.push(b.slice());
        this.restBytes += b.length;
        return;
      } else {
        this.restParts.push(b.subarray(0, nl + 1));
        const joined = this.takeRest(nl + 1);
        this.region(plan, joined, 0, joined.length);
      }
      start = nl + 1;
    }
    const last = b.lastIndexOf(10);
    if (last >= start) {
      this.region(plan, b, start, last + 1);
      start = last + 1;
    }
    if (start < b.length) {
      if (b.length - start > MAX_LINE_BYTES) this.longLine = b.length - start;
      else {
        this.restParts.push(b.slice(start));
        this.restBytes = b.length - start;
      }
    }
  }

  /** The held start of a line and `extra` bytes pushed after it, as one array. */
  private takeRest(extra = 0): Uint8Array {
    const joined = new Uint8Array(this.restBytes + extra);
    let at = 0;
    for (const p of this.restParts) {
      joined.set(p, at);
      at += p.length;
    }
    this.restParts = [];
    this.restBytes = 0;
    return joined;
  }

  /** An over-long line has ended: counted, named, never decoded. */
  private tooLong(): void {
    this.lineNo += 1;
    this.builder.noteLine(`\u0000long ${this.lineNo}`);
    this.builder.bad(
      this.lineNo,
      `is ${this.longLine.toLocaleString('en-US')} bytes long; the page reads lines up to ${MAX_LINE_BYTES.toLocaleString('en-US')} bytes`,
    );
    this.longLine = 0;
  }

  /** Bytes [from, to) end with a newline: each line in them is read. */
  private region(plan: Plan & { kind: 'lines' }, b: Uint8Array, from: number, to: number): void {
    let s = from;
    const fast = plan.fast;
    const builder = this.builder;
    while (s < to) {
      if (b[s] === 10) {
        // A run of empty lines, counted in a tight loop (a newline bomb is gigabytes of them).
        let k = s;
        while (k < to && b[k] === 10) k += 1;
        this.lineNo += k - s;
        s = k;
        continue;
      }
      if (fast !== null) {
        // Plain lines are read from their bytes, newline found on the way; any other goes the
        // string way.
        const nl = fast(b, s, builder, this.lineNo + 1);
        if (nl >= 0) {
          this.lineNo += 1;
          builder.noteLineBytes(b, s, nl > s && b[nl - 1] === 13 ? nl - 1 : nl);
          s = nl + 1;
          continue;
        }
      }
      const nl = b.indexOf(10, s);
      if (nl - s > MAX_LINE_BYTES) {
        this.longLine = nl - s;
        this.tooLong();
        s = nl + 1;
        continue;
      }
      if (fast !== null) {
        this.textLines(plan, this.decoder.decode(b.subarray(s, nl)));
        s = nl + 1;
        continue;
      }
      // Decoding costs a call: a run of lines (up to TEXT_SLICE) is decoded at once.
      let runEnd = nl;
      while (runEnd + 1 < to && runEnd - s < TEXT_SLICE) {
        const next = b.indexOf(10, runEnd + 1);
        if (next - runEnd - 1 > MAX_LINE_BYTES) break;
        runEnd = next;
      }
      this.textLines(plan, this.decoder.decode(b.subarray(s, runEnd)));
      s = runEnd + 1;
    }
  }

  /** Lines of decoded text (no newline at the end), each parsed. */
  private textLines(plan: Plan & { kind: 'lines' }, text: string): void {
    let start = 0;
    const n = text.length;
    while (start <= n) {
      let nl = text.indexOf('\n', start);
      if (nl < 0) nl = n;
      this.line(plan, text, start, nl);
      start = nl + 1;
    }
  }

  private line(plan: Plan & { kind: 'lines' }, text: string, start: number, end: number): void {
    this.lineNo += 1;
    let e = end;
    if (e > start && text.charCodeAt(e - 1) === 13) e -= 1;
    if (e === start) return;
    const line = text.slice(start, e);
    if (line.trim() === '') return;
    this.builder.noteLine(line);
    const r = plan.parse(line);
    if (typeof r === 'string') {
      const look = lookOfLine(line);
      this.builder.bad(
        this.lineNo,
        r,
        look !== null && look !== plan.name && !(plan.format === 'jsonl' && look === 'JSON')
          ? look
          : undefined,
      );
    } else {
      this.builder.add(r, this.lineNo);
    }
  }

  finish(): BuiltTrace {
    return this.guard(() => this.finishInner());
  }

  /**
   * In a byte range's read: the requests read since the last chunk once there are at least
   * `least` of them, as a chunk of this range's reader (copies: the columns are filled again), for
   * a merger to take while the rest of the range is read; else null. The part `finishPart` ends
   * with holds what is left.
   */
  takeRangeChunk(least: number): TraceChunk | null {
    if (this.opts.rangeStart === undefined || this.builder.pending < least) return null;
    return this.builder.takeChunk();
  }

  /** Ends a byte range of a line log (read with `detectFrom`): what it read, to be merged. */
  finishPart(): TracePart {
    return this.guard(() => {
      const plan = this.plan;
      if (plan === null || plan.kind !== 'lines') {
        throw new TraceError(`${quoteText(this.opts.name)}: only line logs are read in parts.`);
      }
      this.endLines(plan);
      return this.builder.finishReader(this.lineNo);
    });
  }

  /** The end of the last line (no newline after it). */
  private endLines(plan: Plan & { kind: 'lines' }): void {
    if (this.longLine > 0) this.tooLong();
    if (this.restBytes > 0) {
      const text = this.decoder.decode(this.takeRest());
      this.line(plan, text, 0, text.length);
    }
  }

  /** Ends the read for a streaming pass: what was read, the requests already handed on. */
  finishReport(): ParseReport {
    return this.guard(() => {
      const { merger, info } = this.endWhole();
      return merger.finishReport(info);
    });
  }

  private finishInner(): BuiltTrace {
    const { merger, info, keyFields } = this.endWhole();
    return withKeyFields(merger.finish(info), keyFields);
  }

  /** Reads what is left, hands every request to the merger; the format as the report names it. */
  private endWhole(): {
    merger: TraceMerger;
    info: Pick<ParseReport, 'formatName' | 'resolutionMs' | 'timeSource'> & {
      format: TraceFormat;
    };
    keyFields?: string[] | null;
  } {
    const merger = this.merger;
    if (merger === null)
      throw new TraceError(`${quoteText(this.opts.name)}: a range is finished as a part.`);
    if (this.gunzip) this.gunzip.push(new Uint8Array(0), true);
    if (this.plan === null) {
      if (this.bytesIn === 0 || this.headBytes === 0)
        throw new TraceError(`${quoteText(this.opts.name)} is empty: no lines to read.`);
      this.decide();
    }
    const plan = this.plan as Plan;
    if (plan.kind === 'lines') {
      this.endLines(plan);
      merger.add(this.builder.finishReader(this.lineNo));
      return {
        merger,
        keyFields: plan.fields?.() ?? null,
        info: {
          format: plan.format,
          formatName: plan.name,
          resolutionMs: plan.resolution(),
          timeSource: plan.timeSource,
        },
      };
    }
    this.whole.push(this.decoder.decode());
    const text = this.whole.join('');
    this.whole = [];
    if (plan.format === 'har') {
      const { records, resolutionMs, headers } = parseHar(text);
      records.forEach((r, i) => {
        this.builder.noteLine(String(i));
        if (typeof r === 'string') this.builder.bad(i + 1, `entry ${i + 1}: ${r}`);
        else this.builder.add(r, i + 1);
      });
      merger.add(this.builder.finishReader(records.length));
      return {
        merger,
        keyFields: headers,
        info: {
          format: 'har',
          formatName: 'HAR',
          resolutionMs,
          timeSource:
            'arrival = startedDateTime of each entry (HAR has no client address: key by a header or the path)',
        },
      };
    }
    const delimiter = plan.format === 'csv' ? ',' : '\t';
    let last = 0;
    const { columns, resolutionMs, header } = parseDelimited(
      text,
      delimiter,
      this.opts,
      (r, line) => {
        this.builder.noteLine(String(line));
        last = line;
        if (typeof r === 'string') this.builder.bad(line, r);
        else this.builder.add(r, line);
      },
    );
    merger.add(this.builder.finishReader(last));
    return {
      merger,
      keyFields: header,
      info: {
        format: plan.format,
        formatName: plan.format === 'csv' ? 'CSV' : 'TSV',
        resolutionMs,
        timeSource: keyedBy(`arrival = column ${quoteText(columns.time)}`, columns),
      },
    };
  }
}

/** `trace` with the fields it can be keyed by in its report (at most KEY_FIELDS_LISTED). */
function withKeyFields(
  trace: BuiltTrace,
  fields: readonly string[] | null | undefined,
): BuiltTrace {
  if (fields !== null && fields !== undefined && fields.length > 0)
    trace.report.keyFields = fields.slice(0, KEY_FIELDS_LISTED);
  return trace;
}

/** The time source's words, with the key column when the file has one but no address column. */
function keyedBy(timeSource: string, columns: { client?: string; key?: string }): string {
  return columns.client === undefined && columns.key !== undefined
    ? `${timeSource}; the client is column ${quoteText(columns.key)} (no address column)`
    : timeSource;
}

/** Parses a whole file held in memory. */
export function parseTrace(bytes: Uint8Array, opts: ParseOptions): BuiltTrace {
  checkFileSize(opts.name, bytes.length);
  const s = new TraceStream(opts);
  const CHUNK = 1 << 20;
  for (let i = 0; i < bytes.length; i += CHUNK) s.push(bytes.subarray(i, i + CHUNK));
  return s.finish();
}

/**
 * The trace of a line log read in byte ranges (each ending just after a newline, in file order),
 * each by a `TraceStream` with the file's start as `detectFrom`: the same trace as one stream
 * reading the whole file.
 */
export function mergeParts(parts: readonly TracePart[], opts: ParseOptions): BuiltTrace {
  const merge = new PartsMerge(opts);
  merge.reserve(parts.reduce((n, p) => n + p.count, 0));
  for (const p of parts) merge.add(p);
  return merge.finish();
}

/**
 * `mergeParts` one part at a time: each part is taken as soon as it and every part before it in
 * the file have been read, so the merge runs while later ranges are still being parsed. Parts are
 * taken in file order, exactly as `mergeParts` takes them, so the trace is the same.
 */
export class PartsMerge {
  private readonly plan: ReturnType<typeof partsPlan>;
  private readonly merger: TraceMerger;

  constructor(private readonly opts: ParseOptions) {
    this.plan = partsPlan(opts);
    this.merger = new TraceMerger(
      opts.name,
      opts.keySpec ?? DEFAULT_KEY,
      opts.maxRequests ?? MAX_TRACE_REQUESTS,
    );
  }

  /** Requests taken so far. */
  get count(): number {
    return this.merger.count;
  }

  /** Makes room for `n` requests in all (an estimate may be off either way: it only saves copies). */
  reserve(n: number): void {
    this.merger.reserve(n);
  }

  /**
   * Takes the next part in file order, or the next chunk of one (the merger copies what it keeps:
   * its arrays may be reused).
   */
  add(part: TraceChunk): void {
    this.merger.add(part);
  }

  finish(): BuiltTrace {
    const plan = this.plan;
    const built = this.merger.finish(formatOfPlan(plan));
    // JSON lines: this plan read no line; its fields are the first object's, read from the head.
    if (plan.fields !== undefined) {
      const first = (this.opts.detectFrom ?? '').split('\n').find((l) => l.trim() !== '');
      if (first !== undefined) plan.parse(first);
    }
    return withKeyFields(built, plan.fields?.());
  }
}

/** The line plan of a log read in parts (from `opts.detectFrom`). */
function partsPlan(
  opts: ParseOptions,
): Extract<ReturnType<typeof detectFormat>, { kind: 'lines' }> {
  const head = opts.detectFrom;
  if (head === undefined)
    throw new TraceError('Reading in parts needs the text the format was read from.');
  const plan = detectFormat(head, opts);
  if (plan.kind !== 'lines')
    throw new TraceError(`${quoteText(opts.name)}: only line logs are read in parts.`);
  return plan;
}

function formatOfPlan(
  plan: ReturnType<typeof partsPlan>,
): Pick<ParseReport, 'format' | 'formatName' | 'resolutionMs' | 'timeSource'> {
  return {
    format: plan.format,
    formatName: plan.name,
    resolutionMs: plan.resolution(),
    timeSource: plan.timeSource,
  };
}

/** The format of a line log read in parts, as its report names it (from `opts.detectFrom`). */
export function partsFormat(
  opts: ParseOptions,
): Pick<ParseReport, 'format' | 'formatName' | 'resolutionMs' | 'timeSource'> {
  return formatOfPlan(partsPlan(opts));
}
