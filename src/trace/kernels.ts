/**
 * Sweep kernels: one tight loop per algorithm, over a trace held as typed arrays (whole-ms times,
 * ascending; integer key ids) with each key's limiter state in typed arrays indexed by key id.
 * Long file on purpose: the eight kernels belong together (one shape, one sink, one set of
 * preconditions), and each is a line-by-line transcription of the `decideAt` in
 * src/core/algorithms/<name>.ts it stands for, which carries the source citations (nginx
 * ngx_http_limit_req_module.c, Envoy token_bucket_impl.cc, redis-cell src/cell/mod.rs, HAProxy 2.6
 * freq_ctr.h, Cloudflare's sliding-window counter, express-rate-limit and rate-limiter-flexible's
 * anchored window, Kong's and envoyproxy/ratelimit's calendar windows).
 *
 * Exactness. Each kernel makes the decision core's limiter makes for every request, given two
 * facts the caller checks (src/trace/fastSweep.ts `prepareSweep`):
 * - times never decrease, so every "the clock went backwards" branch of core (t = max(last, now))
 *   reduces to t = now, and the times are ≥ 0 whole ms below 2^31;
 * - a limiter's decisions depend on a key only through its identity (core keeps a Map from key to
 *   state), so a key id stands for its string.
 * The arithmetic is core's, expression for expression (the same products and divisions in the same
 * order), so even where a float product is inexact the result is the same double.
 * tests/trace/kernels.test.ts checks every kernel against core on random traces and configs.
 *
 * A streamed log is decided chunk by chunk (src/trace/streamSweep.ts): with `io.state` each kernel
 * keeps its per-key arrays between runs, so the chunks together decide as one run over the whole.
 *
 * What a kernel records: admitted requests' times (ascending, they are arrival times), and for
 * delayed requests the delay and the release time; the rejected count, overall and for keys below
 * the p99. src/trace/fastSweep.ts turns that into a CellResult as sweepCell does.
 */
import { CALENDAR_UNITS, NEVER_MS, ceilDiv, floorDiv, periodOf, waitFits } from '../core';
import type {
  AlgorithmConfig,
  AnchoredWindowConfig,
  CalendarUnit,
  CalendarWindowsConfig,
  FixedWindowConfig,
  GcraConfig,
  LeakyBucketConfig,
  SlidingLogConfig,
  SlidingWindowCounterConfig,
  TokenBucketConfig,
} from '../core';

/** The trace and the buffers a kernel writes, allocated once per sweep and reused by every cell. */
export interface KernelInput {
  /** Whole ms since the first request, ascending. */
  timeMs: Int32Array;
  keyId: Uint32Array;
  keyCount: number;
  /** 1 for a key whose volume is at most the p99 of key volumes (belowP99). */
  below: Uint8Array;
  /** For request i, the index of the next request of the same key, or −1 (sliding log). */
  nextSameKey: Int32Array;
  /** Scratch: admitted times (n). */
  adm: Float64Array;
  /** Scratch: delays and release times of delayed requests (grown on demand). */
  del: Float64Array;
  rel: Float64Array;
  /** Scratch per request (sliding log: 1 when the request is in its key's log). */
  flag: Uint8Array;
  /**
   * Optional per-request outcome (0 admit, 1 delay, 2 reject) and delay, filled when present
   * (the dry run uses these; the sweep does not).
   */
  outcome?: Uint8Array | undefined;
  delayOut?: Float64Array | undefined;
  /**
   * Per-key state carried from one run to the next, for a trace decided chunk by chunk (a streamed
   * log: each run's `timeMs` is the next chunk, times still ascending across chunks, and `keyCount`
   * may grow). Absent, each run starts from fresh state (a held trace, decided in one run).
   */
  state?: KernelState | undefined;
  /**
   * Each key id's requests over the whole trace, known before the first run (a streamed log's
   * statistics pass counts them): a chunked sliding log makes each key's ring once at its final
   * size, min(limit, requests), in one arena made once at the sum (`slidingLogRingWords`). Absent,
   * or short of a key, rings and arena grow on demand. Other kernels ignore it.
   */
  keyRequests?: ArrayLike<number> | undefined;
  /**
   * The epoch ms that time 0 stands for (0 when absent): the windows of the clock-aligned
   * algorithms (fixed window, the aligned sliding-window counter, calendar windows) are placed at
   * ⌊(t + originMs) / W⌋ and at the calendar period holding originMs + t, as the real systems place
   * them on the wall clock (Redis keys ⌊now / W⌋, Kong kong/tools/timestamp.lua get_timestamps,
   * envoyproxy/ratelimit src/limiter/cache_key.go). The other algorithms depend on time differences
   * only and ignore it. A whole number of ms.
   */
  originMs?: number | undefined;
}

/** What a kernel keeps between runs: its per-key arrays by name, and its few scalars. */
export interface KernelState {
  arrays: Map<string, Float64Array | Int32Array | Uint8Array>;
  scalars: Map<string, number>;
  /** Where the state's new arrays come from when given (arrays a finished run let go). */
  recycler?: ArrayRecycler | undefined;
}

/** A fresh state for a chunked run; its arrays from `recycler` when given. */
export function kernelState(recycler?: ArrayRecycler): KernelState {
  return { arrays: new Map(), scalars: new Map(), recycler };
}

type PerKeyArray = Float64Array | Int32Array | Uint8Array;

/**
 * Typed arrays a finished chunked run let go, handed to the next run's kernels in place of new
 * ones. A streamed sweep decides its cells in passes one after another: each pass's per-key arrays
 * are the same sizes as the last one's, and new arrays would sit beside the last pass's until a
 * collection finds them (tens of MB outside the heap that no collection is pressed to free soon).
 * A kernel sets every slot of an array it takes (`perKey` fills it; the ring arena is written
 * before it is read), so what an array held before never shows.
 */
export class ArrayRecycler {
  private readonly free = new Map<unknown, PerKeyArray[]>();

  /** Lets `arrays` go to the next run. */
  put(arrays: Iterable<PerKeyArray>): void {
    for (const a of arrays) {
      const list = this.free.get(a.constructor);
      if (list === undefined) this.free.set(a.constructor, [a]);
      else list.push(a);
    }
  }

  /** The shortest array let go that is of `make`'s type and holds at least `n`, or a new one. */
  take<T extends PerKeyArray>(make: (n: number) => T, n: number): T {
    const empty = make(0);
    if (n === 0) return empty;
    const list = this.free.get(empty.constructor);
    let best = -1;
    if (list !== undefined) {
      for (let i = 0; i < list.length; i += 1) {
        const len = (list[i] as PerKeyArray).length;
        if (len >= n && (best < 0 || len < (list[best] as PerKeyArray).length)) best = i;
      }
    }
    if (list === undefined || best < 0) return make(n);
    const a = list[best] as T;
    list[best] = list[list.length - 1] as PerKeyArray;
    list.pop();
    return a;
  }

  /** Forgets the arrays no run took, so a collection can free them. */
  drop(): void {
    this.free.clear();
  }

  /** How many arrays wait to be taken (for tests). */
  get waiting(): number {
    let n = 0;
    for (const list of this.free.values()) n += list.length;
    return n;
  }
}

/** A new array from `make`, or one the state's recycler holds. */
function made<T extends PerKeyArray>(state: KernelState, make: (n: number) => T, n: number): T {
  return state.recycler === undefined ? make(n) : state.recycler.take(make, n);
}

/**
 * The kernel's per-key array `name` with room for io.keyCount keys (`width` numbers a key), new
 * slots set to `fill`: fresh without io.state; else the one the last run left, grown when keys
 * appeared since.
 */
function perKey<T extends PerKeyArray>(
  io: KernelInput,
  name: string,
  make: (n: number) => T,
  fill: number,
  width = 1,
): T {
  const n = io.keyCount * width;
  if (io.state === undefined) return make(n).fill(fill) as T;
  const old = io.state.arrays.get(name) as T | undefined;
  if (old !== undefined && old.length >= n) return old;
  const a = made(io.state, make, Math.max(n, (old?.length ?? 0) * 2)).fill(fill) as T;
  if (old !== undefined) a.set(old);
  io.state.arrays.set(name, a);
  return a;
}

const f64 = (n: number) => new Float64Array(n);
const i32 = (n: number) => new Int32Array(n);
const u8 = (n: number) => new Uint8Array(n);

/** What one kernel run found. */
export interface KernelTally {
  admitted: number;
  delayed: number;
  rejected: number;
  rejectedBelow: number;
}

/** Delayed requests are recorded here; grows the scratch arrays when needed. */
function pushDelay(io: KernelInput, k: number, delayMs: number, releaseMs: number): void {
  if (k >= io.del.length) {
    const size = Math.min(io.timeMs.length, Math.max(1024, io.del.length * 2));
    const d = new Float64Array(size);
    d.set(io.del);
    io.del = d;
    const r = new Float64Array(size);
    r.set(io.rel);
    io.rel = r;
  }
  io.del[k] = delayMs;
  io.rel[k] = releaseMs;
}

/** fixed-window (src/core/algorithms/fixed-window.ts). */
function fixedWindow(io: KernelInput, c: FixedWindowConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { limit, windowMs } = c;
  const origin = io.originMs ?? 0;
  const win = perKey(io, 'win', f64, Number.NEGATIVE_INFINITY); // −∞: never seen
  const count = perKey(io, 'count', i32, 0);
  const out = io.outcome;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    // Exact: t + origin and windowMs are whole and below 2^53.
    const w = Math.floor((t + origin) / windowMs);
    if (w > (win[k] as number)) {
      win[k] = w;
      count[k] = 0;
    }
    if ((count[k] as number) < limit) {
      count[k] = (count[k] as number) + 1;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else {
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/**
 * sliding-log (src/core/algorithms/sliding-log.ts). A key's log is the subsequence of its requests
 * that were logged (admitted, or every one with logRejected); `head` walks the key's requests
 * (through nextSameKey) past the ones older than the window and past the ones never logged (they
 * do not count), as core's `head` walks the log, and `live` counts the logged ones it has not
 * passed: the entries core counts. So when the log is full `head` is core's oldest counted entry,
 * which Caddy's last-millisecond pass (lastMsPasses) reads: the request passes, unlogged, when
 * that entry is exactly windowMs − 1 old (core's `t − oldest === windowMs − 1`).
 */
function slidingLog(io: KernelInput, c: SlidingLogConfig): KernelTally {
  const { timeMs, keyId, below, adm, nextSameKey, flag } = io;
  const { limit, windowMs } = c;
  const logRejected = c.logRejected === true;
  // caddy-ratelimit's pass in the last millisecond (src/systems/caddy.ts); core's validation keeps
  // it from going with logRejected.
  const lastMs = c.lastMsPasses === true ? windowMs - 1 : -1;
  const head = new Int32Array(io.keyCount).fill(-1);
  const live = new Int32Array(io.keyCount);
  const out = io.outcome;
  flag.fill(0);
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    let h = head[k] as number;
    if (h < 0) h = i;
    let n = live[k] as number;
    while (h !== i && (flag[h] === 0 || t - (timeMs[h] as number) >= windowMs)) {
      n -= flag[h] as number;
      h = nextSameKey[h] as number;
    }
    head[k] = h;
    if (n < limit) {
      flag[i] = 1;
      live[k] = n + 1;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else if (t - (timeMs[h] as number) === lastMs) {
      // Full (n ≥ limit ≥ 1, so h is a logged request before i): its oldest entry is in its last
      // millisecond. Passes without being logged (flag[i] stays 0).
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else {
      if (logRejected) {
        flag[i] = 1;
        n += 1;
      }
      live[k] = n;
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/** The chunked sliding log's arena of ring entries, by name in KernelState (not per key). */
export const RING_ARENA = 'ringArena';
/** A ring's first size when its key's requests are not known (then it doubles up to the limit). */
const RING_START = 4;

/** Ring entries the chunked sliding log's arena is made with: Σ over keys of min(limit, requests). */
export function slidingLogRingWords(limit: number, keyRequests: ArrayLike<number>): number {
  let words = 0;
  for (let k = 0; k < keyRequests.length; k += 1) {
    const v = keyRequests[k] as number;
    words += v < limit ? v : limit;
  }
  return words;
}

/**
 * Ring entries one key's ring takes over its life when its requests are not known: its sizes
 * min(limit, RING_START), then doubling up to the limit, each left behind in the arena when it
 * grows. The most a key allocates without `keyRequests`.
 */
export function slidingLogGrownWords(limit: number): number {
  let words = 0;
  let cap = Math.min(limit, RING_START);
  for (;;) {
    words += cap;
    if (cap >= limit) return words;
    cap = Math.min(limit, cap * 2);
  }
}

/**
 * sliding-log decided chunk by chunk (src/core/algorithms/sliding-log.ts), keeping per key only a
 * ring of the newest logged times.
 *
 * Why a ring of `limit` entries decides as core's whole log does. Times ascend, so core's t is the
 * request's own time and its log is ascending. Core drops entries with t − e ≥ windowMs from the
 * front; the ones left are exactly the log's entries with e > t − windowMs (an ascending log: the
 * expired ones are a prefix), and it admits iff there are fewer than `limit` of them. If the log
 * holds fewer than `limit` entries, fewer than `limit` are left: admit. Else at least `limit` are
 * left iff the limit-th newest entry e_L (the oldest of the newest `limit`) has t − e_L <
 * windowMs, since every newer entry is ≥ e_L. So the decision reads only the newest `limit` logged
 * times (expired or not). And the newest `limit` after the request are the newest `limit` before
 * it plus t when t is logged (admitted; or rejected with logRejected, when core logs every
 * request): each step keeps what the next needs. Expiry only removes entries older than every
 * counted one, so keeping expired entries in the ring changes nothing: a ring entry that expired
 * is the oldest of the ring and, when the ring is full, it is e_L and says "admit" as core does.
 * Caddy's last-millisecond pass (lastMsPasses; never with logRejected, so the log holds at most
 * `limit` entries and only admitted ones) reads core's oldest counted entry when `limit` of them
 * count: then every ring entry counts (e_L does, and the rest are newer), the ring holds exactly
 * core's counted entries, and its oldest, e_L, is core's `times[head]`. The request passes iff
 * t − e_L = windowMs − 1 and is not logged: the ring is left as it is, as core leaves its log.
 * tests/trace/kernels-ring.test.ts checks it against core on random traces, limits 1–50, with
 * logRejected on and off, lastMsPasses on and off, in chunks that split a key's window.
 *
 * Layout: one Int32Array arena of whole-ms times, and per key its ring's offset in it (−1: none
 * yet), its size, its oldest entry's index (moves only once the ring is full) and its entries. A
 * ring is made at the key's first request: min(limit, requests) when `keyRequests` says (it never
 * grows then), else min(limit, RING_START), doubling up to `limit` when full (moved to the arena's
 * end). The arena is made once at `slidingLogRingWords` with `keyRequests`, else doubles on demand.
 */
function slidingLogRing(io: KernelInput, c: SlidingLogConfig, state: KernelState): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { limit, windowMs } = c;
  const logRejected = c.logRejected === true;
  const lastMs = c.lastMsPasses === true ? windowMs - 1 : -1;
  const at = perKey(io, 'ringAt', i32, -1);
  const cap = perKey(io, 'ringCap', i32, 0);
  const head = perKey(io, 'ringHead', i32, 0);
  const len = perKey(io, 'ringLen', i32, 0);
  const volumes = io.keyRequests;
  let ring: Int32Array;
  const kept = state.arrays.get(RING_ARENA) as Int32Array | undefined;
  if (kept === undefined) {
    ring = made(state, i32, volumes === undefined ? 0 : slidingLogRingWords(limit, volumes));
    state.arrays.set(RING_ARENA, ring);
  } else {
    ring = kept;
  }
  let top = state.scalars.get('ringTop') ?? 0;
  const out = io.outcome;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    const n = len[k] as number;
    if (n === limit) {
      // Full (its size is then `limit`): the oldest entry is the limit-th newest logged time.
      const h = head[k] as number;
      const slot = (at[k] as number) + h;
      const age = t - (ring[slot] as number);
      if (age === lastMs) {
        // Caddy: the oldest counted entry in its last millisecond; passes, not logged.
        adm[nAdm++] = t;
        if (out !== undefined) out[i] = 0;
        continue;
      }
      if (age < windowMs) {
        if (logRejected) {
          ring[slot] = t;
          head[k] = h + 1 === limit ? 0 : h + 1;
        }
        rej += 1;
        rejBelow += below[k] as number;
        if (out !== undefined) out[i] = 2;
        continue;
      }
      ring[slot] = t;
      head[k] = h + 1 === limit ? 0 : h + 1;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
      continue;
    }
    // Fewer than `limit` logged: admitted. Until full the entries sit in order from the offset.
    const size = cap[k] as number;
    if (n === size) {
      const known = volumes !== undefined && k < volumes.length ? (volumes[k] as number) : 0;
      let grown: number;
      if (size === 0 && known > 0) grown = Math.min(limit, known);
      else grown = Math.min(limit, Math.max(RING_START, size * 2));
      if (top + grown > ring.length) {
        const bigger: Int32Array = new Int32Array(Math.max(top + grown, ring.length * 2));
        bigger.set(ring.subarray(0, top));
        ring = bigger;
        state.arrays.set(RING_ARENA, ring);
      }
      const from = at[k] as number;
      if (n > 0) ring.copyWithin(top, from, from + n);
      at[k] = top;
      cap[k] = grown;
      top += grown;
    }
    ring[(at[k] as number) + n] = t;
    len[k] = n + 1;
    adm[nAdm++] = t;
    if (out !== undefined) out[i] = 0;
  }
  state.scalars.set('ringTop', top);
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/** sliding-window-counter, aligned (src/core/algorithms/sliding-window-counter.ts). */
function slidingWindowCounter(io: KernelInput, c: SlidingWindowCounterConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { limit, windowMs: W } = c;
  const origin = io.originMs ?? 0;
  // −∞: never seen, neither this window nor the one before it (−∞ + 1 is −∞).
  const win = perKey(io, 'win', f64, Number.NEGATIVE_INFINITY);
  const prev = perKey(io, 'prev', f64, 0);
  const cur = perKey(io, 'cur', f64, 0);
  const out = io.outcome;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    const at = t + origin; // the clock's ms, whole and below 2^53: the arithmetic stays exact
    const window = Math.floor(at / W);
    const sw = win[k] as number;
    let p = 0;
    let cc = 0;
    if (window === sw) {
      p = prev[k] as number;
      cc = cur[k] as number;
    } else if (window === sw + 1) {
      p = cur[k] as number;
    }
    const e = at - window * W;
    const budget = limit * W - p * (W - e);
    if (cc * W < budget) {
      win[k] = window;
      prev[k] = p;
      cur[k] = cc + 1;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else {
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/** x with its lowest bit cleared, for whole x ≥ 0 (entry-counter.ts `even`). */
const even = (x: number): number => x - (x % 2);

/** sliding-window-counter anchored per entry, HAProxy (src/core/algorithms/entry-counter.ts). */
function entryCounter(io: KernelInput, c: SlidingWindowCounterConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { limit, windowMs: W } = c;
  const expireMs = c.expireMs;
  const seen = perKey(io, 'seen', u8, 0);
  const tick = perKey(io, 'tick', f64, 0);
  const prev = perKey(io, 'prev', f64, 0);
  const cur = perKey(io, 'cur', f64, 0);
  const last = perKey(io, 'last', f64, 0);
  const out = io.outcome;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    let tk: number;
    let p: number;
    let cc: number;
    if (seen[k] === 0 || (expireMs !== undefined && t - (last[k] as number) >= expireMs)) {
      tk = even(t);
      p = 0;
      cc = 0;
    } else if (t - (tick[k] as number) < W) {
      tk = tick[k] as number;
      p = prev[k] as number;
      cc = cur[k] as number;
    } else {
      const next = (tick[k] as number) + W;
      if (t - next >= W) {
        tk = even(t);
        p = 0;
        cc = 0;
      } else {
        tk = even(next);
        p = cur[k] as number;
        cc = 0;
      }
    }
    cc += 1; // counted before the deny rule reads it
    seen[k] = 1;
    tick[k] = tk;
    prev[k] = p;
    cur[k] = cc;
    last[k] = t;
    const rate = cc + floorDiv(p * (tk + W - t), W);
    if (rate <= limit) {
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else {
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/**
 * token-bucket, both refills, maxDelayMs and idleResetS (src/core/algorithms/token-bucket.ts).
 * With interval refill a key's `last` holds the period of its last take, ⌊last / fillIntervalMs⌋
 * (all core reads of it), so each request divides once.
 */
function tokenBucket(io: KernelInput, c: TokenBucketConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { tokensPerFill, fillIntervalMs } = c;
  const interval = c.refill === 'interval';
  const maxDelayNs = c.maxDelayNs ?? (c.maxDelayMs ?? 0) * 1_000_000;
  const unit = interval ? 1 : fillIntervalMs;
  const full = c.maxTokens * unit;
  const idleResetS = c.idleResetS ?? 0;
  const seen = perKey(io, 'seen', u8, 0);
  const level = perKey(io, 'level', f64, 0);
  const last = perKey(io, 'last', f64, 0);
  const touched = perKey(io, 'touched', f64, 0);
  const out = io.outcome;
  const dOut = io.delayOut;
  let nAdm = 0;
  let nDel = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    const period = interval ? floorDiv(t, fillIntervalMs) : 0;
    let s = seen[k] as number;
    if (
      s === 1 &&
      idleResetS > 0 &&
      Math.floor(t / 1000) >= Math.floor((touched[k] as number) / 1000) + idleResetS
    ) {
      s = 0;
      seen[k] = 0;
    }
    let lv = full;
    if (s === 1) {
      const l0 = level[k] as number;
      if (interval) {
        const fills = period - (last[k] as number);
        lv = fills > 0 ? Math.min(full, l0 + fills * tokensPerFill) : l0;
      } else {
        lv = Math.min(full, l0 + (t - (last[k] as number)) * tokensPerFill);
      }
    }
    if (lv >= unit) {
      level[k] = lv - unit;
      last[k] = interval ? period : t;
      touched[k] = s === 1 ? Math.max(touched[k] as number, t) : t;
      seen[k] = 1;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
      continue;
    }
    // No token (only a seen key gets here: a fresh one starts full). When it comes matters only
    // where a wait is allowed (Spring's config, for one, rejects at once).
    if (maxDelayNs <= 0) {
      if (idleResetS > 0) touched[k] = Math.max(touched[k] as number, t);
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
      continue;
    }
    const tokenAt = interval
      ? (period + ceilDiv(unit - lv, tokensPerFill)) * fillIntervalMs
      : t + ceilDiv(unit - lv, tokensPerFill);
    if (waitFits(interval ? tokenAt - t : unit - lv, interval ? 1 : tokensPerFill, maxDelayNs)) {
      level[k] = lv - unit;
      last[k] = interval ? period : t;
      touched[k] = Math.max(touched[k] as number, t);
      const d = tokenAt - t;
      pushDelay(io, nDel++, d, t + d);
      if (out !== undefined) out[i] = 1;
      if (dOut !== undefined) dOut[i] = d;
      continue;
    }
    if (idleResetS > 0) touched[k] = Math.max(touched[k] as number, t);
    rej += 1;
    rejBelow += below[k] as number;
    if (out !== undefined) out[i] = 2;
  }
  return { admitted: nAdm, delayed: nDel, rejected: rej, rejectedBelow: rejBelow };
}

/** ngx_http_limit_req_expire looks only at nodes untouched this long (leaky-bucket.ts). */
const EXPIRE_AFTER_MS = 60_000;

/**
 * leaky-bucket, nginx limit_req (src/core/algorithms/leaky-bucket.ts), with its LRU queue of nodes
 * (links in typed arrays: `newer` towards the head) and the expiry of up to two drained, idle
 * nodes from the tail whenever a node is created.
 */
function leakyBucket(io: KernelInput, c: LeakyBucketConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const rateMilli = Math.floor((c.rate * 1000) / (c.rateUnit === 'r/m' ? 60 : 1));
  const burstMilli = c.burst * 1000;
  const delayMilli = c.delay === 'nodelay' ? Number.POSITIVE_INFINITY : c.delay * 1000;
  const seen = perKey(io, 'seen', u8, 0);
  const excess = perKey(io, 'excess', f64, 0);
  const last = perKey(io, 'last', f64, 0);
  const newer = perKey(io, 'newer', i32, -1);
  const older = perKey(io, 'older', i32, -1);
  let head = io.state?.scalars.get('head') ?? -1;
  let tail = io.state?.scalars.get('tail') ?? -1;
  const out = io.outcome;
  const dOut = io.delayOut;
  let nAdm = 0;
  let nDel = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    if (seen[k] === 0) {
      // expire(now): up to two nodes from the tail, stopping at the first that may not go.
      for (let m = 0; m < 2 && tail >= 0; m += 1) {
        const ms = Math.abs(t - (last[tail] as number));
        if (ms < EXPIRE_AFTER_MS) break;
        if ((excess[tail] as number) - Math.floor((rateMilli * ms) / 1000) > 0) break;
        const gone = tail;
        const up = newer[gone] as number;
        if (up >= 0) older[up] = -1;
        else head = -1;
        tail = up;
        newer[gone] = -1;
        older[gone] = -1;
        seen[gone] = 0;
      }
      seen[k] = 1;
      excess[k] = 0;
      last[k] = t;
      older[k] = head;
      newer[k] = -1;
      if (head >= 0) newer[head] = k;
      head = k;
      if (tail < 0) tail = k;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
      continue;
    }
    if (k !== head) {
      // To the head of the queue, on lookup, before the burst check.
      const up = newer[k] as number;
      const down = older[k] as number;
      if (up >= 0) older[up] = down;
      if (down >= 0) newer[down] = up;
      else tail = up;
      older[k] = head;
      newer[k] = -1;
      newer[head] = k;
      head = k;
    }
    const ms = t - (last[k] as number); // ≥ 0: times never decrease
    const drained = (excess[k] as number) - Math.floor((rateMilli * ms) / 1000);
    const ex = drained + 1000 > 0 ? drained + 1000 : 0;
    if (ex > burstMilli) {
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
      continue;
    }
    excess[k] = ex;
    if (ms !== 0) last[k] = t;
    const delayMs = ex <= delayMilli ? 0 : Math.floor(((ex - delayMilli) * 1000) / rateMilli);
    if (delayMs === 0) {
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else {
      pushDelay(io, nDel++, delayMs, t + delayMs);
      if (out !== undefined) out[i] = 1;
      if (dOut !== undefined) dOut[i] = delayMs;
    }
  }
  io.state?.scalars.set('head', head);
  io.state?.scalars.set('tail', tail);
  return { admitted: nAdm, delayed: nDel, rejected: rej, rejectedBelow: rejBelow };
}

/** gcra, redis-cell (src/core/algorithms/gcra.ts): tat = ms + frac / count. */
function gcra(io: KernelInput, c: GcraConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { count } = c;
  const tauUnits = c.periodMs * (c.burst + 1);
  const tWhole = Math.floor(c.periodMs / count);
  const tFrac = c.periodMs % count;
  const tauCeilMs = ceilDiv(tauUnits, count);
  const seen = perKey(io, 'seen', u8, 0);
  const tatMs = perKey(io, 'tatMs', f64, 0);
  const tatFrac = perKey(io, 'tatFrac', f64, 0);
  const out = io.outcome;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    let ms = t;
    let frac = 0;
    if (seen[k] === 1) {
      const sm = tatMs[k] as number;
      const sf = tatFrac[k] as number;
      if (sm > t || (sm === t && sf > 0)) {
        ms = sm;
        frac = sf;
      }
    }
    frac += tFrac;
    ms += tWhole;
    if (frac >= count) {
      frac -= count;
      ms += 1;
    }
    if (ms - t <= tauCeilMs + 1 && (ms - t) * count + frac <= tauUnits) {
      seen[k] = 1;
      tatMs[k] = ms;
      tatFrac[k] = frac;
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
    } else {
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/**
 * anchored-window, express-rate-limit and rate-limiter-flexible (src/core/algorithms/
 * anchored-window.ts). `reset` −∞ stands for a key never seen: core makes a new record then, as it
 * does for one whose window has ended, so one test covers both. windowMs 0 (never expires) makes
 * the reset +∞, ended only by a block.
 */
function anchoredWindow(io: KernelInput, c: AnchoredWindowConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const { limit, windowMs } = c;
  const countRejected = c.countRejected === true;
  const blockMs = c.blockMs ?? 0;
  const execEvenly = c.execEvenly === true;
  const minDelayMs = c.execEvenlyMinDelayMs ?? Math.ceil(windowMs / limit);
  const cost = c.cost ?? 1;
  const reset = perKey(io, 'reset', f64, Number.NEGATIVE_INFINITY);
  const count = perKey(io, 'count', f64, 0);
  const blocked = perKey(io, 'blocked', u8, 0);
  const out = io.outcome;
  const dOut = io.delayOut;
  let nAdm = 0;
  let nDel = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const t = timeMs[i] as number;
    const k = keyId[i] as number;
    let first = false;
    if ((reset[k] as number) <= t) {
      reset[k] = windowMs === 0 ? Number.POSITIVE_INFINITY : t + windowMs;
      count[k] = 0;
      blocked[k] = 0;
      first = true;
    }
    const n = count[k] as number;
    if (n + cost <= limit) {
      count[k] = n + cost;
      if (execEvenly && !first) {
        const untilReset = Math.min((reset[k] as number) - t, NEVER_MS);
        if (untilReset !== NEVER_MS) {
          let d = Math.ceil(untilReset / (limit - (n + cost) + 2));
          if (d < minDelayMs) d = (n + cost) * minDelayMs;
          if (d > 0) {
            pushDelay(io, nDel++, d, t + d);
            if (out !== undefined) out[i] = 1;
            if (dOut !== undefined) dOut[i] = d;
            continue;
          }
        }
      }
      adm[nAdm++] = t;
      if (out !== undefined) out[i] = 0;
      continue;
    }
    if (countRejected) count[k] = n + cost;
    if (blockMs > 0 && blocked[k] === 0) {
      blocked[k] = 1;
      reset[k] = t + blockMs;
    }
    rej += 1;
    rejBelow += below[k] as number;
    if (out !== undefined) out[i] = 2;
  }
  return { admitted: nAdm, delayed: nDel, rejected: rej, rejectedBelow: rejBelow };
}

/** The largest count a calendar counter holds (Int32); above every limit core accepts. */
const COUNT_CAP = 0x7fffffff;

/**
 * calendar-windows, Kong and envoyproxy/ratelimit (src/core/algorithms/calendar-windows.ts).
 * Times ascend, so each unit's current period is one for every key, worked out again only when a
 * request reaches its end; the periods are numbered in the order they come (`seq`, kept between
 * runs with the period's end). Per key and unit, side by side in one Int32Array (one cache line a
 * request, 8 bytes a unit where three doubles took 24): the number of the period its counter
 * belongs to (−1: none) and the count. Core's test "start is this period's and t is before the
 * counter's end" reads here as "the number is the current period's": t is then before the period's
 * end, and before the end Kong's counter TTL sets (counterTtl: min(period end, made + the unit's
 * nominal length)) too, since that TTL never ends a counter here. For a second to a day it is the
 * period's own length, and a counter is made within its period; for a month (30 d) or a year
 * (365 d) it is longer than every span the kernels take (times below 2^31 ms, under 25 days).
 * A count stops at COUNT_CAP: every limit is below it (MAX_CALENDAR_LIMIT), so a capped count is
 * over every limit as the true one is, and the decisions are the same.
 */
function calendarWindows(io: KernelInput, c: CalendarWindowsConfig): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const align = c.align ?? 'calendar';
  const countAll = c.countRejected === true || c.shadowMode === true;
  const shadow = c.shadowMode === true;
  const units: CalendarUnit[] = CALENDAR_UNITS.filter((u) => c[u] !== undefined);
  const m = units.length;
  const limits = Float64Array.from(units, (u) => c[u] as number);
  const origin = io.originMs ?? 0;
  // Per unit: [period number, count].
  const width = m * 2;
  const cal = perKey(io, 'calendar', i32, -1, width);
  // The current period of each unit: its end (none yet: −∞) and its number.
  const pEnd = new Float64Array(m);
  const seq = new Int32Array(m);
  const scalars = io.state?.scalars;
  for (let u = 0; u < m; u += 1) {
    pEnd[u] = scalars?.get(`end${u}`) ?? Number.NEGATIVE_INFINITY;
    seq[u] = scalars?.get(`seq${u}`) ?? -1;
  }
  const out = io.outcome;
  if (m <= 2 && out === undefined) {
    const tally = calendarUpToTwo(io, units, limits, align, countAll, shadow, cal, pEnd, seq);
    for (let u = 0; u < m; u += 1) {
      scalars?.set(`end${u}`, pEnd[u] as number);
      scalars?.set(`seq${u}`, seq[u] as number);
    }
    return tally;
  }
  const live = new Float64Array(m);
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const vt = timeMs[i] as number;
    // Periods on the clock: the epoch ms, whole and below 2^53 (exact).
    const t = vt + origin;
    const k = keyId[i] as number;
    const at = k * width;
    let over = false;
    for (let u = 0; u < m; u += 1) {
      if (t >= (pEnd[u] as number)) {
        pEnd[u] = periodOf(units[u] as CalendarUnit, t, align)[1];
        seq[u] = (seq[u] as number) + 1;
      }
      const j = at + 2 * u;
      const n = cal[j] === seq[u] ? (cal[j + 1] as number) : 0;
      live[u] = n;
      if (n >= (limits[u] as number)) over = true;
    }
    if (!over || countAll) {
      for (let u = 0; u < m; u += 1) {
        const j = at + 2 * u;
        const n = live[u] as number;
        if (n > 0) {
          cal[j + 1] = n < COUNT_CAP ? n + 1 : n;
          continue;
        }
        cal[j] = seq[u] as number;
        cal[j + 1] = 1;
      }
    }
    if (!over || shadow) {
      adm[nAdm++] = vt;
      if (out !== undefined) out[i] = 0;
    } else {
      rej += 1;
      rejBelow += below[k] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  for (let u = 0; u < m; u += 1) {
    scalars?.set(`end${u}`, pEnd[u] as number);
    scalars?.set(`seq${u}`, seq[u] as number);
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/**
 * `calendarWindows` for one or two units, recording no outcomes (the sweep's case: Kong's and
 * Envoy's grids set one or two): the same steps with each unit's period end, period number, limit
 * and counter slots in locals instead of a loop over the units, which V8 compiles to a tighter
 * loop. A single unit reads as two with the second never over (its limit +∞) and never counted.
 * `pEnd` and `seq` come in with the units' current periods and go out updated.
 */
function calendarUpToTwo(
  io: KernelInput,
  units: readonly CalendarUnit[],
  limits: Float64Array,
  align: 'calendar' | 'epoch',
  countAll: boolean,
  shadow: boolean,
  cal: Int32Array,
  pEnd: Float64Array,
  seq: Int32Array,
): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const origin = io.originMs ?? 0;
  const two = units.length === 2;
  const width = two ? 4 : 2;
  const u0 = units[0] as CalendarUnit;
  const u1 = (two ? units[1] : units[0]) as CalendarUnit;
  const l0 = limits[0] as number;
  const l1 = two ? (limits[1] as number) : Number.POSITIVE_INFINITY;
  let e0 = pEnd[0] as number;
  let s0 = seq[0] as number;
  // With one unit the second's period never ends (+∞) and its count stays 0.
  let e1 = two ? (pEnd[1] as number) : Number.POSITIVE_INFINITY;
  let s1 = two ? (seq[1] as number) : 0;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    const vt = timeMs[i] as number;
    // Periods on the clock: the epoch ms, whole and below 2^53 (exact).
    const t = vt + origin;
    const k = keyId[i] as number;
    const at = k * width;
    if (t >= e0) {
      e0 = periodOf(u0, t, align)[1];
      s0 += 1;
    }
    if (t >= e1) {
      e1 = periodOf(u1, t, align)[1];
      s1 += 1;
    }
    const n0 = cal[at] === s0 ? (cal[at + 1] as number) : 0;
    const n1 = two && cal[at + 2] === s1 ? (cal[at + 3] as number) : 0;
    const over = n0 >= l0 || n1 >= l1;
    if (!over || countAll) {
      if (n0 > 0) {
        cal[at + 1] = n0 < COUNT_CAP ? n0 + 1 : n0;
      } else {
        cal[at] = s0;
        cal[at + 1] = 1;
      }
      if (two) {
        if (n1 > 0) {
          cal[at + 3] = n1 < COUNT_CAP ? n1 + 1 : n1;
        } else {
          cal[at + 2] = s1;
          cal[at + 3] = 1;
        }
      }
    }
    if (!over || shadow) {
      adm[nAdm++] = vt;
    } else {
      rej += 1;
      rejBelow += below[k] as number;
    }
  }
  pEnd[0] = e0;
  seq[0] = s0;
  if (two) {
    pEnd[1] = e1;
    seq[1] = s1;
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/**
 * One calendar unit's counters (at one alignment) as calendar-windows configs that count every
 * request (countRejected, or shadowMode) hold them: such a config increments its counters on
 * every request, whatever it decides, so each key's count in a unit's period is the same for every
 * such config, whatever its limits. A streamed sweep's cells of Envoy's service differ only in
 * their limits: one of these per unit, run once per chunk, gives every cell the counts its kernel
 * would keep, and `calendarCounted` decides a cell from them, with no per-key state of its own.
 * Per key, side by side in one Int32Array as `calendarWindows` keeps them: the number of the
 * period the counter belongs to (−1: none) and the count, capped at COUNT_CAP as there.
 */
export class CalendarCounter {
  private cal = new Int32Array(0);
  /** The current period's end (none yet: −∞) and its number, counted from 0 as they come. */
  private end = Number.NEGATIVE_INFINITY;
  private seq = -1;
  /** Per request of the last run: its key's count in the unit's period before the request. */
  private before = new Int32Array(0);

  constructor(
    readonly unit: CalendarUnit,
    readonly align: 'calendar' | 'epoch',
  ) {}

  /**
   * Counts the requests of a chunk (times ascending, as the kernels take them, and ascending from
   * the last chunk's) and returns each one's count before it, in its key's counter for the period
   * holding it: what `calendarWindows` reads as `n` for this unit. `originMs` as KernelInput's.
   */
  run(timeMs: Int32Array, keyId: Uint32Array, keyCount: number, originMs: number): Int32Array {
    const n = timeMs.length;
    if (this.cal.length < keyCount * 2) {
      const grown = new Int32Array(Math.max(keyCount * 2, this.cal.length * 2)).fill(-1);
      grown.set(this.cal);
      this.cal = grown;
    }
    if (this.before.length < n) this.before = new Int32Array(n);
    const { cal, before, unit, align } = this;
    let end = this.end;
    let seq = this.seq;
    for (let i = 0; i < n; i += 1) {
      // Periods on the clock: the epoch ms, whole and below 2^53 (exact).
      const t = (timeMs[i] as number) + originMs;
      if (t >= end) {
        end = periodOf(unit, t, align)[1];
        seq += 1;
      }
      const j = (keyId[i] as number) * 2;
      if (cal[j] === seq) {
        const c = cal[j + 1] as number;
        before[i] = c;
        cal[j + 1] = c < COUNT_CAP ? c + 1 : c;
      } else {
        before[i] = 0;
        cal[j] = seq;
        cal[j + 1] = 1;
      }
    }
    this.end = end;
    this.seq = seq;
    return before.subarray(0, n);
  }
}

/** The calendar units a config sets, shortest first (the order `calendarWindows` keeps). */
export function calendarUnitsOf(c: CalendarWindowsConfig): CalendarUnit[] {
  return CALENDAR_UNITS.filter((u) => c[u] !== undefined);
}

/** Whether a calendar-windows config counts every request (its counts do not depend on limits). */
export function countsEveryRequest(c: CalendarWindowsConfig): boolean {
  return c.countRejected === true || c.shadowMode === true;
}

/**
 * calendar-windows for a config that counts every request (`countsEveryRequest`), decided from the
 * counts `CalendarCounter` gives for this chunk, one array per unit the config sets in
 * `calendarUnitsOf` order: a request is over when any unit's count before it is at its limit or
 * above, as `calendarWindows` decides; admitted unless over, or always in shadow mode.
 */
export function calendarCounted(
  io: KernelInput,
  c: CalendarWindowsConfig,
  counts: readonly Int32Array[],
): KernelTally {
  const units = calendarUnitsOf(c);
  const m = units.length;
  if (counts.length !== m) throw new Error('calendarCounted: one count array per unit');
  const limits = units.map((u) => c[u] as number);
  const shadow = c.shadowMode === true;
  if (m <= 2 && io.outcome === undefined) {
    // Kong's and Envoy's grids set one or two units: the counts and limits as locals, a missing
    // second unit never over (its limit +∞).
    const c0 = counts[0] as Int32Array;
    const c1 = m > 1 ? (counts[1] as Int32Array) : c0;
    const l1 = m > 1 ? (limits[1] as number) : Number.POSITIVE_INFINITY;
    return countedTwo(io, c0, limits[0] as number, c1, l1, shadow);
  }
  const { timeMs, keyId, below, adm } = io;
  const out = io.outcome;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < timeMs.length; i += 1) {
    let over = false;
    for (let u = 0; u < m && !over; u += 1) {
      over = ((counts[u] as Int32Array)[i] as number) >= (limits[u] as number);
    }
    if (!over || shadow) {
      adm[nAdm++] = timeMs[i] as number;
      if (out !== undefined) out[i] = 0;
    } else {
      rej += 1;
      rejBelow += below[keyId[i] as number] as number;
      if (out !== undefined) out[i] = 2;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/** `calendarCounted` for at most two units (`l1` +∞ for none), recording no outcomes. */
function countedTwo(
  io: KernelInput,
  c0: Int32Array,
  l0: number,
  c1: Int32Array,
  l1: number,
  shadow: boolean,
): KernelTally {
  const { timeMs, keyId, below, adm } = io;
  const n = timeMs.length;
  let nAdm = 0;
  let rej = 0;
  let rejBelow = 0;
  for (let i = 0; i < n; i += 1) {
    if (((c0[i] as number) < l0 && (c1[i] as number) < l1) || shadow) {
      adm[nAdm++] = timeMs[i] as number;
    } else {
      rej += 1;
      rejBelow += below[keyId[i] as number] as number;
    }
  }
  return { admitted: nAdm, delayed: 0, rejected: rej, rejectedBelow: rejBelow };
}

/** Runs the kernel for `config` (already validated by core's assertAlgorithmConfig). */
export function runKernel(io: KernelInput, config: AlgorithmConfig): KernelTally {
  switch (config.kind) {
    case 'fixed-window':
      return fixedWindow(io, config);
    case 'sliding-log':
      // A held trace walks each key's requests; a trace decided chunk by chunk keeps rings of
      // times. Both with Caddy's last-millisecond pass too.
      return io.state === undefined ? slidingLog(io, config) : slidingLogRing(io, config, io.state);
    case 'sliding-window-counter':
      return config.anchor === 'entry'
        ? entryCounter(io, config)
        : slidingWindowCounter(io, config);
    case 'token-bucket':
      return tokenBucket(io, config);
    case 'leaky-bucket':
      return leakyBucket(io, config);
    case 'gcra':
      return gcra(io, config);
    case 'anchored-window':
      return anchoredWindow(io, config);
    case 'calendar-windows':
      return calendarWindows(io, config);
  }
}
