/**
 * Traces kept in this browser: their compact files in IndexedDB until the
 * person deletes them. Nothing leaves the browser. Without IndexedDB (private modes, tests) the
 * functions reject with a message and the page keeps working.
 */
import { compactTrace, keySpecOfText } from '../trace';
import type { Trace } from '../trace';
import { checkKeptRecords, keptRecordProblem, storageFailure } from './keptRecords';
import type { UnreadableKept } from './keptRecords';

export interface KeptTrace {
  id: number;
  /** The compact file's name. */
  name: string;
  /** Its size in bytes (what it takes here). */
  bytes: number;
  requests: number;
  hash: string;
  /**
   * The file the trace was read from, as a link names it (its name and size in bytes): a replay
   * of the kept copy names the same file, so its link is the original's. Absent in traces kept
   * before it was recorded.
   */
  source?: TraceOrigin;
}

/** The name and size of the file a trace was read from (what a link's trace source names). */
export interface TraceOrigin {
  name: string;
  bytes: number;
  /**
   * The key it was read with (src/trace/keys.ts `keySpecText`): a kept copy's link names the key
   * of the original read. Absent: the client address (and traces kept before it was recorded).
   */
  key?: string;
  /**
   * The span of the file the trace was read out of, epoch ms [spanFromMs, spanToMs), when the
   * file was too large to hold (src/store/streamLoad.ts `loadSpan`). Absent: the whole file.
   */
  spanFromMs?: number;
  spanToMs?: number;
}

/** A span of a file as stored data gives it: two whole epoch ms, the end later, else none. */
function storedSpan(from: unknown, to: unknown): Pick<TraceOrigin, 'spanFromMs' | 'spanToMs'> {
  const epoch = (x: unknown): x is number =>
    typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 && x <= 864e13;
  return epoch(from) && epoch(to) && from < to ? { spanFromMs: from, spanToMs: to } : {};
}

/** `value` as a TraceOrigin when it is one (stored data is read back with care), else undefined. */
export function originOf(value: unknown): TraceOrigin | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, bytes, key, spanFromMs, spanToMs } = value as Record<string, unknown>;
  // A stored key that names no key is dropped: the kept copy then opens keyed by its client column.
  const keyOk = typeof key === 'string' && key.length <= 206 && keySpecOfText(key) !== null;
  return typeof name === 'string' &&
    name.length >= 1 &&
    name.length <= 200 &&
    typeof bytes === 'number' &&
    Number.isSafeInteger(bytes) &&
    bytes >= 0
    ? { name, bytes, ...(keyOk ? { key } : {}), ...storedSpan(spanFromMs, spanToMs) }
    : undefined;
}

interface Row extends Omit<KeptTrace, 'id'> {
  id?: number;
  data: Blob;
}

const DB = 'rate-limit-lab';
const STORE = 'traces';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    if (typeof indexedDB === 'undefined') {
      reject(new Error('This browser keeps no data for the page (no IndexedDB).'));
      return;
    }
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore(STORE, { keyPath: 'id', autoIncrement: true });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(storageFailure(req.error));
  });
}

/**
 * Runs one request in a transaction; settles when the transaction completes, fails or is aborted
 * (a full quota aborts it: keeping a trace over the quota used to hang without a word), with a
 * message that says what happened (storageFailure).
 */
function run<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return open().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const failed = (error: DOMException | Error | null) => {
          db.close();
          reject(storageFailure(error));
        };
        let tx: IDBTransaction;
        let req: IDBRequest<T>;
        try {
          // Throws when the store is not there (a database another page made).
          tx = db.transaction(STORE, mode);
          req = fn(tx.objectStore(STORE));
        } catch (e) {
          failed(e as Error);
          return;
        }
        tx.oncomplete = () => {
          db.close();
          resolve(req.result);
        };
        tx.onerror = () => failed(tx.error);
        tx.onabort = () => failed(tx.error);
      }),
  );
}

/**
 * The kept traces, oldest first (their data is not read). Records that are not kept traces (see
 * keptRecords.ts) are left out and given to `onUnreadable`, to list and offer to delete.
 */
export async function listKept(
  onUnreadable?: (records: UnreadableKept[]) => void,
): Promise<KeptTrace[]> {
  const [all, keys] = await Promise.all([
    run<unknown[]>('readonly', (s) => s.getAll()),
    run<IDBValidKey[]>('readonly', (s) => s.getAllKeys()),
  ]);
  const { kept: rows, unreadable } = checkKeptRecords<Row>(all, (_, i) => keys[i] ?? i);
  onUnreadable?.(unreadable);
  return rows.map(({ id, name, bytes, requests, hash, source }) => {
    const origin = originOf(source);
    return {
      id: id as number,
      name,
      bytes,
      requests,
      hash,
      ...(origin === undefined ? {} : { source: origin }),
    };
  });
}

export async function keep(file: Blob, meta: Omit<KeptTrace, 'id' | 'bytes'>): Promise<void> {
  const row: Row = { ...meta, bytes: file.size, data: file };
  await run('readwrite', (s) => s.add(row));
}

/** The kept compact file, as a File the loader reads like any other. */
export async function keptFile(id: number): Promise<File> {
  const row = await run<unknown>('readonly', (s) => s.get(id));
  if (row === undefined) throw new Error('That trace is no longer kept here.');
  const why = keptRecordProblem(row);
  if (why !== null) throw new Error(`That kept record cannot be opened (${why}); delete it.`);
  return new File([(row as Row).data], (row as Row).name);
}

/** Deletes a kept trace. */
export async function forget(id: number): Promise<void> {
  await run('readwrite', (s) => s.delete(id));
}

/** Deletes the records at `keys` (records that are not kept traces), in one transaction. */
export async function forgetAll(keys: readonly IDBValidKey[]): Promise<void> {
  await run<unknown>('readwrite', (s) => {
    let last: IDBRequest = s.count();
    for (const key of keys) last = s.delete(key);
    return last;
  });
}

type CompactInput = Pick<Trace, 'count' | 'arrivalMs' | 'keyId' | 'keys' | 'status' | 'cost'>;

/**
 * The compact file of `trace`, made in a worker where there is one. Its `arrivalMs` and `cost`
 * buffers are moved to that worker: pass arrays made for this call.
 */
export function compactFile(trace: CompactInput, name: string): Promise<File> {
  const make = (bytes: Uint8Array) =>
    new File([bytes as Uint8Array<ArrayBuffer>], name, { type: 'application/gzip' });
  if (typeof Worker === 'undefined') return Promise.resolve(make(compactTrace(trace)));
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL('./compact.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<Uint8Array>) => {
      w.terminate();
      resolve(make(e.data));
    };
    w.onerror = (e) => {
      w.terminate();
      reject(new Error(`Could not make the compact file: ${e.message}`));
    };
    const { count, arrivalMs, keyId, keys, status, cost } = trace;
    // The arrays are the caller's copies: moved, not copied again.
    w.postMessage({ count, arrivalMs, keyId, keys, status, cost }, [arrivalMs.buffer, cost.buffer]);
  });
}
