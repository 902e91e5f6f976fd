/**
 * The saved settings' record (localStorage), checked on its raw text before `JSON.parse` (issue 15:
 * a saved setting opens in ≤ 50 ms of decode and repair, whatever it holds). A record the page
 * could have written passes; one it could not have written (too long, too many parts, nested too
 * deep, too many values, strings or fractions) is not parsed at all: the page then says why
 * (src/ui/share/savedRefusal.ts), opens the defaults, offers the record as a download and leaves it
 * in storage.
 *
 * The limits sit above the largest record the page itself writes: a config at every cap (32
 * manual sources × 10,000 times of 24 h, six limiters with the longest names, 32 clock jumps, a
 * full fleet), which tests/config/saved.test.ts builds, checks against the schema and measures:
 * 2,887,018 characters, 177 objects and lists, 8 deep, 320,383 values, 446 strings, 2 fractions.
 * Not part of the first load (issue 11's budget): it runs in the chunk that opens saved settings
 * (src/ui/share/openSaved.ts), and the messages live with the list of problems.
 */
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../sim';

/** The limits of a saved record the page opens, each above the largest record it writes. */
export const SAVED_LIMITS = {
  /** Characters (the largest record the page writes has 2,887,018). */
  chars: 3_000_000,
  /** Objects and lists (177). */
  parts: 1000,
  /** Nesting (8). */
  nesting: 12,
  /** Values in all, counted by their separators (320,383). */
  values: MAX_SOURCES * MAX_MANUAL_TIMES + 10_000,
  /** Strings, keys included (446). */
  strings: 5000,
  /** Numbers written with a fraction or an exponent (2: times are whole; rates, speed are not). */
  fractions: 1000,
} as const;

export type SavedLimit = keyof typeof SAVED_LIMITS;
export type SavedLimits = Readonly<Record<SavedLimit, number>>;

/**
 * The first limit the saved record `text` crosses, or null when it may be parsed. One linear pass
 * over the text reading character codes (strings are skipped, not copied), stopping at the first
 * limit crossed. Counting is on the raw text, so unreadable JSON may pass here: JSON.parse then
 * refuses it, within the same bounds. `L`: other limits, for tests.
 */
export function savedRecordOver(text: string, L: SavedLimits = SAVED_LIMITS): SavedLimit | null {
  const n = text.length;
  if (n > L.chars) return 'chars';
  let parts = 0;
  let depth = 0;
  let values = 1;
  let strings = 0;
  let fractions = 0;
  let prev = 0;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: skip to its closing quote (a backslash escapes the next character).
      if ((strings += 1) > L.strings) return 'strings';
      for (i += 1; i < n; i += 1) {
        const d = text.charCodeAt(i);
        if (d === 92) i += 1;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) {
      if ((parts += 1) > L.parts) return 'parts';
      if ((depth += 1) > L.nesting) return 'nesting';
    } else if (c === 125 || c === 93) depth -= 1;
    else if (c === 44) {
      if ((values += 1) > L.values) return 'values';
    } else if (c === 46 || ((c === 101 || c === 69) && prev >= 48 && prev <= 57)) {
      // '.' or an exponent after a digit (the e of true and false follows a letter).
      if ((fractions += 1) > L.fractions) return 'fractions';
    }
    prev = c;
  }
  return null;
}
