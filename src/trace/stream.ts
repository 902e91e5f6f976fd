/**
 * A streaming pass over a log too large to hold (src/trace/budget.ts): requests come out of the
 * reorder window in time order and each is counted and decided at once, holding only per-key
 * state — request counts, the busiest second, the limiters' state (core's createLimiter, one per
 * config, each keeping its keys' state) — plus an overview of requests and rejections per bin.
 * Nothing per request is kept, so memory is bounded by the number of keys, not of requests.
 *
 * Exactness: a request is decided at its whole-ms virtual time (its whole ms less the first
 * request's), through core placed on the log's clock, as replayTrace decides it over the held trace: while every
 * request is inside the reorder window the figures are the ones a held trace gives. A request
 * further back than the window is decided where it stands in the file (core clamps time going
 * backwards as the real systems do); the result then says it is not exact, and how many.
 */
import { createLimiter } from '../core';
import type { AlgorithmConfig, Limiter } from '../core';
import { ADDRESS_KEY, TraceMerger } from './builder';
import type { Baseline } from './dryrun';
import { recordedRejection } from './dryrun';
import { emptyKeyName } from './emptyKeys';
import { OVERVIEW_BIN_MS, OVERVIEW_MAX_BINS } from './overview';
import { RequestRecorder } from './streamSweep';
import type { KeyVolumes, RequestSink } from './streamSweep';
import type { KeySpec, ParseReport } from './types';

/**
 * What a limiter's system does with a request whose key is empty (src/trace/emptyKeys.ts): admit
 * or deny it without the limiter ('admit', 'reject': emptyKeyOutcome), key it by its client
 * address where its line has one ('client', Kong), or null — give it to the limiter under one key.
 */
export type StreamEmptyOutcome = 'admit' | 'reject' | 'client' | null;

/** How many keys each list of the result names. */
export const STREAM_TOP_KEYS = 10;

/** What one limiter did over the pass. */
export interface StreamDecisions {
  admitted: number;
  delayed: number;
  rejected: number;
  /** Against the baseline (the log's recorded 429/503s, or no limit), as the dry run counts. */
  toRejected: number;
  toAllowed: number;
  toDelayed: number;
}

/** A key in the result's lists. */
export interface StreamKey {
  key: string;
  requests: number;
  /** Most requests of the key in one aligned second. */
  peakPerSecond: number;
  /** Rejected by the first limiter (0 without one). */
  rejected: number;
}

/** Requests (and the first limiter's rejections) per bin, from the first request. */
export interface StreamOverview {
  /** Bin width, ms: a minute, doubled as often as needed to stay within OVERVIEW_MAX_BINS. */
  binMs: number;
  requests: Uint32Array;
  rejected: Uint32Array;
}

/** The pass's running figures (posted as progress) and, at the end, its result. */
export interface StreamFigures {
  requests: number;
  keys: number;
  /** Epoch ms of the first and last request let out (NaN before any). */
  firstMs: number;
  lastMs: number;
  /** One per config, in order. */
  decisions: StreamDecisions[];
  /** Requests decided out of time order (further back than the reorder window). */
  outsideWindow: number;
}

export interface StreamResult extends StreamFigures {
  report: ParseReport;
  /** False when a request was decided out of time order: order-dependent figures are not exact. */
  exact: boolean;
  overview: StreamOverview;
  /** Busiest keys by requests, the empty key left out (see `empty`). */
  top: StreamKey[];
  /** Keys with the most rejections by the first limiter (empty without one), without the empty key. */
  topRejected: StreamKey[];
  /**
   * The requests whose key is empty (src/trace/emptyKeys.ts), or null when there are none: kept
   * out of the lists, since each system has its own rule for them and the page says which.
   * `withAddress`: those whose line has a client address (a held trace's `emptyClients`); its
   * `rejected` counts them too, wherever the rule keyed them.
   */
  empty: (StreamKey & { withAddress: number }) | null;
}

/** Per-key columns, grown on demand. */
class KeyColumns {
  requests = new Float64Array(1024);
  second = new Float64Array(1024).fill(-1);
  inSecond = new Float64Array(1024);
  peak = new Float64Array(1024);
  rejected = new Float64Array(1024);
  /**
   * Room for key `id`. The check alone, run per request: the growing below is a method of its own,
   * since a function whose inner arrow captures a variable makes that variable's context on every
   * call, early return or not — an object per request.
   */
  grow(id: number): void {
    if (id >= this.requests.length) this.enlarge(id);
  }

  private enlarge(id: number): void {
    const n = Math.max(id + 1, this.requests.length * 2);
    const more = (a: Float64Array, fill = 0): Float64Array<ArrayBuffer> => {
      const b = new Float64Array(n).fill(fill);
      b.set(a);
      return b;
    };
    this.requests = more(this.requests);
    this.second = more(this.second, -1);
    this.inSecond = more(this.inSecond);
    this.peak = more(this.peak);
    this.rejected = more(this.rejected);
  }
}

/**
 * The pass. Give its `merger` to the readers (a TraceStream's `merger` option, or parts added in
 * file order), then call `finish` with the report the read ends with.
 */
export class StreamPass {
  readonly merger: TraceMerger;
  /** Validated at construction; made afresh at the first request, placed on its clock. */
  private limiters: Limiter[];
  private readonly configs: readonly AlgorithmConfig[];
  private readonly decisions: StreamDecisions[];
  private readonly perKey = new KeyColumns();
  private t0 = Number.NaN;
  private lastMs = Number.NaN;
  private count = 0;
  private outside = 0;
  private binMs = OVERVIEW_BIN_MS;
  private binReq = new Uint32Array(1024);
  private binRej = new Uint32Array(1024);
  private bins = 0;
  /** Writes each request compactly for a later sweep (null without a sink, or once it failed). */
  private recorder: RequestRecorder | null;
  /** Why the compact copy stopped, or null while it holds every request so far. */
  private recordError: string | null = null;
  /** Each limiter's system's rule for empty-key requests (one per config). */
  private readonly emptyRules: StreamEmptyOutcome[];
  /**
   * Per limiter: whether it finds a key's state by the key's id (Limiter.useKeyIndex over the
   * merger's live key index) rather than through its Map. Not for a limiter whose system keys
   * empty-key requests by address ('client'): an address is not a key id, and a state made under
   * an address that later turns up as a key name would be missed by that key's empty slot.
   */
  private readonly slotted: boolean[];
  /** Key ids below this have a slot in every slotted limiter (the index's size when last given). */
  private slotRoom = 0;
  /** Empty-key requests with an address (`ADDRESS_KEY + a`), in all and per address. */
  private addressed = 0;
  private addressCounts: Float64Array = new Float64Array(0);

  constructor(
    name: string,
    private readonly spec: KeySpec,
    /** The limiters to decide with (each validated by createLimiter, which throws). */
    configs: readonly AlgorithmConfig[],
    private readonly baseline: Baseline = 'recorded',
    /**
     * Where the pass also writes every request as a streamed sweep reads them (RequestSink), so the
     * sweep that follows need not read the text again.
     */
    sink: RequestSink | null = null,
    /**
     * What each limiter's system does with an empty-key request, as the held dry run applies it
     * (replayWithEmptyKey, keyEmptyByClient): one rule for every limiter, or one per config (a
     * compare can hold several systems). 'admit' and 'reject' decide the request without the
     * limiter (no delay, no state); 'client' decides one whose line has an address under it.
     */
    empty: StreamEmptyOutcome | readonly StreamEmptyOutcome[] = null,
  ) {
    this.emptyRules = configs.map((_, j) =>
      typeof empty === 'string' || empty === null ? empty : (empty[j] ?? null),
    );
    this.slotted = this.emptyRules.map((r) => r !== 'client');
    this.recorder = sink === null ? null : new RequestRecorder(sink);
    this.configs = configs;
    this.limiters = configs.map((c) => createLimiter(c));
    this.decisions = configs.map(() => ({
      admitted: 0,
      delayed: 0,
      rejected: 0,
      toRejected: 0,
      toAllowed: 0,
      toDelayed: 0,
    }));
    this.merger = new TraceMerger(name, spec, Number.MAX_SAFE_INTEGER, undefined, {
      ordered: (c, from, n) => {
        for (let i = from; i < from + n; i += 1) {
          this.request(c.t, i, c.key[i] as number, c.status[i] as number);
        }
      },
      outside: (t, key, _cost, status) => {
        this.outside += 1;
        this.outsideT[0] = t;
        this.request(this.outsideT, 0, key, status);
      },
    });
  }

  /** The figures so far. */
  figures(): StreamFigures {
    return {
      requests: this.count,
      keys: this.merger.keys.length,
      firstMs: this.t0,
      lastMs: this.lastMs,
      decisions: this.decisions.map((d) => ({ ...d })),
      outsideWindow: this.outside,
    };
  }

  /** Every key seen so far, and its requests (index by key id): what the sweep's p99 rule needs. */
  keyVolumes(): KeyVolumes {
    const addresses = this.merger.addresses;
    const addressCounts = new Float64Array(addresses.length);
    addressCounts.set(this.addressCounts.subarray(0, addresses.length));
    return {
      keys: this.merger.keys,
      counts: this.perKey.requests.subarray(0, this.merger.keys.length),
      addresses,
      addressCounts,
    };
  }

  /**
   * The compact copy's requests once the pass has finished: their count, or the reason there is no
   * whole copy (no sink, a write that failed, a log longer than the sweep's time range).
   */
  recorded(): { ok: true; count: number; originMs: number } | { ok: false; message: string } {
    if (this.recorder !== null) {
      return { ok: true, count: this.recorder.count, originMs: this.recorder.originMs };
    }
    return { ok: false, message: this.recordError ?? 'Not recorded.' };
  }

  private record(t: number, key: number): void {
    try {
      (this.recorder as RequestRecorder).push(t, key);
    } catch (e) {
      // The figures stand; only the copy is given up (a sweep then reads the text).
      this.recorder = null;
      this.recordError = e instanceof Error ? e.message : String(e);
    }
  }

  /** The arrival of a request outside the window, as `request` reads it (a column of one). */
  private readonly outsideT = new Float64Array(1);

  /**
   * Counts and decides one request: its arrival `times[i]` (epoch ms), key id `given`, recorded
   * status. The arrival is read from its column here: handed to this call as a number (past 2^30)
   * it would be boxed, a heap number per request.
   */
  private request(times: Float64Array, i: number, given: number, status: number): void {
    const t = times[i] as number;
    if (this.recorder !== null) this.record(t, given);
    // An empty-key request with an address: the empty key's in the figures (as a held trace
    // counts it), its address's for a limiter that keys it so.
    let key = given;
    let address: string | null = null;
    if (given >= ADDRESS_KEY) {
      const a = given - ADDRESS_KEY;
      key = this.merger.emptyId;
      this.addressed += 1;
      if (a >= this.addressCounts.length) {
        const more = new Float64Array(Math.max(a + 1, this.addressCounts.length * 2, 64));
        more.set(this.addressCounts);
        this.addressCounts = more;
      }
      this.addressCounts[a] = (this.addressCounts[a] as number) + 1;
      address = this.merger.addresses[a] as string;
    }
    if (this.count === 0) {
      this.t0 = t;
      // Virtual 0 is the first request's whole epoch ms, as the held replay's (virtualOrigin):
      // windows on the clock fall where the system's fall.
      const originMs = Math.floor(t);
      this.limiters = this.configs.map((c) => createLimiter(c, { originMs }));
      this.slotRoom = 0;
    }
    this.count += 1;
    if (!(t <= this.lastMs)) this.lastMs = t;
    // Whole ms from the first request's whole ms (virtualTimes); before the first request only
    // when further back than the window (not exact, and said so).
    const v = Math.max(0, Math.floor(t) - Math.floor(this.t0));
    const k = this.perKey;
    k.grow(key);
    k.requests[key] = (k.requests[key] as number) + 1;
    const sec = Math.floor(v / 1000);
    if (k.second[key] !== sec) {
      k.second[key] = sec;
      k.inSecond[key] = 0;
    }
    const inSec = (k.inSecond[key] as number) + 1;
    k.inSecond[key] = inSec;
    if (inSec > (k.peak[key] as number)) k.peak[key] = inSec;
    const bin = this.binOf(v);
    this.binReq[bin] = (this.binReq[bin] as number) + 1;
    if (this.limiters.length === 0) return;
    const name = this.merger.keys[key] as string;
    const isEmpty = key === this.merger.emptyId;
    const wasRejected = this.baseline === 'recorded' && recordedRejection(status);
    // A key newer than the slots: every slotted limiter is given the index again, which sizes its
    // slots to every key so far (the merger adds a part's keys before handing on its requests, so
    // this happens at most once per part that brings new keys).
    if (key >= this.slotRoom) this.giveKeyIndex();
    for (let j = 0; j < this.limiters.length; j += 1) {
      const rule = isEmpty ? (this.emptyRules[j] as StreamEmptyOutcome) : null;
      // The system's rule: admitted or denied without the limiter (no state), or (Kong) decided
      // under the address the line has; else the limiter decides it under its key. decideKey is
      // decide without a Decision of its own (the limiter's reused one, read at once) and, with
      // the key's id, without the Map lookup: the same decision (Limiter.decideKey).
      const outcome =
        rule === 'admit' || rule === 'reject'
          ? rule
          : rule === 'client' && address !== null
            ? (this.limiters[j] as Limiter).decideKey(v, address, -1).outcome
            : (this.limiters[j] as Limiter).decideKey(v, name, this.slotted[j] ? key : -1).outcome;
      const tally = this.decisions[j] as StreamDecisions;
      if (outcome === 'reject') {
        tally.rejected += 1;
        if (!wasRejected) tally.toRejected += 1;
        if (j === 0) {
          k.rejected[key] = (k.rejected[key] as number) + 1;
          this.binRej[bin] = (this.binRej[bin] as number) + 1;
        }
      } else {
        if (outcome === 'delay') tally.delayed += 1;
        else tally.admitted += 1;
        if (wasRejected) tally.toAllowed += 1;
        else if (outcome === 'delay') tally.toDelayed += 1;
      }
    }
  }

  /** Gives every slotted limiter the merger's key index as it is now (see `slotted`). */
  private giveKeyIndex(): void {
    const index = this.merger.keyIndex;
    for (let j = 0; j < this.limiters.length; j += 1) {
      if (this.slotted[j]) (this.limiters[j] as Limiter).useKeyIndex(index);
    }
    this.slotRoom = index.size;
  }

  /** The overview bin of virtual time `v`, coarsening the bins (×2) when there would be too many. */
  private binOf(v: number): number {
    let b = Math.floor(v / this.binMs);
    while (b >= OVERVIEW_MAX_BINS) {
      const half = Math.ceil(this.bins / 2);
      for (let i = 0; i < half; i += 1) {
        this.binReq[i] = (this.binReq[2 * i] as number) + (this.binReq[2 * i + 1] ?? 0);
        this.binRej[i] = (this.binRej[2 * i] as number) + (this.binRej[2 * i + 1] ?? 0);
      }
      this.binReq.fill(0, half);
      this.binRej.fill(0, half);
      this.bins = half;
      this.binMs *= 2;
      b = Math.floor(v / this.binMs);
    }
    if (b >= this.binReq.length) {
      const n = Math.min(OVERVIEW_MAX_BINS, Math.max(b + 1, this.binReq.length * 2));
      const r = new Uint32Array(n);
      r.set(this.binReq);
      this.binReq = r;
      const j = new Uint32Array(n);
      j.set(this.binRej);
      this.binRej = j;
    }
    if (b >= this.bins) this.bins = b + 1;
    return b;
  }

  /** The result, given the report the read ended with (TraceStream.finishReport, or the merger's). */
  finish(report: ParseReport): StreamResult {
    if (this.recorder !== null) {
      try {
        this.recorder.flush();
      } catch (e) {
        this.recorder = null;
        this.recordError = e instanceof Error ? e.message : String(e);
      }
    }
    const k = this.perKey;
    const keys = this.merger.keys;
    const row = (id: number): StreamKey => ({
      key: keys[id] as string,
      requests: k.requests[id] as number,
      peakPerSecond: k.peak[id] as number,
      rejected: k.rejected[id] as number,
    });
    const emptyName = emptyKeyName(this.spec);
    const emptyId = emptyName === null ? -1 : keys.indexOf(emptyName);
    const ids = Array.from({ length: keys.length }, (_, i) => i).filter((i) => i !== emptyId);
    const by = (col: Float64Array) => (a: number, b: number) =>
      (col[b] as number) - (col[a] as number) || a - b;
    const top = ids.slice().sort(by(k.requests)).slice(0, STREAM_TOP_KEYS).map(row);
    const topRejected =
      this.limiters.length === 0
        ? []
        : ids
            .filter((i) => (k.rejected[i] as number) > 0)
            .sort(by(k.rejected))
            .slice(0, STREAM_TOP_KEYS)
            .map(row);
    return {
      ...this.figures(),
      report,
      exact: this.outside === 0,
      overview: {
        binMs: this.binMs,
        requests: this.binReq.slice(0, this.bins),
        rejected: this.binRej.slice(0, this.bins),
      },
      top,
      topRejected,
      empty: emptyId < 0 ? null : { ...row(emptyId), withAddress: this.addressed },
    };
  }
}
