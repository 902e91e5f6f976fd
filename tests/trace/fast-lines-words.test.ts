/**
 * The byte reader (src/trace/fastLines.ts) finds a variable's end four bytes at a time (`findStop`)
 * and reads the flagged word byte by byte. These put what must stop or refuse a line — the stop
 * byte itself, a non-ASCII byte, a newline before the stop, a CR — at every offset of a word, in
 * every field, and end files 0 – 3 bytes after a word: the trace is the string reader's, request
 * for request (the string reader is what the same file keyed by the field `remote_addr` reads).
 */
import { describe, expect, it } from 'vitest';
import { read, view } from './readerPair';

const good = (i: number, ua = 'Mozilla/5.0 (X11; Linux x86_64)'): string =>
  `10.0.0.${i % 9} - - [05/Jan/2026:00:00:${String(i % 60).padStart(2, '0')} +0000] "GET /p?q=${i} HTTP/1.1" 200 ${i} "https://example.com/${i}" "${ua}"`;

/** `s` with `x` put in at `at`. */
const put = (s: string, at: number, x: string): string => s.slice(0, at) + x + s.slice(at);

describe('the byte reader, four bytes at a time', () => {
  const intruders = ['é', '\r', '"', '\n', ' ', '\u0001', '\u007f', '😀'];
  it('reads a line with a stop, newline, CR or non-ASCII byte at any offset of any field as the string reader does', () => {
    const base = good(1);
    for (const x of intruders) {
      // Every offset in one file, each changed line between plain ones.
      const lines: string[] = [];
      for (let at = 0; at <= base.length; at += 1) lines.push(good(at), put(base, at, x));
      const text = lines.join('\n');
      const fast = read(text, [{ kind: 'client' }]);
      const slow = read(text, [{ kind: 'field', name: 'remote_addr' }]);
      expect(typeof fast).not.toBe('string');
      expect(view(fast), JSON.stringify(x)).toEqual(view(slow));
    }
  });

  it('reads files ending 0 – 3 bytes after a whole word, with or without a last newline', () => {
    for (let pad = 0; pad < 8; pad += 1) {
      for (const eol of ['', '\n', '\r\n']) {
        const text = [good(4), good(5, 'U'.repeat(pad))].join('\n') + eol;
        const fast = read(text, [{ kind: 'client' }]);
        const slow = read(text, [{ kind: 'field', name: 'remote_addr' }]);
        expect(typeof fast).not.toBe('string');
        expect(view(fast), `pad ${pad}, ${JSON.stringify(eol)}`).toEqual(view(slow));
      }
    }
  });
});
