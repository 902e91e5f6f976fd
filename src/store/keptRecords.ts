/**
 * The records of kept traces (IndexedDB, src/store/traceKeep.ts), checked before the page uses
 * them: another version of the page, or another page on the same origin, can write anything into
 * the same database, and a record without `requests` once threw in render and blanked the page.
 * A record that is not a kept trace is listed with what is wrong with it, and can be deleted.
 * Also what a storage failure (quota, an aborted transaction) says.
 */
import * as v from 'valibot';
import { quoteText } from '../core';
import { MAX_TRACE_SOURCE_REQUESTS } from '../sim';

/** The longest file name a kept record may have (compact names of long file names fit). */
export const MAX_KEPT_NAME = 1024;

const whole = (max: number, what: string) =>
  v.pipe(v.number(what), v.integer(what), v.minValue(0, what), v.maxValue(max, what));

/**
 * The fields of a kept-trace record the page reads (others are let through untouched); its `data`,
 * the compact file, is checked to be a Blob beside it (keptRecordProblem).
 */
export const KeptRecordSchema = v.object({
  id: v.pipe(v.number('id must be a number'), v.integer('id must be a whole number')),
  name: v.pipe(
    v.string('name must be text'),
    v.minLength(1, 'name must not be empty'),
    v.maxLength(MAX_KEPT_NAME, `name must be at most ${MAX_KEPT_NAME} characters`),
  ),
  bytes: whole(Number.MAX_SAFE_INTEGER, 'bytes must be a whole number of bytes'),
  requests: whole(
    MAX_TRACE_SOURCE_REQUESTS,
    `requests must be a whole number from 0 to ${MAX_TRACE_SOURCE_REQUESTS}`,
  ),
  hash: v.pipe(
    v.string('hash must be text'),
    v.regex(/^[0-9a-f]{16}$/, 'hash must be 16 lowercase hex digits'),
  ),
});

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
  const checked = v.safeParse(KeptRecordSchema, record);
  if (!checked.success) {
    const issue = checked.issues[0];
    const field = issue.path?.[0]?.key;
    if (typeof field === 'string' && !(field in record)) return `${field} is missing`;
    return issue.message;
  }
  if (!('data' in record)) return 'data is missing';
  return record.data instanceof Blob ? null : 'data must be a file';
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
