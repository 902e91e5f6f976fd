import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  MAX_BUFFERED_BYTES,
  MAX_FILE_BYTES,
  TraceError,
  TraceStream,
  checkFileSize,
  parseTrace,
} from '../../src/trace';
import { nginxMsec } from './formats';
import type { TruthRequest } from './formats';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const parse = (s: string | Uint8Array, name = 'f.log') =>
  parseTrace(typeof s === 'string' ? enc(s) : s, { name });
const fails = (s: string | Uint8Array, name = 'f.log'): string => {
  try {
    parse(s, name);
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as Error).message;
  }
  throw new Error('expected a TraceError');
};

const req = (over: Partial<TruthRequest> = {}): TruthRequest => ({
  arrivalMs: 1_700_000_000_000,
  requestTimeMs: 10,
  client: '192.0.2.1',
  xff: '',
  path: '/a',
  query: '',
  userAgent: 'ua',
  status: 200,
  cost: 1,
  ...over,
});

describe('bad input gives a message naming what and where', () => {
  it('an empty file, or only blank lines', () => {
    expect(fails('')).toMatch(/"f\.log" is empty/);
    expect(fails('\n\n  \r\n')).toMatch(/empty/);
  });

  it('a binary file, plain or gzipped', () => {
    const bin = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 1, 2, 3]);
    expect(fails(bin, 'x.zip')).toMatch(/"x\.zip" looks binary \(NUL byte at offset 4\)/);
    expect(fails(new Uint8Array(gzipSync(Buffer.from(bin))), 'x.gz')).toMatch(/after gunzip/);
  });

  it('a file of one repeated line parses and says so', () => {
    const line = nginxMsec(req());
    const t = parse(`${line}\n`.repeat(500));
    expect(t.count).toBe(500);
    expect(t.keys).toEqual(['192.0.2.1']);
    expect(t.report.notes.join(' ')).toContain('All 500 lines are the same line repeated');
  });

  it('times in the far future or before 1970 are malformed lines, with the date', () => {
    const future = nginxMsec(req({ arrivalMs: 5_000_000_000_000 }));
    const ok = nginxMsec(req());
    const t = parse(`${ok}\n${future}\n`);
    expect(t.count).toBe(1);
    expect(t.report.malformedFirst).toEqual([
      { line: 2, reason: expect.stringMatching(/time 2128-.* is after 2100-01-01/) as string },
    ]);
    const csv = 'timestamp,ip\n-5000,a\n1700000000000,b\n';
    const c = parse(csv, 'c.csv');
    expect(c.report.malformedFirst[0]).toEqual({
      line: 2,
      reason: expect.stringMatching(/before 1970/) as string,
    });
  });

  it('every line malformed: refused, with the first reasons and line numbers', () => {
    const line = nginxMsec(req());
    expect(
      fails(`${line.replace(/\d+\.\d{3}$/, 'x')}\n${line.replace(/\d+\.\d{3}$/, 'y')}\n`),
    ).toMatch(/all 2 lines are malformed \(line 1: \$msec "x".*line 2: \$msec "y"/);
  });

  it('an unknown format names line 1', () => {
    expect(fails('hello world\nsecond line\n')).toMatch(
      /Unrecognised format: line 1 \("hello world"\)/,
    );
  });

  it('a HAR with no entries, or no log', () => {
    expect(fails('{"log": {"entries": []}}', 's.har')).toMatch(/log\.entries is empty/);
    expect(fails('{"log": {"entries": 5}, "x": 1}', 's.har')).toMatch(/no log\.entries array/);
  });

  it('a CSV with no timestamp column names the columns it has', () => {
    expect(fails('ip,path\na,/b\n', 'x.csv')).toMatch(
      /CSV header \(line 1\): no timestamp column among "ip", "path"/,
    );
  });

  it('a CSV row with the wrong field count, and a quoted newline, keep line numbers right', () => {
    const t = parse(
      'timestamp,ua\n1700000000000,"two\nlines"\n1700000000001,a,extra\n1700000000002,b\n',
      'x.csv',
    );
    expect(t.count).toBe(2);
    expect(t.report.malformedFirst).toEqual([
      { line: 4, reason: 'has 3 fields; the header has 2' },
    ]);
  });

  it('mixed formats: the lines of the other format are counted and named', () => {
    const ok = nginxMsec(req());
    const alb =
      'https 2026-11-30T12:00:00.000000Z app/x 1.2.3.4:5 - 0 0 0 200 200 0 0 "GET / HTTP/1.1" "-"';
    const t = parse(`${ok}\n${ok}\n${alb}\n${ok}\n`);
    expect(t.count).toBe(3);
    expect(t.report.malformedFirst[0]?.line).toBe(3);
    expect(t.report.notes.join(' ')).toContain('Mixed formats: 1 line looks like an ALB entry');
  });

  it('a file larger than the page can hold is refused up front with the limit', () => {
    expect(() => checkFileSize('big.log', 2 * 1024 ** 3)).toThrow(
      /"big\.log" is 2,048 MB; the page reads files up to 1,024 MB/,
    );
    expect(MAX_FILE_BYTES).toBe(1024 ** 3);
  });

  it('a CSV past the buffered limit is refused while streaming, not half-loaded', () => {
    const s = new TraceStream({ name: 'big.csv' });
    const row = enc(`${'1700000000000,a'.padEnd(1023, ' ')}\n`);
    const chunk = new Uint8Array(1024 * 1024);
    for (let i = 0; i < chunk.length; i += 1024) chunk.set(row, i);
    s.push(enc('timestamp,ip\n'));
    expect(() => {
      for (let i = 0; i <= MAX_BUFFERED_BYTES / chunk.length; i += 1) s.push(chunk);
    }).toThrow(
      /read whole, and the page reads at most 256 MB of its text: stopped 25\d MB into the file\. Nothing was loaded\./,
    );
    // Streams 256 MB through the decoder: seconds on a loaded 2-core machine.
  }, 60_000);
});
