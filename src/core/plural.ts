/**
 * The one rule for a count and its noun, used by every layer (messages, views, answers, downloads):
 * "1 request", "3 requests", "0 entries", "1 entry". It lives in core, the lowest layer, so sim,
 * config, export, viz and ui all count with it. English only, as the page is; `Intl.PluralRules`
 * decides which form a number takes (1 is singular, 0, 1.5 and 2 are not).
 */

const RULES = new Intl.PluralRules('en-US');

/** Whole numbers with thousands separators: "1,234". Not-finite values print as "–". */
function wholeCount(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return String(Math.round(value)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The noun alone, in the form `count` takes: pluralNoun(1, 'entry', 'entries') → "entry". */
export function pluralNoun(count: number, one: string, many = `${one}s`): string {
  return Number.isFinite(count) && RULES.select(count) === 'one' ? one : many;
}

/**
 * A count and its noun: plural(1, 'request') → "1 request", plural(1234, 'entry', 'entries') →
 * "1,234 entries". `format` writes the number (default: rounded to a whole number with thousands
 * separators); the noun follows the number as written, so 0.6 written as "1" says "1 request".
 */
export function plural(
  count: number,
  one: string,
  many = `${one}s`,
  format: (n: number) => string = wholeCount,
): string {
  const text = format(count);
  const shown = Number(text.replace(/[,\s]/g, ''));
  return `${text} ${pluralNoun(Number.isNaN(shown) ? count : shown, one, many)}`;
}
