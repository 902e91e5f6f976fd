/**
 * Reading is bounded: inflated in slices, lines capped, reasons and keys capped, the caps announced
 * with how far reading got. A log is read whole, or refused with where it stopped — never shortened
 * without a word.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_KEY_CHARS, internKey } from '../../src/trace/builder';
import { lookOfLine } from '../../src/trace/parse';
import { MAX_LINE_BYTES } from '../../src/trace/types';
import { TraceError, TraceStream, parseTrace } from '../../src/trace';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const T = '05/Jan/2026:00:00:00 +0000';
const line = (i: number, status = '200', ip = `10.0.${(i >> 8) & 255}.${i & 255}`): string =>
  `${ip} - - [${T}] "GET /a HTTP/1.1" ${status} 12 "-" "Mozilla/5.0 (X11; Linux x86_64)"`;
const lines = (n: number, f = line): string => Array.from({ length: n }, (_, i) => f(i)).join('\n');

function failure(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as Error).message;
  }
  throw new Error('expected a TraceError');
}

describe('bounded decoding', () => {
  it('a gzip pushed as one chunk is inflated in slices and read whole', () => {
    const text = `${lines(200_000)}\n`;
    const gz = new Uint8Array(gzipSync(text, { level: 9 }));
    const s = new TraceStream({ name: 'a.log.gz' });
    s.push(gz);
    const t = s.finish();
    expect(t.count).toBe(200_000);
    expect(t.report.lines).toBe(200_000);
    expect(s.textBytes).toBe(enc(text).length);
  });

  it('a multi-member gzip is read member after member', () => {
    const a = gzipSync(`${lines(3)}\n`);
    const b = gzipSync(`${line(7)}\n${line(8)}\n`);
    const t = parseTrace(new Uint8Array(Buffer.concat([a, b])), { name: 'm.log.gz' });
    expect(t.count).toBe(5);
  });

  it('a gzip cut inside a member is refused naming where, not half-loaded', () => {
    const gz = gzipSync(`${lines(50_000)}\n`);
    const cut = new Uint8Array(gz.subarray(0, Math.floor(gz.length / 2)));
    expect(failure(() => parseTrace(cut, { name: 'cut.log.gz' }))).toMatch(
      /"cut\.log\.gz" is not valid gzip \(.+\) at line [\d,]+, [\d,]+ kB into the file \([\d,]+ (kB|MB) of text\): nothing was loaded/,
    );
  });

  it('a newline bomb is counted in a tight loop and refused at the text cap with how far it got', () => {
    // 64 MiB cap; 80 MiB of newlines after one line: a member of 16 MiB of newlines, 5 times.
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024, 10), { level: 9 });
    const s = new TraceStream({ name: 'bomb.log.gz', maxTextBytes: 64 * 1024 * 1024 });
    s.push(new Uint8Array(gzipSync(`${line(0)}\n`)));
    const message = failure(() => {
      for (let i = 0; i < 5; i += 1) s.push(new Uint8Array(member));
    });
    expect(message).toMatch(
      /^"bomb\.log\.gz" decompresses to more than 64 MB, the most the page reads: stopped at line \d\d,\d{3},\d{3}, \d+ kB into the file \(\d\d MB of text\), with 1 request read\. Nothing was loaded\.$/,
    );
  });

  it('a CSV read whole is refused past its cap with how far reading got', () => {
    // 16 MiB of rows, gzipped, pushed 17 times: past the 256 MB a whole-read format may hold.
    const row = '2026-01-05T00:00:00Z,10.0.0.1,200\n';
    const member = new Uint8Array(gzipSync(row.repeat((16 * 1024 * 1024) / row.length)));
    const s = new TraceStream({ name: 'big.csv.gz' });
    s.push(new Uint8Array(gzipSync('time,ip,status\n')));
    const message = failure(() => {
      for (let i = 0; i < 17; i += 1) s.push(member);
    });
    expect(message).toMatch(
      /^"big\.csv\.gz": a CSV file is read whole, and the page reads at most 256 MB of its text: stopped [\d,]+ kB into the file \(2[56]\d MB of text\)\. Nothing was loaded\./,
    );
  }, 120_000);

  it('a line over the line cap is counted malformed without being decoded; the others are read', () => {
    const long = `${line(1).slice(0, 40)}${'x'.repeat(MAX_LINE_BYTES + 10)}`;
    const text = `${line(0)}\n${long}\n${line(2)}\n${long}`;
    for (const chunk of [64, 1 << 20, 1 << 24]) {
      const s = new TraceStream({ name: 'l.log' });
      const b = enc(text);
      for (let i = 0; i < b.length; i += chunk) s.push(b.subarray(i, i + chunk));
      const t = s.finish();
      expect(t.count).toBe(2);
      expect(t.report.malformedFirst).toEqual([
        { line: 2, reason: 'is 1,048,626 bytes long; the page reads lines up to 1,048,576 bytes' },
        { line: 4, reason: 'is 1,048,626 bytes long; the page reads lines up to 1,048,576 bytes' },
      ]);
    }
  });

  it('the request cap refuses the log naming the cap, the line and how far reading got', () => {
    const s = new TraceStream({ name: 'r.log', maxRequests: 1_000 });
    expect(failure(() => s.push(enc(`${lines(2_000)}\n`)))).toMatch(
      /^Too many requests: the page holds at most 1,000 requests \(16 bytes each\) and line 1,001 would be one more\. Split the log or filter it first\. Reading stopped at line 1,001, \d+ kB into the file\.$/,
    );
  });
});

describe('bounded text', () => {
  it('reasons quote at most 40 characters of a field, escaped', () => {
    const bad = `${'9'.repeat(500_000)}\u202e`;
    const t = parseTrace(enc(`${lines(5)}\n${line(9, bad)}\n${line(9, '20\u202e0')}\n`), {
      name: 'q.log',
    });
    const reasons = t.report.malformedFirst.map((m) => m.reason);
    expect(reasons[0]).toBe(`$status "${'9'.repeat(40)}…" is not an HTTP status`);
    expect(reasons[1]).toBe('$status "20\\u202E0" is not an HTTP status');
  });

  it('a file name and a column name are quoted in what reading says, escaped and cut', () => {
    const name = `\u202Eevil\u0000\n${'x'.repeat(10_000)}.log`;
    const shown = `"\\u202Eevil\\u0000\\u000A${'x'.repeat(33)}…"`;
    expect(failure(() => parseTrace(enc('\n\n'), { name }))).toBe(
      `${shown} is empty: no lines to read.`,
    );
    const column = `t\u2066${'i'.repeat(5_000)}`;
    const csv = `${column},client\n2026-01-05T00:00:00Z,10.0.0.1\n`;
    const t = parseTrace(enc(csv), { name: 'c.csv', timeColumn: column });
    expect(t.report.timeSource).toBe(`arrival = column "t\\u2066${'i'.repeat(38)}…"`);
  });

  it('keys over 1,024 characters are held cut, with their length and a hash; distinct stay distinct', () => {
    const ip = (i: number): string => `${String(i).padStart(8, '0')}${'k'.repeat(4_992)}`;
    const t = parseTrace(enc(lines(2_000, (i) => line(i, '200', ip(i % 1_000)))), {
      name: 'k.log',
    });
    expect(t.keys.length).toBe(1_000);
    expect(new Set(t.keys).size).toBe(1_000);
    for (const k of t.keys) expect(k.length).toBeLessThan(160);
    expect(t.keys[3]).toMatch(/^00000003k{88}… \(5,000 characters, hash [0-9a-f]{16}\)$/);
    // Keys up to the limit are kept as they are.
    const short = 'a'.repeat(MAX_KEY_CHARS);
    expect(internKey(short)).toBe(short);
    expect(internKey(`${short}b`)).not.toBe(internKey(`${short}c`));
    // A surrogate pair is never split by the cut.
    const astral = `${'a'.repeat(95)}😀${'b'.repeat(2_000)}`;
    expect(internKey(astral).startsWith(`${'a'.repeat(95)}…`)).toBe(true);
  });
});

describe('formats named truly', () => {
  it('a mixed log is refused naming the first line that is not in the format, and what it is', () => {
    const json = '{"time":"2026-01-05T00:00:00Z","remote_addr":"10.0.0.1"}';
    const message = failure(() =>
      parseTrace(enc([line(0), line(1), json, json, json, json, line(2)].join('\n')), {
        name: 'mix.log',
      }),
    );
    expect(message).toBe(
      `Mixed formats: line 1 is nginx combined, but line 3 ("{\\"time\\":\\"2026-01-05T00:00:00Z\\",\\"remote_addr\\":\\"10.0.0.1\\"}") is JSON; 4 of the first 6 lines are not nginx combined. Choose the format, or split the log.`,
    );
  });

  it('a combined line cut in its user agent is not called common log format', () => {
    const cut = line(0).slice(0, -12);
    expect(lookOfLine(cut)).toBe('an nginx combined line cut short (a quoted field is not closed)');
    expect(lookOfLine(`10.0.0.1 - - [${T}] "GET / HTTP/1.1" 200 0`)).toBe('common log format');
    expect(lookOfLine(`10.0.0.1 - - [${T}] "GET / HTTP/1.1" 200 0 rt=0.1`)).toBe(
      'common log format with more fields after $body_bytes_sent',
    );
    const t = parseTrace(enc(`${lines(5)}\n${cut}\n${line(6)}\n`), { name: 'c.log' });
    expect(t.report.malformedFirst[0]?.reason).toContain(
      'it looks like an nginx combined line cut short',
    );
  });

  it('a log read with the common pattern says when fields after the size were not read', () => {
    const l = (i: number) => `10.0.0.${i} - - [${T}] "GET / HTTP/1.1" 200 0 upstream=${i}`;
    const t = parseTrace(enc(lines(5, l)), { name: 'u.log' });
    expect(t.report.formatName).toBe(
      'common log format (fields after $body_bytes_sent are not read)',
    );
  });
});
