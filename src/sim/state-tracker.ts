// Long file on purpose: the exact state tracker runs after every decision of a run; its cache,
// holder lists, least-recently-read order and per-store totals work together and are kept in one
// place so the invariants that make the peak exact stay visible side by side.
/**
 * Limiter memory, tracked exactly: the peak is the largest total over every decision of the run,
 * not a sample. A key's size in a store changes only when a decision (or, shared-racy, a landed
 * write; a fleet's sync or scale event) touches it; between those it can only shrink (a window
 * empties, a log expires, a bucket refills to idle). So the total can only reach a new maximum
 * just after a decision. After each decision the decided key is re-read; the cached sizes of the
 * other keys are upper bounds, and when their sum exceeds the peak so far the held keys are re-read,
 * the least recently read first, until the sum is back under the peak or every key has been read
 * (then the sum is the exact total at that instant).
 *
 * Which stores are re-read for the decided key (speed): the stores the decision touched,
 * and the other stores that held the key at their last reading (cached size not 0) only when the
 * key's cached total could pass its peak (the others only shrank since, so their cached sizes are
 * upper bounds and no new peak hides there). A store whose cached size for the key is 0 held
 * nothing and was not touched, so it still holds nothing: a fleet of 64 replicas behind consistent
 * hashing reads one or two stores per decision, not 65. `touched` null means "any store may have
 * changed" (every store is read).
 */
import type { Limiter, StateSize } from '../core';

type TotalSize = (nowMs: number) => StateSize;
const NO_TOTAL: StateSize = Object.freeze({ entries: 0, bytes: 0 });

export class StateTracker {
  readonly keyIndex = new Map<string, number>();
  private readonly names: string[];
  /** Per key: the largest bytes / entries it held (summed over stores) just after a decision. */
  peakBytes: Float64Array;
  peakEntries: Float64Array;
  /** Cached sizes by store * keys + key (upper bounds for keys not re-read since). */
  private cacheBytes: Float64Array;
  private cacheEntries: Float64Array;
  /** Per key: the stores whose cached size for it is not 0 (unordered). */
  private holders: number[][];
  private cachedBytes = 0;
  private cachedEntries = 0;
  peakTotalBytes = 0;
  peakTotalEntries = 0;
  peakAtMs = 0;

  /**
   * Keys below this index are read by index (Limiter.stateSizeKey): the stores were given
   * `keyIndex` as it is now, through useKeyIndex (0: no store was).
   */
  private slotKeys = 0;

  /** Tells the tracker its stores find keys by their index in `keyIndex` (see slotKeys). */
  keysIndexed(): void {
    this.slotKeys = this.keyIndex.size;
  }

  constructor(
    keyNames: readonly string[],
    private stores: readonly Limiter[],
  ) {
    this.names = keyNames.slice();
    keyNames.forEach((k, i) => this.keyIndex.set(k, i));
    const n = keyNames.length;
    this.peakBytes = new Float64Array(n);
    this.peakEntries = new Float64Array(n);
    this.cacheBytes = new Float64Array(n * stores.length);
    this.cacheEntries = new Float64Array(n * stores.length);
    this.holders = Array.from({ length: n }, () => []);
    this.heldPrev = new Int32Array(n);
    this.heldNext = new Int32Array(n);
    this.isHeld = new Uint8Array(n);
    this.allDirect = stores.every((st) => st.totalStateSize !== undefined);
    [this.maxBytes, this.maxEntries] = StateTracker.maxima(stores);
  }

  /**
   * Per store: the most one key can take there (Limiter.keySizeMax; 0 when it varies). A key
   * cached at that size needs no re-reading after a decision on it: the cache stays an upper bound.
   */
  private maxBytes: Float64Array;
  private maxEntries: Float64Array;

  private static maxima(stores: readonly Limiter[]): [Float64Array, Float64Array] {
    const bytes = new Float64Array(stores.length);
    const entries = new Float64Array(stores.length);
    stores.forEach((st, s) => {
      const max = st.keySizeMax;
      if (max !== null && (max.bytes > 0 || max.entries > 0)) {
        bytes[s] = max.bytes;
        entries[s] = max.entries;
      }
    });
    return [bytes, entries];
  }

  private indexOf(key: string): number {
    let k = this.keyIndex.get(key);
    if (k === undefined) {
      // A key outside keyNames (never expected, but never lost): give it a slot of its own.
      k = this.keyIndex.size;
      this.keyIndex.set(key, k);
      this.names.push(key);
      this.holders.push([]);
      const grow = (a: Float64Array, len: number): Float64Array => {
        const b = new Float64Array(len);
        b.set(a);
        return b;
      };
      const old = k;
      const s = this.stores.length;
      const cb = new Float64Array((old + 1) * s);
      const ce = new Float64Array((old + 1) * s);
      for (let i = 0; i < s; i += 1) {
        cb.set(this.cacheBytes.subarray(i * old, (i + 1) * old), i * (old + 1));
        ce.set(this.cacheEntries.subarray(i * old, (i + 1) * old), i * (old + 1));
      }
      this.cacheBytes = cb;
      this.cacheEntries = ce;
      this.peakBytes = grow(this.peakBytes, old + 1);
      this.peakEntries = grow(this.peakEntries, old + 1);
      const growInt = (a: Int32Array): Int32Array => {
        const b = new Int32Array(old + 1);
        b.set(a);
        return b;
      };
      this.heldPrev = growInt(this.heldPrev);
      this.heldNext = growInt(this.heldNext);
      const held = new Uint8Array(old + 1);
      held.set(this.isHeld);
      this.isHeld = held;
    }
    return k;
  }

  /**
   * The stores changed (a fleet replaced replicas): the caller re-reads every key next. Same count
   * of stores keeps the cache layout; another count starts the caches afresh.
   */
  setStores(stores: readonly Limiter[]): void {
    if (stores.length !== this.stores.length) {
      const n = this.keyIndex.size;
      this.cacheBytes = new Float64Array(n * stores.length);
      this.cacheEntries = new Float64Array(n * stores.length);
      this.holders = Array.from({ length: n }, () => []);
      this.isHeld.fill(0);
      this.heldHead = -1;
      this.heldTail = -1;
      this.heldSize = 0;
      this.exactAtWall = null;
      this.cachedBytes = 0;
      this.cachedEntries = 0;
    }
    this.stores = stores;
    this.allDirect = stores.every((st) => st.totalStateSize !== undefined);
    [this.maxBytes, this.maxEntries] = StateTracker.maxima(stores);
    // New limiters: every total is read afresh next time.
    this.directBytes = new Float64Array(0);
    this.directEntries = new Float64Array(0);
    this.directBytesSum = 0;
    this.directEntriesSum = 0;
  }

  /** Every store gives its total at once (see directTotal). */
  private allDirect: boolean;

  /** Re-reads key k in store s. */
  private readOne(s: number, k: number, wallMs: number): void {
    const store = this.stores[s] as Limiter;
    const key = this.names[k] as string;
    const size =
      k < this.slotKeys ? store.stateSizeKey(wallMs, key, k) : store.stateSize(wallMs, key);
    this.setOne(s, k, size.bytes, size.entries);
  }

  /** Key k's size in store s is now exactly `bytes` / `entries`: into the cache and holders. */
  private setOne(s: number, k: number, bytes: number, entries: number): void {
    const at = s * this.keyIndex.size + k;
    const oldBytes = this.cacheBytes[at] as number;
    const oldEntries = this.cacheEntries[at] as number;
    this.cachedBytes += bytes - oldBytes;
    this.cachedEntries += entries - oldEntries;
    this.cacheBytes[at] = bytes;
    this.cacheEntries[at] = entries;
    const was = oldBytes !== 0 || oldEntries !== 0;
    const is = bytes !== 0 || entries !== 0;
    if (was === is) return;
    const h = this.holders[k] as number[];
    if (is) h.push(s);
    else {
      const i = h.indexOf(s);
      h[i] = h[h.length - 1] as number;
      h.pop();
    }
  }

  /** Key k's total over stores, from the cache, counted into its peak. */
  private notePeak(k: number): void {
    const n = this.keyIndex.size;
    let bytes = 0;
    let entries = 0;
    for (const s of this.holders[k] as number[]) {
      bytes += this.cacheBytes[s * n + k] as number;
      entries += this.cacheEntries[s * n + k] as number;
    }
    this.notePeakOf(k, bytes, entries);
  }

  /** notePeak with key k's cached total already summed (`bytes`, `entries`). */
  private notePeakOf(k: number, bytes: number, entries: number): void {
    if (bytes > (this.peakBytes[k] as number)) this.peakBytes[k] = bytes;
    if (entries > (this.peakEntries[k] as number)) this.peakEntries[k] = entries;
    // Keep the held keys in the order of their last reading, oldest first.
    const prev = this.heldPrev;
    const next = this.heldNext;
    if (this.isHeld[k] === 1) {
      if (this.heldTail === k) {
        if ((this.holders[k] as number[]).length > 0) return; // already the newest
      }
      const p = prev[k] as number;
      const q = next[k] as number;
      if (p >= 0) next[p] = q;
      else this.heldHead = q;
      if (q >= 0) prev[q] = p;
      else this.heldTail = p;
      this.isHeld[k] = 0;
      this.heldSize -= 1;
    }
    if ((this.holders[k] as number[]).length > 0) {
      prev[k] = this.heldTail;
      next[k] = -1;
      if (this.heldTail >= 0) next[this.heldTail] = k;
      else this.heldHead = k;
      this.heldTail = k;
      this.isHeld[k] = 1;
      this.heldSize += 1;
    }
  }

  /**
   * The keys some store holds (a cached size not 0), least recently read first, as a list linked
   * through heldPrev / heldNext (key indexes; -1 ends it). A key outside it holds nothing: a size
   * only grows through a decision on it, which reads it. (A linked list rather than a Map kept in
   * insertion order: moving a key to the end is a few array writes, not a delete and an insert.)
   */
  private heldPrev: Int32Array;
  private heldNext: Int32Array;
  private isHeld: Uint8Array;
  private heldHead = -1;
  private heldTail = -1;
  private heldSize = 0;

  /** Re-reads key k in the stores that held it. */
  private readIndex(k: number, wallMs: number): void {
    const h = this.holders[k] as number[];
    // Backwards: readOne may swap the last holder into the slot just read.
    for (let i = h.length - 1; i >= 0; i -= 1) this.readOne(h[i] as number, k, wallMs);
    this.notePeak(k);
  }

  /** Re-reads one key in the stores that held it and those in `touched` (null: every store). */
  private readKey(
    key: string,
    wallMs: number,
    touched: readonly number[] | null,
    hint: number,
    passed: boolean,
  ): void {
    const k = this.names[hint] === key ? hint : this.indexOf(key);
    if (touched === null) {
      for (let s = 0; s < this.stores.length; s += 1) this.readOne(s, k, wallMs);
    } else {
      const n = this.keyIndex.size;
      // A touched store whose cached size for the key is already the most a key can take there is
      // not read: its cached size stays an upper bound (the total is then no longer exact at this
      // instant, and the key's own stores are all read below before its peak can rise).
      let skipped = false;
      for (let i = 0; i < touched.length; i += 1) {
        const s = touched[i] as number;
        const at = s * n + k;
        const max = this.maxBytes[s] as number;
        const maxEntries = this.maxEntries[s] as number;
        if (max > 0 || maxEntries > 0) {
          // Every store touched by a request that passed decided it and passed it, and a pass
          // leaves a fixed-size key at exactly that size (Limiter.keySizeMax): no reading.
          if (passed) {
            this.setOne(s, k, max, maxEntries);
            continue;
          }
          if (this.cacheBytes[at] === max && this.cacheEntries[at] === maxEntries) {
            skipped = true;
            continue;
          }
        }
        this.readOne(s, k, wallMs);
      }
      if (skipped) this.exactAtWall = null;
      // The other holders only shrank since they were read (their cached sizes are upper bounds):
      // they are re-read only when their sum could pass the key's peak.
      const h = this.holders[k] as number[];
      let bytes = 0;
      let entries = 0;
      for (let i = 0; i < h.length; i += 1) {
        const at = (h[i] as number) * n + k;
        bytes += this.cacheBytes[at] as number;
        entries += this.cacheEntries[at] as number;
      }
      if (bytes <= (this.peakBytes[k] as number) && entries <= (this.peakEntries[k] as number)) {
        this.notePeakOf(k, bytes, entries);
        return;
      }
      // Backwards: readOne may swap the last holder into the slot just read.
      for (let i = h.length - 1; i >= 0; i -= 1) {
        const s = h[i] as number;
        if (skipped || !touched.includes(s)) this.readOne(s, k, wallMs);
      }
    }
    this.notePeak(k);
  }

  /**
   * Re-reads every key of every store at `wallMs`: the keys whose cached size is not 0 (a key a
   * store has since forgotten reads 0), and with `scan` also every key each store holds (after a
   * change no decision re-read: a landed racy write, a fleet's sync or scale event).
   */
  private readAll(wallMs: number, scan: boolean): void {
    const n = this.keyIndex.size;
    for (let k = 0; k < n; k += 1) {
      const h = this.holders[k] as number[];
      for (let i = h.length - 1; i >= 0; i -= 1) this.readOne(h[i] as number, k, wallMs);
    }
    if (scan) {
      for (let s = 0; s < this.stores.length; s += 1) {
        for (const key of (this.stores[s] as Limiter).keys()) {
          const k = this.indexOf(key);
          const at = s * this.keyIndex.size + k;
          // Not 0: a holder, read just above.
          if (this.cacheBytes[at] === 0 && this.cacheEntries[at] === 0) this.readOne(s, k, wallMs);
        }
      }
    }
    for (let k = 0; k < this.keyIndex.size; k += 1) this.notePeak(k);
    this.exactAtWall = wallMs;
  }

  /**
   * After a decision on `key` at virtual `tMs` (wall `wallMs`); `all` re-reads every key;
   * `touched` lists the stores the decision may have changed (null: any); `keyIndex`, the key's
   * index in the key names when the caller knows it (saves a lookup; checked); `passed`, true
   * when every store in `touched` decided this request and passed it.
   */
  after(
    key: string,
    tMs: number,
    wallMs: number,
    all: boolean,
    touched: readonly number[] | null = null,
    keyIndex = -1,
    passed = false,
  ): void {
    this.noteWall(wallMs);
    const direct = all ? null : this.directTotal(wallMs, touched);
    if (direct !== null) {
      this.readKey(key, wallMs, touched, keyIndex, passed);
      if (direct.bytes > this.peakTotalBytes) {
        this.peakTotalBytes = direct.bytes;
        this.peakAtMs = tMs;
      }
      if (direct.entries > this.peakTotalEntries) this.peakTotalEntries = direct.entries;
      return;
    }
    if (all) this.readAll(wallMs, true);
    else this.readKey(key, wallMs, touched, keyIndex, passed);
    // Every change since the last full reading was read by a decision: the holders suffice. Once
    // every held key has been read at this wall instant, the cache is exact until the wall clock
    // moves on (sizes change only with time or through a decision, which re-reads its key).
    if (this.overPeak() && (all || this.exactAtWall === wallMs || this.settle(wallMs))) {
      if (this.cachedBytes > this.peakTotalBytes) {
        this.peakTotalBytes = this.cachedBytes;
        this.peakAtMs = tMs;
      }
      if (this.cachedEntries > this.peakTotalEntries) this.peakTotalEntries = this.cachedEntries;
    }
  }

  /**
   * `after(key, tMs, wallMs, false, [s], k, passed)` in one step when it would change nothing but
   * the wall-clock bookkeeping (speed: a single limiter's loop calls this for every row):
   * key k (below the indexed keys, so `names[k]` is the key) is the one read last, its cached size
   * in store s is already the most a key can take there (fixed size), no store gives its total at
   * once, and the cached total is not over the peak. Then `after` would set (a pass) or keep (a
   * reject) that size, find the key's cached total still within its peak (it was noted when last
   * cached) and the key already last in the reading order. A reject leaves the size unread, so the
   * cached total is no longer known exact at this instant. Returns false, doing nothing, when any
   * of that does not hold: the caller calls `after`.
   */
  afterOne(k: number, s: number, wallMs: number, passed: boolean): boolean {
    if (k >= this.slotKeys || k < 0 || this.heldTail !== k || this.allDirect) return false;
    const max = this.maxBytes[s] as number;
    const maxEntries = this.maxEntries[s] as number;
    if (max === 0 && maxEntries === 0) return false;
    const at = s * this.keyIndex.size + k;
    if (this.cacheBytes[at] !== max || this.cacheEntries[at] !== maxEntries) return false;
    if (this.overPeak()) return false;
    this.noteWall(wallMs);
    if (!passed) this.exactAtWall = null;
    return true;
  }

  private overPeak(): boolean {
    return this.cachedBytes > this.peakTotalBytes || this.cachedEntries > this.peakTotalEntries;
  }

  /**
   * The cached total passed the peak: re-read the held keys, the least recently read first (the
   * likeliest to have shrunk), until the cached total is back under the peak — then the exact total
   * is too, as cached sizes are upper bounds, so no new peak — or every held key has been read and
   * the cached total is exact. Returns true in that last case. With many keys (a replayed access
   * log) this reads a few stale keys per decision instead of all of them; the peak stays exact.
   */
  private settle(wallMs: number): boolean {
    // Each key held now is read once, oldest first; reading moves it to the end (or drops it).
    let left = this.heldSize;
    let k = this.heldHead;
    while (left > 0 && k >= 0) {
      if (!this.overPeak()) return false;
      left -= 1;
      const next = this.heldNext[k] as number;
      this.readIndex(k, wallMs);
      k = next;
    }
    if (this.heldSize > 0 && !this.overPeak()) return false;
    this.exactAtWall = wallMs;
    return this.overPeak();
  }

  /**
   * The wall instant at which every held key was last read (a settle that read them all, or a full
   * reading), else null: at that same instant the cached total is exact without reading again.
   */
  private exactAtWall: number | null = null;

  /**
   * The exact total when every store can give it at once (nginx's `totalStateSize`), else null:
   * then a replayed log with tens of thousands of keys costs no scan at all.
   */
  private directTotal(
    wallMs: number,
    touched: readonly number[] | null,
  ): { bytes: number; entries: number } | null {
    if (!this.allDirect) return null;
    const n = this.stores.length;
    if (touched === null || this.directBytes.length !== n) {
      // Every store read afresh (the first reading, any store may have changed, or new stores).
      if (this.directBytes.length !== n) {
        this.directBytes = new Float64Array(n);
        this.directEntries = new Float64Array(n);
      }
      for (let s = 0; s < n; s += 1) this.readDirect(s, wallMs);
    } else {
      // A total changes only with the store's state (Limiter.totalStateSize): the others stand.
      for (const s of touched) this.readDirect(s, wallMs);
    }
    this.direct.bytes = this.directBytesSum;
    this.direct.entries = this.directEntriesSum;
    return this.direct;
  }

  /** Store s's total (nginx's `totalStateSize`), kept per store and summed. */
  private readDirect(s: number, wallMs: number): void {
    const store = this.stores[s] as Limiter;
    // Holds nothing (most replicas of a hashed fleet): 0 without asking.
    const t = store.size === 0 ? NO_TOTAL : (store.totalStateSize as TotalSize)(wallMs);
    this.directBytesSum += t.bytes - (this.directBytes[s] as number);
    this.directEntriesSum += t.entries - (this.directEntries[s] as number);
    this.directBytes[s] = t.bytes;
    this.directEntries[s] = t.entries;
  }

  /** Per store: its last `totalStateSize` (empty until the first reading, or after new stores). */
  private directBytes = new Float64Array(0);
  private directEntries = new Float64Array(0);
  private directBytesSum = 0;
  private directEntriesSum = 0;
  /** directTotal's answer, reused (read at once by `after`). */
  private readonly direct = { bytes: 0, entries: 0 };

  /**
   * The latest wall time of any reading, and whether a reading ever came at an earlier one (a
   * clock jumped back): a size read as 0 may then have grown again without a decision.
   */
  private latestWall = Number.NEGATIVE_INFINITY;
  private wentBack = false;

  private noteWall(wallMs: number): void {
    if (wallMs < this.latestWall) this.wentBack = true;
    else this.latestWall = wallMs;
  }

  /** The exact total at `wallMs` (and the keys held), counted into the peak. */
  measure(tMs: number, wallMs: number): { bytes: number; entries: number; keys: number } {
    let keys = 0;
    for (const store of this.stores) keys += store.size;
    this.noteWall(wallMs);
    // Every key a store holds was read when it last grew (a decision, or a full reading after any
    // other change), and sizes only shrink as the wall clock moves forward: a key read as 0 still
    // holds nothing, so the holders suffice. Once the clock has gone back, every key is scanned.
    this.readAll(wallMs, this.wentBack);
    if (this.cachedBytes > this.peakTotalBytes) {
      this.peakTotalBytes = this.cachedBytes;
      this.peakAtMs = tMs;
    }
    if (this.cachedEntries > this.peakTotalEntries) this.peakTotalEntries = this.cachedEntries;
    return { bytes: this.cachedBytes, entries: this.cachedEntries, keys };
  }
}
