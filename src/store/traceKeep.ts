/**
 * Traces kept in this browser (issue 12, point 6): their compact files in IndexedDB until the
 * person deletes them. Nothing leaves the browser. Without IndexedDB (private modes, tests) the
 * functions reject with a message and the page keeps working.
 */
import { compactTrace } from '../trace';
import type { Trace } from '../trace';

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
}

/** `value` as a TraceOrigin when it is one (stored data is read back with care), else undefined. */
function originOf(value: unknown): TraceOrigin | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, bytes } = value as Record<string, unknown>;
  return typeof name === 'string' &&
    name.length >= 1 &&
    name.length <= 200 &&
    typeof bytes === 'number' &&
    Number.isSafeInteger(bytes) &&
    bytes >= 0
    ? { name, bytes }
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
    req.onerror = () => reject(req.error ?? new Error('IndexedDB could not be opened'));
  });
}

function run<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return open().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const tx = db.transaction(STORE, mode);
        const req = fn(tx.objectStore(STORE));
        tx.oncomplete = () => {
          db.close();
          resolve(req.result);
        };
        tx.onerror = () => {
          db.close();
          reject(tx.error ?? new Error('IndexedDB failed'));
        };
      }),
  );
}

/** The kept traces, oldest first (their data is not read). */
export async function listKept(): Promise<KeptTrace[]> {
  const rows = await run<Row[]>('readonly', (s) => s.getAll() as IDBRequest<Row[]>);
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
  const row = await run<Row | undefined>(
    'readonly',
    (s) => s.get(id) as IDBRequest<Row | undefined>,
  );
  if (row === undefined) throw new Error('That trace is no longer kept here.');
  return new File([row.data], row.name);
}

export async function forget(id: number): Promise<void> {
  await run('readwrite', (s) => s.delete(id));
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
