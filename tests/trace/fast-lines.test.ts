/**
 * The byte reader (src/trace/fastLines.ts) gives the same trace as the string reader, request for
 * request: every nginx preset and a log_format of one's own, with lines built to take each way out
 * of the byte reader (non-ASCII, a bad status, a cut line, an inner CR, an out-of-range or
 * malformed time, an empty address, CRLF, blank lines). The string reader is what the same file
 * keyed by the field `remote_addr` reads (the same keys and NAT hints, no byte reader).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NGINX_PRESETS } from '../../src/trace';
import { KeyTable } from '../../src/trace/fastLines';
import type { BuiltTrace } from '../../src/trace';
import { read, view } from './readerPair';

const MON = ['Jan', 'Feb', 'Mar', 'Dec'];
const time = fc
  .record({
    d: fc.integer({ min: 1, max: 28 }),
    mo: fc.constantFrom(...MON, 'Foo'),
    y: fc.constantFrom(1969, 2026, 2101),
    h: fc.integer({ min: 0, max: 23 }),
    s: fc.integer({ min: 0, max: 61 }),
    z: fc.constantFrom('+0000', '-0700', '+0530'),
  })
  .map(
    ({ d, mo, y, h, s, z }) =>
      `${String(d).padStart(2, '0')}/${mo}/${y}:${String(h).padStart(2, '0')}:00:${String(s).padStart(2, '0')} ${z}`,
  );
const word = fc.constantFrom('', '-', 'a', 'ü', 'x y', 'q"q', 'r\rr', '😀', 'Mozilla/5.0 (X11)');
const address = fc.constantFrom('10.0.0.1', '10.0.0.2', '2001:db8::1', '', '-', 'é.1', 'a b');
const status = fc.constantFrom('200', '429', '503', '-', '', '099', '600', '2000', 'abc');
const seconds = fc.constantFrom('1767571200.123', '1767571200', '1767571200.1234', '-', 'x', '0.5');
const requestTime = fc.constantFrom('0.010', '0', '-', '', '1.5', 'x', '99999999999999');

/** One line of the format `f`: each variable replaced by a generated value. */
function lineOf(format: string): fc.Arbitrary<string> {
  const vars = [...format.matchAll(/\$([a-z_]+)/g)].map((m) => m[1] as string);
  const values = vars.map((v) =>
    v === 'time_local'
      ? time
      : v === 'remote_addr'
        ? address
        : v === 'status'
          ? status
          : v === 'msec'
            ? seconds
            : v === 'request_time'
              ? requestTime
              : word,
  );
  return fc.tuple(...values, fc.constantFrom('', '\r', ' cut')).map((vals) => {
    let i = 0;
    const line = format.replace(/\$([a-z_]+)/g, () => vals[i++] as string);
    const end = vals[vals.length - 1] as string;
    return end === ' cut' ? line.slice(0, Math.max(1, line.length - 7)) : line + end;
  });
}

describe('the byte reader reads as the string reader', () => {
  for (const preset of NGINX_PRESETS) {
    it(preset.name, () => {
      fc.assert(
        fc.property(
          fc.array(lineOf(preset.format), { minLength: 1, maxLength: 40 }),
          fc.constantFrom('\n', '\r\n', '\n\n'),
          (lines, eol) => {
            // A known-good first line decides the format; the rest are as generated.
            const good = preset.format
              .replace('$time_local', '05/Jan/2026:00:00:00 +0000')
              .replace('$msec', '1767571200.5')
              .replace('$remote_addr', '10.9.9.9')
              .replace(/\$[a-z_]+/g, '1');
            const text = [good, good, ...lines].join(eol);
            const fast = read(text, [{ kind: 'client' }], preset.format);
            const slow = read(text, [{ kind: 'field', name: 'remote_addr' }], preset.format);
            expect(view(fast)).toEqual(view(slow));
          },
        ),
        { numRuns: 150 },
      );
    });
  }

  it('a file of many plain lines: the same trace, keys and NAT hints (and detected alike)', () => {
    const lines: string[] = [];
    for (let i = 0; i < 5_000; i += 1) {
      lines.push(
        `10.0.${i % 7}.${i % 13} - - [05/Jan/2026:00:${String(Math.floor(i / 100) % 60).padStart(2, '0')}:00 +0000] "GET /a HTTP/1.1" ${i % 50 === 0 ? 429 : 200} 5 "-" "UA-${i % 17}"`,
      );
    }
    const text = lines.join('\n');
    const fast = read(text, [{ kind: 'client' }]);
    const slow = read(text, [{ kind: 'field', name: 'remote_addr' }]);
    expect(typeof fast).not.toBe('string');
    expect((fast as BuiltTrace).natHints.length).toBeGreaterThan(0);
    expect(view(fast)).toEqual(view(slow));
  });
});

describe('the byte reader key table', () => {
  it('finds every key it was given, whatever the hash (unsigned ones too), and holds each once', () => {
    const t = new KeyTable();
    const enc = new TextEncoder();
    const keys = Array.from({ length: 5_000 }, (_, i) => enc.encode(`10.0.${i >> 8}.${i & 255}`));
    // Hashes over 2^31 as an unsigned hash function gives them, and negative ones.
    const hash = (i: number): number => (i % 2 === 0 ? 0x8000_0000 + i * 7919 : -(i * 104_729));
    keys.forEach((k, i) => {
      expect(t.find(k, 0, k.length, hash(i))).toBe(-1);
      t.add(k, 0, k.length, hash(i), i);
    });
    keys.forEach((k, i) => expect(t.find(k, 0, k.length, hash(i))).toBe(i));
  });
});
