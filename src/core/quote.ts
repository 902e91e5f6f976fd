/**
 * The one way untrusted text is shown: in messages, titles and downloads, whatever it came from (a
 * link's values, an experiment id, a pasted nginx or Envoy snippet, a file name). It lives in core,
 * the lowest layer, so every layer above quotes with it.
 */

/** Longest text quoted, in code points (then `…`). */
export const QUOTE_MAX = 40;

/**
 * Characters never shown as themselves: controls (Cc), format characters (Cf: bidi embeddings,
 * overrides and isolates U+202A–202E and U+2066–2069, marks U+200E/200F/061C, zero-width U+200B–200D,
 * U+FEFF, tags), private use (Co), unassigned (Cn), lone surrogates (Cs), line and paragraph
 * separators (Zl, Zp) and every space but the plain one (Zs), plus `"` and `\` so the quotes stay
 * unambiguous. The test is per code point, so a lone surrogate is caught too.
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}"\\]|(?! )\p{Zs}/u;

function escape(codePoint: number): string {
  if (codePoint === 0x22) return '\\"';
  if (codePoint === 0x5c) return '\\\\';
  const hex = codePoint.toString(16).toUpperCase();
  return codePoint > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * Untrusted text as a message shows it: in double quotes, at most `max` code points (then `…`),
 * with every character of `UNSAFE` written as an escape (`\u202E`, `\u{E0001}`, `\"`, `\\`), so
 * what a message shows is exactly what was there and nothing in it can reorder or hide the text
 * around it. Reads at most `max + 1` code points of `text`, so quoting a megabyte costs nothing.
 * The UI shows the result as text, never as HTML.
 */
export function quoteText(text: string, max = QUOTE_MAX): string {
  let out = '"';
  let count = 0;
  for (let i = 0; i < text.length;) {
    if (count === max) return `${out}…"`;
    const codePoint = text.codePointAt(i) ?? 0;
    const size = codePoint > 0xffff ? 2 : 1;
    const char = text.slice(i, i + size);
    out += char !== ' ' && UNSAFE.test(char) ? escape(codePoint) : char;
    count += 1;
    i += size;
  }
  return `${out}"`;
}

/**
 * Untrusted text where quotes would be in the way (a file name, a title): the same escapes and cut
 * as `quoteText`, without the quotes.
 */
export function safeText(text: string, max = QUOTE_MAX): string {
  return quoteText(text, max).slice(1, -1);
}
