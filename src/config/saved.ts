/**
 * The saved settings' record (localStorage), checked on its raw text before `JSON.parse` (a saved setting opens in ≤ 50 ms of decode and repair, whatever it holds). A record the page
 * could have written passes; one it could not have written (too long, escaped characters, too many
 * values, strings, parts or fractions, nested too deep) is not parsed at all: the page then says why
 * (src/ui/share/savedRefusal.ts), opens the defaults, offers the record as a download and leaves it
 * in storage.
 *
 * The limits sit above the largest record the page itself writes: a config at every cap (32
 * manual sources × 10,000 times of 24 h, six Traefik limiters with the longest names, 32 clock jumps, a
 * full fleet), which tests/config/saved.test.ts builds, checks against the schema and measures:
 * 2,887,090 characters, no backslash, 320,389 values, 446 strings, 177 objects and lists, 8 deep,
 * 2 fractions.
 * Not part of the first load (its budget): it runs in the chunk that opens saved settings
 * (src/ui/share/openSaved.ts), and the messages live with the list of problems.
 */
import { MAX_MANUAL_TIMES, MAX_SOURCES } from '../sim';

/** The limits of a saved record the page opens, each above the largest record it writes. */
export const SAVED_LIMITS = {
  /** Characters (the largest record the page writes has 2,887,090). */
  chars: 3_000_000,
  /** Values in all, counted by their separators, commas (320,389). */
  values: MAX_SOURCES * MAX_MANUAL_TIMES + 10_000,
  /** Strings, keys included (446). */
  strings: 5000,
  /** Objects and lists (177). */
  parts: 1000,
  /** Nesting (8). */
  nesting: 12,
  /** Numbers written with a fraction or an exponent (2: times are whole; rates, speed are not). */
  fractions: 1000,
} as const;

export type SavedLimits = Readonly<Record<keyof typeof SAVED_LIMITS, number>>;
/**
 * The limit a record crosses: one of SAVED_LIMITS, or 'escapes': a backslash, which no record the
 * page writes holds (no string it writes needs an escape: see NAME_PATTERN, TRACE_NAME_PATTERN).
 */
export type SavedLimit = keyof SavedLimits | 'escapes';

/** What the check stops at: a quote, a bracket, a '.', an exponent ('e' then a digit or sign). */
const MARKS = /["[\]{}.]|[eE][-+\d]/g;

/**
 * The first limit the saved record `text` crosses, or null when it may be parsed. Cheap whatever
 * the text (a few ms for 3,000,000 characters in Chromium): the scanning is native (a regular
 * expression, `indexOf`); the loop here runs once per quote, bracket or fraction, so at
 * most a few thousand times before a limit stops it, and the comma count once per comma up to one
 * past the values limit. Counting is on the raw text, with strings skipped except by the comma
 * count (a string the page writes holds no comma): unreadable JSON may pass here, and JSON.parse
 * then refuses it within the same bounds. `L`: other limits, for tests.
 */
export function savedRecordOver(text: string, L: SavedLimits = SAVED_LIMITS): SavedLimit | null {
  if (text.length > L.chars) return 'chars';
  // With no backslash, a string ends at its next quote.
  if (text.includes('\\')) return 'escapes';
  let strings = 0;
  let parts = 0;
  let depth = 0;
  let fractions = 0;
  const marks = new RegExp(MARKS);
  for (let m = marks.exec(text); m !== null; m = marks.exec(text)) {
    const c = m[0];
    if (c === '"') {
      if ((strings += 1) > L.strings) return 'strings';
      const end = text.indexOf('"', marks.lastIndex);
      if (end < 0) break;
      marks.lastIndex = end + 1;
    } else if (c === '[' || c === '{') {
      if ((parts += 1) > L.parts) return 'parts';
      if ((depth += 1) > L.nesting) return 'nesting';
    } else if (c === ']' || c === '}') {
      // A closing bracket with nothing open: not JSON (JSON.parse stops there).
      if ((depth -= 1) < 0) break;
    } else if ((fractions += 1) > L.fractions) return 'fractions';
  }
  // Each value but the first follows a comma, and takes at least 2 characters with it: a shorter
  // text cannot be over.
  if (text.length > 2 * L.values && commasPast(text, L.values - 1)) return 'values';
  return null;
}

/**
 * Whether `text` holds more than `most` commas: native `indexOf` from comma to comma, stopping at
 * the first comma past `most`. A record far over the limit is refused after `most` steps, and no
 * array of commas is made (`match(/,/g)` would make one of 1,400,000 for a 2.8 MB record of 1s).
 */
function commasPast(text: string, most: number): boolean {
  let at = -1;
  for (let seen = 0; seen <= most; seen += 1) {
    at = text.indexOf(',', at + 1);
    if (at < 0) return false;
  }
  return true;
}
