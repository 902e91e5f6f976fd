/**
 * The sweep as a streaming pass over a log too large to hold: every cell's limiter decides each
 * request as it comes out of the reorder window, chunk by chunk, through the same kernels the held
 * sweep runs (src/trace/kernels.ts, their per-key state carried from chunk to chunk; every config
 * has one). Nothing per request is kept: per cell, the kernel's per-key state, the backend arrivals inside the last W (for the
 * peak), the releases still to come and a histogram of delays (for the exact p95).
 *
 * A cell's numbers are the ones `fastSweepCell` gives over the held trace (tests/trace/
 * stream-sweep.test.ts checks it cell by cell): the same decisions at the same whole-ms times, the
 * peak over the same backend arrivals (a window's count only depends on the arrivals in it, and a
 * release is never earlier than its request), the p95 by nearest rank over the same delays. The
 * share rejected of keys up to the p99 needs every key's volume before the first decision: it comes
 * from the pass that read the file before (its per-key counts, by key name).
 */
import { assertAlgorithmConfig } from '../core';
import type { AlgorithmConfig } from '../core';
import { ADDRESS_KEY, TraceMerger } from './builder';
import {
  CalendarCounter,
  RING_ARENA,
  calendarCounted,
  calendarUnitsOf,
  countsEveryRequest,
  kernelState,
  runKernel,
  slidingLogGrownWords,
  slidingLogRingWords,
} from './kernels';
import type { ArrayRecycler, KernelInput, KernelState } from './kernels';
import { mergeAscending } from './fastSweep';
import { belowP99OfCounts } from './sweep';
import type { CellResult } from './sweep';
import { emptyKeyName } from './emptyKeys';
import type { KeySpec, ParseReport } from './types';

/** Requests decided together by every cell (the chunk each kernel run covers). */
export const SWEEP_CHUNK = 1 << 16;
/** Virtual times at most (the kernels' whole-ms Int32 times: about 24.8 days from the first). */
const MAX_VIRTUAL_MS = 2 ** 31 - 1;

/** Keys the kernels are run over once to measure their per-key arrays. */
const PROBE_KEYS = 1024;
/**
 * Bytes of per-key state one cell of `config` holds per key: its kernel's per-key arrays, measured
 * by running the kernel once with state over PROBE_KEYS keys (so the figure follows the kernels:
 * 12 for a fixed window, 17 for GCRA, 25 for nginx's and Envoy's buckets, 16 for the chunked
 * sliding log's ring offsets and sizes, Caddy's too, without its rings: see `stateBytes`). An
 * invalid config holds nothing.
 */
export function stateBytesPerKey(config: AlgorithmConfig): number {
  let valid: AlgorithmConfig;
  try {
    valid = assertAlgorithmConfig(config);
  } catch {
    return 0;
  }
  const state = kernelState();
  const io: KernelInput = {
    timeMs: Int32Array.of(0),
    keyId: Uint32Array.of(0),
    keyCount: PROBE_KEYS,
    below: new Uint8Array(PROBE_KEYS),
    nextSameKey: new Int32Array(0),
    adm: new Float64Array(1),
    del: new Float64Array(1),
    rel: new Float64Array(1),
    flag: new Uint8Array(0),
    state,
  };
  runKernel(io, valid);
  let bytes = 0;
  for (const [name, a] of state.arrays) if (name !== RING_ARENA) bytes += a.byteLength;
  return bytes / PROBE_KEYS;
}

/**
 * The keys a pass decides: how many, or each key id's requests over the whole log (the statistics
 * pass's counts) when the cells are given them too (SweepCells `keyRequests`: the chunked sliding
 * log then makes each key's ring once at its size).
 */
export type KeyLoad = number | ArrayLike<number>;

/** Σ min(limit, requests) by limit, per counts array (a grid has a few limits, many cells each). */
const ringWordsMemo = new WeakMap<object, Map<number, number>>();

function ringWords(limit: number, counts: ArrayLike<number>): number {
  let byLimit = ringWordsMemo.get(counts);
  if (byLimit === undefined) {
    byLimit = new Map();
    ringWordsMemo.set(counts, byLimit);
  }
  let words = byLimit.get(limit);
  if (words === undefined) {
    words = slidingLogRingWords(limit, counts);
    byLimit.set(limit, words);
  }
  return words;
}

/** Bytes of one Int32 ring entry of the chunked sliding log. */
const RING_ENTRY_BYTES = 4;

/**
 * Bytes of state one cell of `config` holds over `keys` at most: the per-key arrays
 * (`stateBytesPerKey` each, × `growth`), and for the chunked sliding log its rings' arena too
 * (src/trace/kernels.ts slidingLogRing). Given each key's requests, the arena is made once at
 * Σ over keys of min(limit, requests) entries, exactly; given only how many keys, each key may
 * leave every size its ring grew through (slidingLogGrownWords) in an arena that doubles (twice).
 */
export function stateBytes(config: AlgorithmConfig, keys: KeyLoad, growth = 1): number {
  const n = typeof keys === 'number' ? keys : keys.length;
  const perKey = Math.max(1, n) * stateBytesPerKey(config) * growth;
  if (config.kind !== 'sliding-log' || perKey === 0) return perKey;
  const words =
    typeof keys === 'number'
      ? 2 * Math.max(1, n) * slidingLogGrownWords(config.limit)
      : ringWords(config.limit, keys);
  return perKey + words * RING_ENTRY_BYTES;
}

/**
 * How many cells of `configs` a pass may run at once over `keys` within `budgetBytes`.
 * `growth`: 2 when the keys appear during the pass (the kernels' arrays grow by doubling), 1 when
 * every key is known before the first request (arrays made once at their size).
 */
export function sweepCellsPerPass(
  configs: readonly AlgorithmConfig[],
  keys: KeyLoad,
  budgetBytes: number,
  growth = 1,
): number {
  let n = 0;
  let used = 0;
  for (const c of configs) {
    used += stateBytes(c, keys, growth);
    if (n > 0 && used > budgetBytes) break;
    n += 1;
  }
  return Math.max(1, n);
}

/** Splits `configs` into the passes `sweepCellsPerPass` allows: the cells of each, in order. */
export function sweepPasses(
  configs: readonly AlgorithmConfig[],
  keys: KeyLoad,
  budgetBytes: number,
  growth = 1,
): number[] {
  const groups: number[] = [];
  for (let at = 0; at < configs.length;) {
    const n = sweepCellsPerPass(configs.slice(at), keys, budgetBytes, growth);
    groups.push(n);
    at += n;
  }
  return groups;
}

/** A min-heap of numbers in a growable Float64Array. */
class MinHeap {
  private a = new Float64Array(64);
  size = 0;
  push(v: number): void {
    if (this.size === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    const a = this.a;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((a[p] as number) <= v) break;
      a[i] = a[p] as number;
      i = p;
    }
    a[i] = v;
  }
  peek(): number {
    return this.a[0] as number;
  }
  pop(): number {
    const a = this.a;
    const top = a[0] as number;
    const v = a[--this.size] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c = r < this.size && (a[r] as number) < (a[l] as number) ? r : l;
      if ((a[c] as number) >= v) break;
      a[i] = a[c] as number;
      i = c;
    }
    a[i] = v;
    return top;
  }
}

/**
 * The most backend arrivals in any W, fed arrivals in time order (admitted at arrival, delayed at
 * release): the count `peakWindow` gives over the same sorted times. Holds the arrivals of the last
 * W as (ms, count) runs and the releases not yet due. Exported for its tests.
 */
export class BackendPeak {
  private t = new Float64Array(64);
  private c = new Float64Array(64);
  private head = 0;
  private tail = 0;
  private sum = 0;
  private readonly pending = new MinHeap();
  best = 0;

  constructor(private readonly windowMs: number) {}

  private emit(x: number): void {
    if (this.tail > this.head && this.t[this.tail - 1] === x) {
      this.c[this.tail - 1] = (this.c[this.tail - 1] as number) + 1;
    } else {
      if (this.tail === this.t.length) {
        // Slide the live runs to the front, in place; new arrays only when more than half is live.
        // (New arrays at every slide were garbage outside the heap at every W's worth of runs, in
        // every cell: a sweep's cell worker held tens of MB of them between collections.)
        const live = this.tail - this.head;
        if (live * 2 > this.t.length) {
          const t = new Float64Array(this.t.length * 2);
          const c = new Float64Array(this.t.length * 2);
          t.set(this.t.subarray(this.head, this.tail));
          c.set(this.c.subarray(this.head, this.tail));
          this.t = t;
          this.c = c;
        } else {
          this.t.copyWithin(0, this.head, this.tail);
          this.c.copyWithin(0, this.head, this.tail);
        }
        this.head = 0;
        this.tail = live;
      }
      this.t[this.tail] = x;
      this.c[this.tail] = 1;
      this.tail += 1;
    }
    this.sum += 1;
    while (x - (this.t[this.head] as number) >= this.windowMs) {
      this.sum -= this.c[this.head] as number;
      this.head += 1;
    }
    if (this.sum > this.best) this.best = this.sum;
  }

  /**
   * One chunk's arrivals: `adm` ascending admitted times, `rel` release times (each ≥ its request's
   * time), `lastMs` the chunk's last request time. Every later arrival is at `lastMs` or after, so
   * the releases up to it are let out in order here.
   */
  chunk(
    adm: Float64Array,
    nAdm: number,
    rel: Float64Array,
    nRel: number,
    lastMs: number,
    del?: Float64Array,
  ): void {
    const p = this.pending;
    if (del === undefined) {
      for (let i = 0; i < nRel; i += 1) p.push(rel[i] as number);
      for (let i = 0; i < nAdm; i += 1) {
        const a = adm[i] as number;
        while (p.size > 0 && p.peek() < a) this.emit(p.pop());
        this.emit(a);
      }
      while (p.size > 0 && p.peek() <= lastMs) this.emit(p.pop());
      return;
    }
    // With the delays (`del`, beside `rel` in request order), each release joins the pending ones
    // only when its request comes, and the ones due before that request leave first: the heap
    // holds the releases still to come, not a chunk's worth of them (tens of thousands a cell, a
    // sweep's cell worker holding tens of MB). The arrivals come out in the same order: a release
    // is never before its request, so one whose request comes after an admitted arrival a is not
    // due before a; and everything let out before a request's time t is before every later
    // arrival, which are all at t or after.
    let j = 0;
    // The next release's request time (+∞ when none is left).
    let next = nRel > 0 ? (rel[0] as number) - (del[0] as number) : Number.POSITIVE_INFINITY;
    for (let i = 0; i <= nAdm; i += 1) {
      // The admitted arrival, or after the last one +∞: every release left joins.
      const a = i < nAdm ? (adm[i] as number) : Number.POSITIVE_INFINITY;
      while (j < nRel && next <= a) {
        while (p.size > 0 && p.peek() < next) this.emit(p.pop());
        p.push(rel[j] as number);
        j += 1;
        next = j < nRel ? (rel[j] as number) - (del[j] as number) : Number.POSITIVE_INFINITY;
      }
      if (i === nAdm) break;
      while (p.size > 0 && p.peek() < a) this.emit(p.pop());
      this.emit(a);
    }
    while (p.size > 0 && p.peek() <= lastMs) this.emit(p.pop());
  }

  finish(): number {
    while (this.pending.size > 0) this.emit(this.pending.pop());
    return this.best;
  }
}

/** One cell of a streamed sweep. */
interface Cell {
  config: AlgorithmConfig | null;
  error: string | null;
  /** Its kernel's per-key state, carried from chunk to chunk. */
  state: KernelState;
  admitted: number;
  rejected: number;
  rejectedBelow: number;
  delays: Map<number, number>;
  delayed: number;
  peak: BackendPeak;
  /**
   * For a calendar-windows config that counts every request: the shared counters of its units
   * (SweepCells `counters`), in its units' order; its decisions come from their counts.
   */
  counted: CalendarCounter[] | null;
}

/** Nearest rank `p` over delays held as a histogram (value → count): `nearestRank` of the sorted. */
function rankOfHistogram(h: Map<number, number>, n: number, p: number): number {
  if (n === 0) return 0;
  const rank = Math.max(1, Math.ceil(p * n));
  const values = [...h.keys()].sort((a, b) => a - b);
  let seen = 0;
  for (const v of values) {
    seen += h.get(v) as number;
    if (seen >= rank) return v;
  }
  return values[values.length - 1] as number;
}

/** A cell's outcome: its numbers, or the message its config failed with. */
export type StreamCell = { ok: true; result: CellResult } | { ok: false; message: string };

/**
 * A system's rule for requests with an empty key, as the held sweep applies it (src/trace/
 * emptyKeys.ts): the key's name in the trace and what the requests get without the limiter.
 */
export interface StreamEmptyKey {
  name: string;
  outcome: 'admit' | 'reject';
}

/**
 * Every key a pass saw with its requests (by key id; the empty key's requests all under it), and
 * the addresses of the empty-key requests it handed on as `ADDRESS_KEY + a` with how many each.
 */
export interface KeyVolumes {
  keys: readonly string[];
  counts: Float64Array;
  addresses: readonly string[];
  addressCounts: Float64Array;
}

/**
 * The keys as a system that keys an empty-key request by its client address (Kong) counts them,
 * as src/trace/emptyKeys.ts `keyEmptyIdByClient` moves a held trace's: each address's cell key id
 * (the key of the same name, else a new one after the keys), every key's name by id, and the p99
 * mask over the volumes so moved.
 */
export interface AddressKeys {
  ids: Uint32Array;
  names: string[];
  below: Uint8Array;
  /** Each key's requests, by the ids here (what `below` is worked out from). */
  counts: Float64Array;
}

/** `AddressKeys` of a pass's volumes; `emptyName` is the empty key's (emptyKeyName). */
export function keysByAddress(v: KeyVolumes, emptyName: string): AddressKeys {
  const emptyId = v.keys.indexOf(emptyName);
  const index = new Map<string, number>();
  v.keys.forEach((k, i) => index.set(k, i));
  const names = v.keys.slice();
  const counts = Array.from({ length: names.length }, (_, i) => v.counts[i] ?? 0);
  const ids = new Uint32Array(v.addresses.length);
  for (let a = 0; a < v.addresses.length; a += 1) {
    const name = v.addresses[a] as string;
    const at = index.get(name);
    // As the held trace: an address that is a key (not the empty one) shares its id.
    const id = at !== undefined && at !== emptyId ? at : names.push(name) - 1;
    if (id === counts.length) counts.push(0);
    ids[a] = id;
    const c = v.addressCounts[a] ?? 0;
    counts[id] = (counts[id] as number) + c;
    if (emptyId >= 0) counts[emptyId] = (counts[emptyId] as number) - c;
  }
  return { ids, names, below: belowP99OfCounts(counts), counts: Float64Array.from(counts) };
}

/**
 * How the cells take an empty-key request handed on with its address (`ADDRESS_KEY + a`): under
 * the empty key (named `emptyName`), or with `byAddress` under its address's key (Kong).
 */
export interface StreamAddressing {
  emptyName: string;
  byAddress: AddressKeys | null;
}

/**
 * The cells of a streamed sweep, fed chunks of requests in time order (whole ms from the first
 * request, ascending; key ids into `keys`, which may grow between chunks; an empty-key request
 * with an address as `ADDRESS_KEY + a`, taken as `addressing` says).
 */
export class SweepCells {
  private readonly cells: Cell[];
  private below: Uint8Array = new Uint8Array(1024);
  private belowKnown = 0;
  private offered = 0;
  private offeredBelow = 0;
  private adm = new Float64Array(SWEEP_CHUNK);
  private del: Float64Array = new Float64Array(1024);
  private rel: Float64Array = new Float64Array(1024);
  /** The empty key's id once it has appeared (−1 before, or without a rule). */
  private emptyId = -1;
  /** Scratch for a chunk without the empty key's requests, their times, the merged admissions. */
  private kt = new Int32Array(0);
  private kk = new Uint32Array(0);
  private et = new Float64Array(0);
  private merged = new Float64Array(0);
  /** The empty key's id once it has appeared (for `addressing`), and scratch for moved key ids. */
  private emptyAt = -1;
  private moved = new Uint32Array(0);
  /** Kong: the keys as it keys empty-key requests by address (`addressing.byAddress`). */
  private readonly byAddress: AddressKeys | null;
  /**
   * The calendar counters the cells that count every request share, by unit and alignment: run
   * once a chunk, not once a cell (kernels.ts CalendarCounter).
   */
  private readonly counters = new Map<string, CalendarCounter>();
  private readonly keyRequests: ArrayLike<number> | undefined;

  constructor(
    configs: readonly AlgorithmConfig[],
    windowMs: number,
    /**
     * 1 for a key whose volume over the whole log is at most the p99 of key volumes: by key name,
     * or by key id when every key is known before the first chunk.
     */
    private readonly belowOf: ((key: string) => number) | Uint8Array,
    /** The system's empty-key rule; null: the empty key's requests go to the limiter. */
    private readonly emptyKey: StreamEmptyKey | null = null,
    /** How requests handed on with their address are taken (none may come without it). */
    private readonly addressing: StreamAddressing | null = null,
    /**
     * Each key id's requests over the whole log, when every key is known before the first chunk
     * (KernelInput `keyRequests`: the chunked sliding log sizes its rings from them); keyed by
     * address, `addressing.byAddress.counts` instead.
     */
    keyRequests: ArrayLike<number> | null = null,
    /** Where the cells' kernels take their arrays from (those of a pass before this one). */
    private readonly recycler: ArrayRecycler | null = null,
  ) {
    this.keyRequests = addressing?.byAddress?.counts ?? keyRequests ?? undefined;
    if (belowOf instanceof Uint8Array) this.below = belowOf;
    // Keyed by address, the cells' keys are those of `byAddress` and so is the p99 mask.
    this.byAddress = addressing?.byAddress ?? null;
    if (this.byAddress !== null) this.below = this.byAddress.below;
    this.cells = configs.map((c) => {
      let config: AlgorithmConfig | null = null;
      let error: string | null = null;
      try {
        config = assertAlgorithmConfig(c);
      } catch (e) {
        error = (e as Error).message;
      }
      return {
        config,
        error,
        state: kernelState(recycler ?? undefined),
        admitted: 0,
        rejected: 0,
        rejectedBelow: 0,
        delays: new Map(),
        delayed: 0,
        peak: new BackendPeak(windowMs),
        counted: config === null ? null : this.sharedCounters(config),
      };
    });
  }

  /**
   * The shared counters of a calendar-windows config that counts every request, one per unit it
   * sets (made on first use, by unit and alignment); null for any other config.
   */
  private sharedCounters(config: AlgorithmConfig): CalendarCounter[] | null {
    if (config.kind !== 'calendar-windows' || !countsEveryRequest(config)) return null;
    const align = config.align ?? 'calendar';
    return calendarUnitsOf(config).map((unit) => {
      const id = `${unit} ${align}`;
      let counter = this.counters.get(id);
      if (counter === undefined) {
        counter = new CalendarCounter(unit, align);
        this.counters.set(id, counter);
      }
      return counter;
    });
  }

  /** Learns the p99 mask and the empty key of keys that appeared since the last chunk. */
  private learnKeys(keys: readonly string[]): void {
    // Keyed by address, the mask is `byAddress`'s, by id, whole from the start.
    const byName =
      this.belowOf instanceof Uint8Array || this.byAddress !== null ? null : this.belowOf;
    if (byName !== null && keys.length > this.below.length) {
      const b = new Uint8Array(Math.max(keys.length, this.below.length * 2));
      b.set(this.below);
      this.below = b;
    }
    for (; this.belowKnown < keys.length; this.belowKnown += 1) {
      const name = keys[this.belowKnown] as string;
      if (byName !== null) this.below[this.belowKnown] = byName(name);
      if (this.emptyKey !== null && name === this.emptyKey.name) this.emptyId = this.belowKnown;
      if (name === this.addressing?.emptyName) this.emptyAt = this.belowKnown;
    }
  }

  /**
   * `keyId` with each request handed on with its address given the key `addressing` says: its
   * address's (keyed by address) or the empty key's. The array itself when none is.
   */
  private keyedByRule(keyId: Uint32Array, n: number): Uint32Array {
    let first = -1;
    for (let i = 0; i < n && first < 0; i += 1) if ((keyId[i] as number) >= ADDRESS_KEY) first = i;
    if (first < 0) return keyId;
    const rule = this.addressing;
    if (rule === null || (rule.byAddress === null && this.emptyAt < 0)) {
      throw new Error('The sweep got requests keyed by client address without the rule for them.');
    }
    if (this.moved.length < n) this.moved = new Uint32Array(n);
    const out = this.moved;
    out.set(keyId.subarray(0, n));
    const ids = rule.byAddress?.ids ?? null;
    for (let i = first; i < n; i += 1) {
      const k = out[i] as number;
      if (k < ADDRESS_KEY) continue;
      if (ids === null) {
        out[i] = this.emptyAt;
        continue;
      }
      const id = ids[k - ADDRESS_KEY];
      if (id === undefined) {
        throw new Error(`The sweep has no key for client address ${k - ADDRESS_KEY + 1}.`);
      }
      out[i] = id;
    }
    return out;
  }

  /**
   * Decides `n` requests (times `t`, keys `keyId`) through every cell. `originMs`: the epoch ms
   * time 0 stands for (the first request's whole-ms arrival), from which the clock-aligned
   * algorithms place their windows (KernelInput `originMs`); the same for every chunk of a run.
   */
  push(t: Int32Array, keyId: Uint32Array, n: number, keys: readonly string[], originMs = 0): void {
    if (n === 0) return;
    this.learnKeys(keys);
    keyId = this.keyedByRule(keyId, n);
    // Keyed by address, a key may be an address that is no key of the log: `byAddress` names all.
    if (this.byAddress !== null) keys = this.byAddress.names;
    const below = this.below;
    for (let i = 0; i < n; i += 1) this.offeredBelow += below[keyId[i] as number] as number;
    this.offered += n;
    if (this.adm.length < n) this.adm = new Float64Array(n);
    let timeMs = t.subarray(0, n);
    let ids = keyId.subarray(0, n);
    const lastMs = timeMs[n - 1] as number;
    // The empty key's requests skip the limiter (the system's rule): the cells decide the others
    // and add these back, as the held sweep's `finish` does (src/trace/fastSweep.ts).
    const e = this.emptyId;
    let skipped = 0;
    if (e >= 0) {
      for (let i = 0; i < n; i += 1) if (ids[i] === e) skipped += 1;
      if (skipped > 0) {
        if (this.kt.length < n) {
          this.kt = new Int32Array(n);
          this.kk = new Uint32Array(n);
          this.et = new Float64Array(n);
          this.merged = new Float64Array(n);
        }
        let j = 0;
        let s = 0;
        for (let i = 0; i < n; i += 1) {
          const k = ids[i] as number;
          if (k === e) {
            this.et[s++] = timeMs[i] as number;
            continue;
          }
          this.kt[j] = timeMs[i] as number;
          this.kk[j] = k;
          j += 1;
        }
        timeMs = this.kt.subarray(0, j);
        ids = this.kk.subarray(0, j);
      }
    }
    const skipAdmit = skipped > 0 && this.emptyKey?.outcome === 'admit';
    const skipReject = skipped > 0 && !skipAdmit;
    // Every shared calendar counter counts the chunk once; the cells read the counts.
    const counts = new Map<CalendarCounter, Int32Array>();
    for (const counter of this.counters.values()) {
      counts.set(counter, counter.run(timeMs, ids, keys.length, originMs));
    }
    for (const cell of this.cells) {
      if (cell.config === null) continue;
      const io: KernelInput = {
        timeMs,
        keyId: ids,
        keyCount: keys.length,
        below,
        nextSameKey: new Int32Array(0),
        adm: this.adm,
        del: this.del,
        rel: this.rel,
        flag: new Uint8Array(0),
        state: cell.state,
        keyRequests: this.keyRequests,
        originMs,
      };
      const tally =
        cell.counted !== null && cell.config.kind === 'calendar-windows'
          ? calendarCounted(
              io,
              cell.config,
              cell.counted.map((counter) => counts.get(counter) as Int32Array),
            )
          : runKernel(io, cell.config);
      let admitted = tally.admitted;
      const delayed = tally.delayed;
      cell.rejected += tally.rejected;
      cell.rejectedBelow += tally.rejectedBelow;
      // The kernel grows its delay scratch on demand: keep the larger arrays for the next cell.
      this.del = io.del;
      this.rel = io.rel;
      let adm = this.adm;
      if (skipAdmit) {
        admitted = mergeAscending(this.adm, admitted, this.et, skipped, this.merged);
        adm = this.merged;
      } else if (skipReject) {
        cell.rejected += skipped;
        cell.rejectedBelow += (below[e] as number) * skipped;
      }
      cell.admitted += admitted;
      cell.delayed += delayed;
      for (let i = 0; i < delayed; i += 1) {
        const d = this.del[i] as number;
        cell.delays.set(d, (cell.delays.get(d) ?? 0) + 1);
      }
      cell.peak.chunk(adm, admitted, this.rel, delayed, lastMs, this.del);
    }
  }

  /** Each cell's numbers, measured as fastSweepCell measures them over the held trace. */
  /**
   * Lets the cells' kernel arrays go to the recycler, for the next pass's cells. After this the
   * cells decide nothing more: only `finish`'s numbers, kept apart, stand.
   */
  release(): void {
    if (this.recycler === null) return;
    for (const cell of this.cells) {
      this.recycler.put(cell.state.arrays.values());
      cell.state.arrays.clear();
    }
  }

  finish(): StreamCell[] {
    const n = this.offered;
    return this.cells.map((cell): StreamCell => {
      if (cell.error !== null) return { ok: false, message: cell.error };
      return {
        ok: true,
        result: {
          offered: n,
          rejected: cell.rejected,
          delayed: cell.delayed,
          rejectedShare: n > 0 ? cell.rejected / n : 0,
          rejectedShareP99: this.offeredBelow > 0 ? cell.rejectedBelow / this.offeredBelow : 0,
          peakBackend: cell.peak.finish(),
          p95DelayMs: rankOfHistogram(cell.delays, cell.delayed, 0.95),
        },
      };
    });
  }
}

/**
 * The key volumes of a pass that read the whole log, as the sweep's p99 rule needs them: 1 for a key
 * at most the p99 of key volumes (belowP99), by key name; 0 for a key the pass did not see.
 */
export function belowByName(
  keys: readonly string[],
  counts: ArrayLike<number>,
): (k: string) => number {
  const mask = belowP99OfCounts(Array.from({ length: keys.length }, (_, i) => counts[i] ?? 0));
  const byName = new Map<string, number>();
  for (let i = 0; i < keys.length; i += 1) byName.set(keys[i] as string, mask[i] as number);
  return (k) => byName.get(k) ?? 0;
}

/** The figures of a streamed sweep so far (posted as progress) and at the end. */
export interface StreamSweepFigures {
  requests: number;
  /** Requests decided out of time order (further back than the reorder window). */
  outsideWindow: number;
}

export interface StreamSweepResult extends StreamSweepFigures {
  report: ParseReport;
  /** False when a request was decided out of time order: the cells' numbers are not exact. */
  exact: boolean;
  cells: StreamCell[];
}

/**
 * Where a pass writes the compact request stream the later passes read instead of the text: each
 * chunk of SWEEP_CHUNK requests (the last one shorter) as its whole-ms times (Int32, little-endian
 * as the platform's typed arrays) then its key ids (Uint32), 8 bytes a request, appended in order.
 */
export interface RequestSink {
  write(bytes: Uint8Array): void;
}

/** A sink held as Blobs (the browser keeps large ones in its blob store, not the page's heap). */
export class BlobSink implements RequestSink {
  private readonly parts: Blob[] = [];
  write(bytes: Uint8Array): void {
    this.parts.push(new Blob([bytes as Uint8Array<ArrayBuffer>]));
  }
  blob(): Blob {
    return new Blob(this.parts);
  }
}

/**
 * What a recorded read leaves: the compact requests (an empty-key request with an address as
 * `ADDRESS_KEY + a`), their count, the keys and their volumes.
 */
export interface RecordedRequests extends KeyVolumes {
  /** Chunks as RequestSink writes them. */
  blob: Blob;
  count: number;
  /** The epoch ms the recorded times count from (RequestRecorder `originMs`). */
  originMs: number;
}

/**
 * Requests as the cells take them: whole ms since the first request, ⌊arrival⌋ − ⌊first arrival⌋,
 * so that time + `originMs` (⌊first arrival⌋) is the request's whole-ms arrival, as the dry run
 * times them (src/trace/replay.ts `virtualTimes`); never going down: one further back than the
 * reorder window is put at the latest time so far, as the kernels need. Gathered in chunks of
 * SWEEP_CHUNK; each full chunk goes to `sink` (8 bytes a request, as RequestSink says) and to
 * `chunk`. `push` throws past MAX_VIRTUAL_MS from the first request.
 */
export class RequestRecorder {
  private readonly t = new Int32Array(SWEEP_CHUNK);
  private readonly k = new Uint32Array(SWEEP_CHUNK);
  private readonly bytes: Uint8Array;
  private n = 0;
  private t0 = 0;
  private lastV = 0;
  /** Requests taken. */
  count = 0;

  /** The epoch ms time 0 stands for: the first request's arrival, floored (0 before any). */
  get originMs(): number {
    return this.t0;
  }

  constructor(
    private readonly sink: RequestSink | null,
    private readonly chunk: (t: Int32Array, k: Uint32Array, n: number) => void = () => {},
  ) {
    this.bytes = new Uint8Array(sink === null ? 0 : SWEEP_CHUNK * 8);
  }

  /** Takes one request: epoch ms `t` (fractional), key id `key`. */
  push(t: number, key: number): void {
    if (this.count === 0) this.t0 = Math.floor(t);
    const v = Math.max(this.lastV, Math.floor(t) - this.t0);
    if (v > MAX_VIRTUAL_MS) {
      throw new Error(
        `The sweep covers at most ${Math.floor(MAX_VIRTUAL_MS / 86_400_000)} days from the first request; this log goes on further (request ${this.count + 1}).`,
      );
    }
    this.count += 1;
    this.lastV = v;
    this.t[this.n] = v;
    this.k[this.n] = key;
    this.n += 1;
    if (this.n === SWEEP_CHUNK) this.flush();
  }

  /** Hands on the requests gathered since the last full chunk. */
  flush(): void {
    const n = this.n;
    if (this.sink !== null && n > 0) {
      const b = this.bytes;
      b.set(new Uint8Array(this.t.buffer, 0, n * 4), 0);
      b.set(new Uint8Array(this.k.buffer, 0, n * 4), n * 4);
      this.sink.write(b.subarray(0, n * 8));
    }
    this.chunk(this.t, this.k, n);
    this.n = 0;
  }
}

/** Requests per key id, and per address of the empty-key requests handed on with one. */
export class Volumes {
  private counts: Float64Array = new Float64Array(1024);
  private byAddress: Float64Array = new Float64Array(0);
  /** Empty-key requests that came with an address. */
  addressed = 0;

  private static add(a: Float64Array, i: number): Float64Array {
    let out = a;
    if (i >= a.length) {
      out = new Float64Array(Math.max(i + 1, a.length * 2, 64));
      out.set(a);
    }
    out[i] = (out[i] as number) + 1;
    return out;
  }

  /** Counts a request of key `key` (`ADDRESS_KEY + a`: the empty key's, `emptyId`); its key id. */
  count(key: number, emptyId: number): number {
    if (key < ADDRESS_KEY) {
      this.counts = Volumes.add(this.counts, key);
      return key;
    }
    this.byAddress = Volumes.add(this.byAddress, key - ADDRESS_KEY);
    this.addressed += 1;
    this.counts = Volumes.add(this.counts, emptyId);
    return emptyId;
  }

  /** A request's count by key id so far. */
  at(key: number): number {
    return this.counts[key] ?? 0;
  }

  of(merger: TraceMerger): KeyVolumes {
    const keys = merger.keys;
    const addresses = merger.addresses;
    const addressCounts = new Float64Array(addresses.length);
    addressCounts.set(this.byAddress.subarray(0, addresses.length));
    const counts = new Float64Array(keys.length);
    counts.set(this.counts.subarray(0, keys.length));
    return { keys, counts, addresses, addressCounts };
  }
}

/**
 * The pass: give its `merger` to the readers (as StreamPass's), then call `finish` with the report
 * the read ends with. Requests are timed as RequestRecorder times them; one further back than the
 * reorder window makes the result say it is not exact. It counts each key's requests, and with a
 * `sink` it writes every request as the cells get it (so later passes need not read the text
 * again); with no configs it only counts and records.
 */
export class StreamSweepPass {
  readonly merger: TraceMerger;
  private readonly cells: SweepCells;
  private readonly recorder: RequestRecorder;
  private outside = 0;
  private readonly volumes = new Volumes();

  constructor(
    name: string,
    spec: KeySpec,
    configs: readonly AlgorithmConfig[],
    windowMs: number,
    belowOf: (key: string) => number,
    options: {
      emptyKey?: StreamEmptyKey | null;
      sink?: RequestSink | null;
      /** Kong: empty-key requests with an address under that address's key (keysByAddress). */
      byAddress?: AddressKeys | null;
    } = {},
  ) {
    const emptyName = emptyKeyName(spec);
    this.cells = new SweepCells(
      configs,
      windowMs,
      belowOf,
      options.emptyKey ?? null,
      emptyName === null ? null : { emptyName, byAddress: options.byAddress ?? null },
    );
    this.recorder = new RequestRecorder(options.sink ?? null, (t, k, n) =>
      this.cells.push(t, k, n, this.merger.keys, this.recorder.originMs),
    );
    this.merger = new TraceMerger(name, spec, Number.MAX_SAFE_INTEGER, undefined, {
      ordered: (c, from, n) => {
        for (let i = from; i < from + n; i += 1) this.request(c.t[i] as number, c.key[i] as number);
      },
      outside: (t, key) => {
        this.outside += 1;
        this.request(t, key);
      },
    });
  }

  figures(): StreamSweepFigures {
    return { requests: this.recorder.count, outsideWindow: this.outside };
  }

  /** The epoch ms the recorded times count from (RequestRecorder `originMs`). */
  get originMs(): number {
    return this.recorder.originMs;
  }

  /** Each key's requests so far, by key id (as StreamPass.keyVolumes). */
  keyVolumes(): KeyVolumes {
    return this.volumes.of(this.merger);
  }

  private request(t: number, key: number): void {
    this.recorder.push(t, key);
    this.volumes.count(key, this.merger.emptyId);
  }

  finish(report: ParseReport): StreamSweepResult {
    this.recorder.flush();
    return {
      ...this.figures(),
      report,
      exact: this.outside === 0,
      cells: this.cells.finish(),
    };
  }
}

/**
 * Reads a Blob from start to end, handing on each piece as it comes; a piece may be overwritten
 * once `onBytes` returns (the page's BYOB reader, src/store/readBytes.ts, fills one buffer again
 * and again).
 */
export type BlobBytesReader = (blob: Blob, onBytes: (bytes: Uint8Array) => void) => Promise<void>;

/** Reads `blob` with its stream's default reader (a new buffer for every piece). */
async function readBlobPieces(blob: Blob, onBytes: (bytes: Uint8Array) => void): Promise<void> {
  const reader = blob.stream().getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onBytes(value);
  }
}

/**
 * The cells of `configs` decided over a recorded request stream (as `StreamSweepPass` wrote it),
 * read as one stream through `readAll` and gathered, chunk by chunk, into one buffer of
 * SWEEP_CHUNK requests that every chunk reuses: the numbers a pass over the text gives, at the
 * speed of reading 8 bytes a request. A chunk read as a Blob slice of its own
 * (`slice().arrayBuffer()`) made a new buffer the browser owns for every 512 kB; detached after use,
 * their memory was no longer counted by the worker's heap, so no collection came for it: in the
 * pinned Chromium a 16M-request sweep's renderer peaked at 354 MB that way (247 MB anonymous, 64 MB
 * of it in the isolates), 225 MB with this one buffer (114 MB anonymous), for the same CPU time
 * (tests/bench/ingestStream.ts). `progress` gets the requests decided so far after each chunk.
 */
export async function sweepRecorded(
  rec: {
    blob: Blob;
    count: number;
    keys: readonly string[];
    /** How requests recorded with their address are taken (needed when there are any). */
    addressing?: StreamAddressing | null;
    /** The epoch ms the recorded times count from (RequestRecorder `originMs`); absent: 0. */
    originMs?: number;
    /** Each key id's requests (KeyVolumes `counts`), for SweepCells `keyRequests`. */
    counts?: ArrayLike<number> | null;
  },
  configs: readonly AlgorithmConfig[],
  windowMs: number,
  below: Uint8Array,
  emptyKey: StreamEmptyKey | null,
  progress: (requests: number) => void = () => {},
  readAll: BlobBytesReader = readBlobPieces,
  /**
   * The arrays of the pass before, for this pass's kernels; this pass's go back to it at the end.
   * What the first chunk leaves untaken is forgotten.
   */
  recycler: ArrayRecycler | null = null,
): Promise<StreamCell[]> {
  const cells = new SweepCells(
    configs,
    windowMs,
    below,
    emptyKey,
    rec.addressing ?? null,
    rec.counts ?? null,
    recycler,
  );
  const chunks = Math.ceil(rec.count / SWEEP_CHUNK);
  const chunk = new Uint8Array(Math.min(SWEEP_CHUNK, rec.count) * 8);
  /** Bytes of chunk `c`: its times (Int32) then its key ids (Uint32). */
  const bytesOf = (c: number): number => Math.min(SWEEP_CHUNK, rec.count - c * SWEEP_CHUNK) * 8;
  let c = 0;
  let filled = 0;
  if (chunks > 0) {
    await readAll(rec.blob.slice(0, rec.count * 8), (bytes) => {
      let at = 0;
      while (at < bytes.length && c < chunks) {
        const want = bytesOf(c);
        const take = Math.min(bytes.length - at, want - filled);
        chunk.set(bytes.subarray(at, at + take), filled);
        filled += take;
        at += take;
        if (filled < want) continue;
        const n = want / 8;
        cells.push(
          new Int32Array(chunk.buffer, 0, n),
          new Uint32Array(chunk.buffer, n * 4, n),
          n,
          rec.keys,
          rec.originMs ?? 0,
        );
        // Every cell has made its arrays in the first chunk: the rest are the garbage they are.
        if (c === 0) recycler?.drop();
        progress(c * SWEEP_CHUNK + n);
        c += 1;
        filled = 0;
      }
    });
  }
  if (c < chunks) {
    throw new Error(`The recorded requests end early (chunk ${c + 1} of ${chunks}).`);
  }
  const results = cells.finish();
  cells.release();
  return results;
}
