/**
 * The records of kept traces (IndexedDB, src/store/traceKeep.ts), checked before the page uses
 * them: another version of the page, or another page on the same origin, can write anything into
 * the same database, and a record without `requests` once threw in render and blanked the page.
 * A record that is not a kept trace is listed with what is wrong with it, and can be deleted.
 * Also what a storage failure (quota, an aborted transaction) says.
 */
import { quoteText } from '../core';
import { MAX_TRACE_SOURCE_REQUESTS } from '../sim';

/** The longest file name a kept record may have (compact names of long file names fit). */
export const MAX_KEPT_NAME = 1024;

const whole = (value: unknown, max: number): boolean =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max;

/**
 * The schema of a kept-trace record: each field the page reads, its check, and the message when
 * it fails (fields it does not read are let through). A table rather than valibot: valibot lives
 * in the page's first chunk, and each of its functions this lazily loaded module used was one more
 * export of that chunk, over the initial JavaScript budget.
 */
const FIELDS: readonly [string, (value: unknown) => boolean, string][] = [
  ['id', (x) => whole(x, Number.MAX_SAFE_INTEGER), 'id must be a whole number'],
  [
    'name',
    (x) => typeof x === 'string' && x !== '' && x.length <= MAX_KEPT_NAME,
    `name must be text of 1 to ${MAX_KEPT_NAME} characters`,
  ],
  ['bytes', (x) => whole(x, Number.MAX_SAFE_INTEGER), 'bytes must be a whole number of bytes'],
  [
    'requests',
    (x) => whole(x, MAX_TRACE_SOURCE_REQUESTS),
    `requests must be a whole number from 0 to ${MAX_TRACE_SOURCE_REQUESTS}`,
  ],
  [
    'hash',
    (x) => typeof x === 'string' && /^[0-9a-f]{16}$/.test(x),
    'hash must be 16 lowercase hex digits',
  ],
  ['data', (x) => x instanceof Blob, 'data must be a file'],
];

/** A record in the kept traces' store that is not a kept trace. */
export interface UnreadableKept {
  /** Its key in the store (what deleting it takes). */
  key: IDBValidKey;
  /** How it is shown: its name quoted when it has one, else its key. */
  label: string;
  /** What is wrong with it, e.g. `requests is missing`. */
  why: string;
}

/** Why `record` is not a kept trace the page can read, or null when it is one. */
export function keptRecordProblem(record: unknown): string | null {
  if (typeof record !== 'object' || record === null) return 'it is not a record';
  for (const [field, ok, message] of FIELDS) {
    if (!(field in record)) return `${field} is missing`;
    if (!ok((record as Record<string, unknown>)[field])) return message;
  }
  return null;
}

/**
 * `records` split into the kept traces and the others, in store order. `keyOf` gives a record's
 * key in the store (the records themselves may not hold a usable one).
 */
export function checkKeptRecords<T>(
  records: readonly unknown[],
  keyOf: (record: unknown, i: number) => IDBValidKey,
): { kept: T[]; unreadable: UnreadableKept[] } {
  const kept: T[] = [];
  const unreadable: UnreadableKept[] = [];
  records.forEach((record, i) => {
    const why = keptRecordProblem(record);
    if (why === null) {
      kept.push(record as T);
      return;
    }
    const key = keyOf(record, i);
    const name = (record as { name?: unknown } | null)?.name;
    const label =
      typeof name === 'string' && name !== ''
        ? quoteText(name)
        : `record ${quoteText(typeof key === 'string' ? key : JSON.stringify(key))}`;
    unreadable.push({ key, label, why });
  });
  return { kept, unreadable };
}

/**
 * What a failed or aborted storage transaction says: a full quota named as such, with what to do
 * about it; anything else with the browser's own words, quoted. Nothing was changed either way
 * (a transaction that fails changes nothing).
 */
export function storageFailure(error: DOMException | Error | null): Error {
  if (error?.name === 'QuotaExceededError')
    return new Error(
      "This browser has no room left to keep it: the page's storage quota is used up, and nothing was kept. Delete a kept trace, or free space in the browser, and try again.",
    );
  const why = error === null ? 'the browser gave no reason' : `${error.name}: ${error.message}`;
  return new Error(`The browser's storage failed (${quoteText(why, 120)}); nothing was changed.`);
}
