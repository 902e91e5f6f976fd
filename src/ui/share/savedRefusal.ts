/**
 * What the page says about saved settings it did not open (src/config/saved.ts): which limit the
 * record crossed, with the record's size and the limit. Part of the list of problems' chunk, not of
 * the first load.
 */
import { SAVED_LIMITS } from '../../config/saved';
import type { SavedLimit } from '../../config/saved';
import type { SavedRefusal } from './session';

const en = (n: number): string => n.toLocaleString('en-US');

const WHAT: Readonly<Record<Exclude<SavedLimit, 'chars' | 'nesting' | 'escapes'>, string>> = {
  parts: 'objects and lists',
  values: 'values',
  strings: 'strings',
  fractions: 'numbers with a fraction or an exponent',
};

/** "They are 4,051,945 characters long, over the 3,000,000 the page reads", and so on. */
export function savedRefusalMessage(limit: SavedRefusal, length: number): string {
  const size = `${en(length)} characters`;
  if (limit === 'unreadable') return `They are not readable as JSON (${size}).`;
  if (limit === 'chars')
    return `They are ${size} long, over the ${en(SAVED_LIMITS.chars)} the page reads.`;
  if (limit === 'escapes')
    return `They hold escaped characters (a backslash: ${size}); the page never writes one.`;
  if (limit === 'nesting')
    return `They are nested more than ${SAVED_LIMITS.nesting} deep (${size}); the page never writes them so.`;
  return `They hold more than ${en(SAVED_LIMITS[limit])} ${WHAT[limit]} (${size}); the page never writes that many.`;
}
