/**
 * The entry point: bytes (a whole file or chunks of it, gzip or not) → Trace. Line formats are
 * parsed as the chunks come (so a worker can report progress and stop); HAR and CSV/TSV are read
 * whole (a JSON document; quoted newlines) and refused above MAX_BUFFERED_BYTES.
 */
import { Gunzip } from 'fflate';
import { ALB_LINE, parseAlbLine } from './alb';
import { TraceBuilder } from './builder';
import type { BuiltTrace } from './builder';
import { jsonLineParser, parseDelimited } from './delimited';
import type { ColumnOptions } from './delimited';
import { parseHar } from './har';
import { NGINX_PRESETS, compileLogFormat } from './nginx';
import type { NginxFormat } from './nginx';
import type { LineParser } from './record';
import { MAX_BUFFERED_BYTES, MAX_FILE_BYTES, MAX_TEXT_BYTES, TraceError } from './types';
import type { KeySpec, TraceFormat } from './types';

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
}

/** Text read before the format is decided. */
const DETECT_BYTES = 64 * 1024;
const DETECT_LINES = 50;

const MB = (n: number): string => `${Math.round(n / (1024 * 1024)).toLocaleString('en-US')} MB`;

/** Refuses a file before reading it, naming the limit. */
export function checkFileSize(name: string, bytes: number): void {
  if (bytes > MAX_FILE_BYTES) {
    throw new TraceError(
      `${name} is ${MB(bytes)}; the page reads files up to ${MB(MAX_FILE_BYTES)}. ` +
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
  for (const p of NGINX_PRESETS) {
    if (compiledPresets()[NGINX_PRESETS.indexOf(p)]?.regex.test(line)) return p.name;
  }
  return null;
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
      resolution: () => number;
      timeSource: string;
    }
  | { kind: 'whole'; format: 'har' | 'csv' | 'tsv' };

/** Decides the format from the first lines of the text. */
export function detectFormat(head: string, opts: ParseOptions): Plan {
  if (opts.logFormat !== undefined) {
    const f = compileLogFormat(opts.logFormat, undefined, opts.costField);
    return {
      kind: 'lines',
      format: 'nginx',
      name: f.name,
      parse: f.parse,
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
      resolution: j.resolution,
      timeSource: 'arrival = the timestamp field',
    };
  }
  if (forced === 'alb' || (forced === undefined && ALB_LINE.test(first))) {
    return {
      kind: 'lines',
      format: 'alb',
      name: 'AWS ALB access log',
      parse: parseAlbLine,
      resolution: () => 1,
      timeSource: 'arrival = request_creation_time (when the load balancer received the request)',
    };
  }
  if (forced === undefined || forced === 'nginx') {
    let best: NginxFormat | null = null;
    let bestHits = 0;
    for (const f of compiledPresets()) {
      let hits = 0;
      for (const l of sample) if (f.regex.test(l)) hits += 1;
      if (hits > bestHits) {
        best = f;
        bestHits = hits;
      }
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
      return {
        kind: 'lines',
        format: 'nginx',
        name: f.name,
        parse: f.parse,
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
    `Unrecognised format: line 1 ("${first.slice(0, 80)}") is not nginx (combined, main, common or a known log_format), an ALB entry, HAR, JSON lines, CSV or TSV. Give the nginx log_format or choose the format.`,
  );
}

/**
 * A streaming parser: push() chunks of the file as they are read, then finish(). Gzip is detected
 * from the first two bytes (1f 8b) and inflated on the fly.
 */
export class TraceStream {
  /** Bytes pushed so far (as read from the file). */
  bytesIn = 0;
  /** Decompressed text bytes so far. */
  textBytes = 0;
  private gunzip: Gunzip | null = null;
  private started = false;
  private readonly decoder = new TextDecoder('utf-8');
  private head = '';
  private rest = '';
  private plan: Plan | null = null;
  private whole: string[] = [];
  private wholeBytes = 0;
  private lineNo = 0;
  private readonly builder: TraceBuilder;
  private checkedBinary = false;

  constructor(private readonly opts: ParseOptions) {
    this.builder = new TraceBuilder(opts.name, opts.keySpec ?? [{ kind: 'client' }]);
  }

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

  push(chunk: Uint8Array): void {
    this.bytesIn += chunk.length;
    if (!this.started) {
      this.started = true;
      if (chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b) {
        this.gunzip = new Gunzip((data) => this.text(data, false));
      }
    }
    if (this.gunzip) this.gunzip.push(chunk, false);
    else this.text(chunk, false);
  }

  private text(bytes: Uint8Array, final: boolean): void {
    if (!this.checkedBinary && bytes.length > 0) {
      this.checkedBinary = true;
      const why = binaryReason(bytes);
      if (why !== null) {
        throw new TraceError(
          `${this.opts.name} looks binary (${why}${this.gunzip ? ' after gunzip' : ''}); expected a text log, HAR, CSV or JSON lines (gzip allowed).`,
        );
      }
    }
    this.textBytes += bytes.length;
    if (this.textBytes > MAX_TEXT_BYTES) {
      throw new TraceError(
        `${this.opts.name} decompresses to more than ${MB(MAX_TEXT_BYTES)}, the most the page reads.`,
      );
    }
    const s = this.decoder.decode(bytes, { stream: !final });
    if (this.plan === null) {
      this.head += s;
      if (final ? this.head !== '' || this.textBytes > 0 : this.head.length >= DETECT_BYTES) {
        this.decide();
      }
      return;
    }
    this.feed(s);
  }

  private decide(): void {
    if (this.head.trim() === '') {
      throw new TraceError(`${this.opts.name} is empty: no lines to read.`);
    }
    this.plan = detectFormat(this.head, this.opts);
    const h = this.head;
    this.head = '';
    this.feed(h);
  }

  private feed(s: string): void {
    const plan = this.plan as Plan;
    if (plan.kind === 'whole') {
      this.wholeBytes += s.length;
      if (this.wholeBytes > MAX_BUFFERED_BYTES) {
        throw new TraceError(
          `${this.opts.name}: a ${plan.format.toUpperCase()} file is read whole; the page reads at most ${MB(MAX_BUFFERED_BYTES)} of it. Use JSON lines or a line log for larger traces.`,
        );
      }
      this.whole.push(s);
      return;
    }
    const text = this.rest + s;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      this.line(plan, text, start, nl);
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }

  private line(plan: Plan & { kind: 'lines' }, text: string, start: number, end: number): void {
    this.lineNo += 1;
    let e = end;
    if (e > start && text.charCodeAt(e - 1) === 13) e -= 1;
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
    if (this.gunzip) this.gunzip.push(new Uint8Array(0), true);
    this.text(new Uint8Array(0), true);
    if (this.plan === null) {
      if (this.bytesIn === 0 || this.head.trim() === '')
        throw new TraceError(`${this.opts.name} is empty: no lines to read.`);
      this.decide();
    }
    const plan = this.plan as Plan;
    if (plan.kind === 'lines') {
      if (this.rest !== '') {
        const r = this.rest;
        this.rest = '';
        this.line(plan, r, 0, r.length);
      }
      return this.builder.finish({
        format: plan.format,
        formatName: plan.name,
        resolutionMs: plan.resolution(),
        timeSource: plan.timeSource,
      });
    }
    const text = this.whole.join('');
    this.whole = [];
    if (plan.format === 'har') {
      const { records, resolutionMs } = parseHar(text);
      records.forEach((r, i) => {
        this.builder.noteLine(String(i));
        if (typeof r === 'string') this.builder.bad(i + 1, `entry ${i + 1}: ${r}`);
        else this.builder.add(r, i + 1);
      });
      return this.builder.finish({
        format: 'har',
        formatName: 'HAR',
        resolutionMs,
        timeSource:
          'arrival = startedDateTime of each entry (HAR has no client address: key by a header or the path)',
      });
    }
    const delimiter = plan.format === 'csv' ? ',' : '\t';
    const { columns, resolutionMs } = parseDelimited(text, delimiter, this.opts, (r, line) => {
      this.builder.noteLine(String(line));
      if (typeof r === 'string') this.builder.bad(line, r);
      else this.builder.add(r, line);
    });
    return this.builder.finish({
      format: plan.format,
      formatName: plan.format === 'csv' ? 'CSV' : 'TSV',
      resolutionMs,
      timeSource: `arrival = column "${columns.time}"`,
    });
  }
}

/** Parses a whole file held in memory. */
export function parseTrace(bytes: Uint8Array, opts: ParseOptions): BuiltTrace {
  checkFileSize(opts.name, bytes.length);
  const s = new TraceStream(opts);
  const CHUNK = 1 << 20;
  for (let i = 0; i < bytes.length; i += CHUNK) s.push(bytes.subarray(i, i + CHUNK));
  return s.finish();
}
