/**
 * An independent, deliberately naive reference model of the six limiters, written from
 * ../shared/DESIGN.md ("Core contract", "Semantics", "Clock jumps") and the reference systems' source,
 * without reading src/core/algorithms. It exists only to be compared with the core
 * (differential.test.ts), so it trades speed for obviousness:
 *
 * - every number is a BigInt: no rounding anywhere, whatever the size of the times;
 * - each algorithm is a pure function step(config, state | undefined, now) → outcome and next state;
 *   states are never mutated, so a copy is just a reference;
 * - `remaining` and `retryAfterMs` are not computed by formula but by replay, straight from their
 *   definitions: further requests at the same instant until one is not admitted; the smallest w ≥ 1
 *   at which the same request is not rejected (found by bisection — every model here is monotone in
 *   w for a key left alone: waiting longer never takes tokens away, see `retryAfter`).
 *
 * nginx is modelled together with its shared-memory bookkeeping: the LRU queue and
 * ngx_http_limit_req_expire(ctx, 1), which runs before a new key's node is created and deletes up to
 * two least-recently-used nodes that have been idle ≥ 60 s and whose excess has drained.
 */
import type { AlgorithmConfig, Outcome } from '../../src/core';

/** One decision of the reference model. */
export interface RefDecision {
  outcome: Outcome;
  delayMs: number;
  /** 0 unless rejected. */
  retryAfterMs: number;
  /** Further admits at the same instant, counted by replay up to `remainingCap`. */
  remaining: number;
  /** True when the replay stopped at the cap: the real value is ≥ `remaining`. */
  remainingCapped: boolean;
}

interface Step<S> {
  outcome: Outcome;
  delayMs: bigint;
  next: S | undefined;
}

type StepFn<S> = (state: S | undefined, now: bigint) => Step<S>;

const big = (n: number): bigint => BigInt(n);

/** Forgets a step function's state type: the limiter only stores and passes states back. */
const erase = <S>(f: StepFn<S>): StepFn<unknown> => f as unknown as StepFn<unknown>;

/** ⌊a / b⌋ for b > 0 (BigInt division truncates toward zero). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n ? q - 1n : q;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return -floorDiv(-a, b);
}

const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b);

// ---- fixed window: index ⌊t / windowMs⌋; admit iff the window's count < limit ----

interface FixedState {
  index: bigint;
  count: bigint;
}

function fixedWindow(limit: bigint, windowMs: bigint): StepFn<FixedState> {
  return (s, now) => {
    // A backward clock keeps the stored window ("the stored time stays").
    const index = s === undefined ? floorDiv(now, windowMs) : max(s.index, floorDiv(now, windowMs));
    const count = s !== undefined && s.index === index ? s.count : 0n;
    if (count < limit) return { outcome: 'admit', delayMs: 0n, next: { index, count: count + 1n } };
    return { outcome: 'reject', delayMs: 0n, next: s };
  };
}

// ---- sliding log: entries t0 count at t iff t − t0 < windowMs; admit iff count < limit ----

interface LogState {
  /** Logged times, ascending. */
  entries: readonly bigint[];
}

function slidingLog(limit: bigint, windowMs: bigint, logRejected: boolean): StepFn<LogState> {
  return (s, now) => {
    const entries = s?.entries ?? [];
    const newest = entries[entries.length - 1];
    // Backward time: the limiter reasons at its newest stored time.
    const t = newest === undefined ? now : max(now, newest);
    const live = entries.filter((t0) => t - t0 < windowMs);
    if (BigInt(live.length) < limit) {
      return { outcome: 'admit', delayMs: 0n, next: { entries: [...live, t] } };
    }
    return {
      outcome: 'reject',
      delayMs: 0n,
      next: logRejected ? { entries: [...live, t] } : s,
    };
  };
}

// ---- caddy-ratelimit's ring buffer (ringbuffer.go, handler.go), written as Caddy writes it ----

interface RingState {
  /**
   * The ring's recorded times, oldest first: the slot at the cursor is `times[0]` once `limit`
   * are recorded, and Go's zero time (always allowed) before that. Held as a queue of at most
   * `limit` times so a huge `limit` costs nothing until it is filled.
   */
  times: bigint[];
  newest: bigint | null;
}

/**
 * Caddy's window is the log's windowMs − 1: allowed iff now − ring[cursor] > window (then it is
 * recorded in the cursor's slot and the cursor moves on); else When() = ring[cursor] + window −
 * now, and the handler refuses only when that is > 0.
 */
function caddyRing(limit: bigint, windowMs: bigint): StepFn<RingState> {
  const window = windowMs - 1n;
  const size = Number(limit);
  return (s, now) => {
    const st = s ?? { times: [], newest: null };
    const t = st.newest === null ? now : max(now, st.newest);
    const oldest = st.times.length < size ? null : (st.times[0] as bigint);
    if (oldest === null || t - oldest > window) {
      const times = [...st.times, t];
      if (times.length > size) times.shift();
      return { outcome: 'admit', delayMs: 0n, next: { times, newest: t } };
    }
    const when = oldest + window - t;
    return { outcome: when > 0n ? 'reject' : 'admit', delayMs: 0n, next: st };
  };
}

// ---- sliding-window counter (Cloudflare): p·(W − e) + c·W < limit·W ----

interface CounterState {
  index: bigint;
  previous: bigint;
  current: bigint;
  /** The time of the last admitted request (the stored time a backward clock falls back to). */
  lastMs: bigint;
}

function slidingWindowCounter(limit: bigint, windowMs: bigint): StepFn<CounterState> {
  return (s, now) => {
    const t = s === undefined ? now : max(now, s.lastMs);
    const index = floorDiv(t, windowMs);
    let previous = 0n;
    let current = 0n;
    if (s !== undefined && s.index === index) {
      previous = s.previous;
      current = s.current;
    } else if (s !== undefined && s.index === index - 1n) {
      previous = s.current;
    }
    const e = t - index * windowMs;
    if (previous * (windowMs - e) + current * windowMs < limit * windowMs) {
      return {
        outcome: 'admit',
        delayMs: 0n,
        next: { index, previous, current: current + 1n, lastMs: t },
      };
    }
    return { outcome: 'reject', delayMs: 0n, next: s };
  };
}

// ---- HAProxy 2.6 freq_ctr in a stick-table entry (anchor 'entry'), transcribed from the C ----
// include/haproxy/freq_ctr.h update_freq_ctr_period, src/freq_ctr.c freq_ctr_total (pend = −1),
// src/http_act.c http_action_track_sc (counted before deny), src/stick_table.c (zeroed new entry,
// expire after the last touch).

interface FreqCtrState {
  currTick: bigint;
  currCtr: bigint;
  prevCtr: bigint;
  /** Last touch (and the clock's high-water mark). */
  touched: bigint;
}

function haproxyFreqCtr(
  limit: bigint,
  period: bigint,
  expireMs: bigint | null,
): StepFn<FreqCtrState> {
  return (s, nowIn) => {
    const now = s === undefined ? nowIn : max(nowIn, s.touched);
    // A missing or expired entry is a new, zeroed one. HAProxy's now_ms is far from 0; here the
    // zeroed tick is put four periods before now so the first event rotates the way it does there.
    const live = s !== undefined && (expireMs === null || now - s.touched < expireMs) ? s : null;
    // __stksess_init zeroes the entry: curr_tick = 0, which is far in the past of now_ms.
    let tick = live === null ? now - 4n * period : live.currTick;
    let curr = live === null ? 0n : live.currCtr;
    let prev = live === null ? 0n : live.prevCtr;
    // update_freq_ctr_period(ctr, period, 1)
    if (now - tick < period) {
      curr += 1n;
    } else {
      prev = curr;
      curr = 1n;
      tick += period;
      if (now - tick >= period) {
        prev = 0n;
        tick = now;
      }
      tick = tick - (((tick % 2n) + 2n) % 2n); // curr_tick & ~1
    }
    // freq_ctr_total(ctr, period, -1) / period
    let remain = tick + period - now;
    let past = prev;
    let cur = curr;
    if (remain < 0n) {
      remain += period;
      past = remain >= 0n ? cur : 0n;
      cur = 0n;
    }
    let total: bigint;
    if (cur === 0n && past <= 1n) total = past * period;
    else total = past * remain + cur * period;
    const rate = total / period;
    return {
      outcome: rate > limit ? 'reject' : 'admit',
      delayMs: 0n,
      next: { currTick: tick, currCtr: curr, prevCtr: prev, touched: now },
    };
  };
}

// ---- token bucket (Envoy), continuous: tokens kept ×fillIntervalMs, +tokensPerFill per ms ----

interface BucketState {
  /** Continuous: tokens × fillIntervalMs. Interval: whole tokens. Negative while tokens are promised. */
  level: bigint;
  lastMs: bigint;
}

function tokenBucketContinuous(
  maxTokens: bigint,
  perFill: bigint,
  intervalMs: bigint,
  maxDelayMs: bigint,
): StepFn<BucketState> {
  const full = maxTokens * intervalMs;
  const one = intervalMs;
  return (s, now) => {
    const lastMs = s === undefined ? now : s.lastMs;
    const t = max(now, lastMs);
    const level = s === undefined ? full : min(full, s.level + (t - lastMs) * perFill);
    if (level >= one)
      return { outcome: 'admit', delayMs: 0n, next: { level: level - one, lastMs: t } };
    if (maxDelayMs > 0n) {
      // golang x/time/rate reserveN: take the token now (level < 0) and wait until it exists.
      const waitMs = ceilDiv(one - level, perFill);
      if (waitMs <= maxDelayMs) {
        return { outcome: 'delay', delayMs: waitMs, next: { level: level - one, lastMs: t } };
      }
    }
    return { outcome: 'reject', delayMs: 0n, next: s };
  };
}

// ---- token bucket, interval: tokensPerFill whole tokens at every t = k·fillIntervalMs ----

/**
 * The number of whole k with a < k·interval ≤ b. DESIGN.md says k ≥ 1 because the bucket starts
 * full at t = 0 (Envoy arms its timer at start); the grid is read here as continuing below 0, so a
 * key first seen at a negative time refills like any other instead of waiting for t = interval.
 */
function boundariesBetween(a: bigint, b: bigint, intervalMs: bigint): bigint {
  return max(0n, floorDiv(b, intervalMs) - floorDiv(a, intervalMs));
}

function tokenBucketInterval(
  maxTokens: bigint,
  perFill: bigint,
  intervalMs: bigint,
  maxDelayMs: bigint,
): StepFn<BucketState> {
  return (s, now) => {
    const lastMs = s === undefined ? now : s.lastMs;
    const t = max(now, lastMs);
    const level =
      s === undefined
        ? maxTokens
        : min(maxTokens, s.level + boundariesBetween(lastMs, t, intervalMs) * perFill);
    if (level >= 1n)
      return { outcome: 'admit', delayMs: 0n, next: { level: level - 1n, lastMs: t } };
    if (maxDelayMs > 0n) {
      // Count the boundaries until the level reaches 1, then wait for the last of them.
      const needed = ceilDiv(1n - level, perFill);
      const firstK = floorDiv(t, intervalMs) + 1n;
      const waitMs = (firstK + needed - 1n) * intervalMs - t;
      if (waitMs <= maxDelayMs) {
        return { outcome: 'delay', delayMs: waitMs, next: { level: level - 1n, lastMs: t } };
      }
    }
    return { outcome: 'reject', delayMs: 0n, next: s };
  };
}

// ---- GCRA (redis-cell): times ×count so T = periodMs ----

interface GcraState {
  /** Theoretical arrival time × count. */
  tat: bigint;
}

function gcra(count: bigint, periodMs: bigint, burst: bigint): StepFn<GcraState> {
  const T = periodMs;
  const tau = periodMs * (burst + 1n);
  return (s, now) => {
    const nowScaled = now * count;
    const tat = s?.tat ?? nowScaled;
    const next = max(tat, nowScaled) + T;
    if (nowScaled >= next - tau) return { outcome: 'admit', delayMs: 0n, next: { tat: next } };
    return { outcome: 'reject', delayMs: 0n, next: s };
  };
}

// ---- nginx limit_req (ngx_http_limit_req_lookup / _account) ----

interface NginxNode {
  /** Milli-requests. */
  excess: bigint;
  lastMs: bigint;
}

function nginx(rateMilli: bigint, burst: bigint, delay: bigint | null): StepFn<NginxNode> {
  return (s, now) => {
    if (s === undefined)
      return { outcome: 'admit', delayMs: 0n, next: { excess: 0n, lastMs: now } };
    let ms = now - s.lastMs;
    if (ms < -60000n) ms = 1n;
    else if (ms < 0n) ms = 0n;
    const excess = max(0n, s.excess - (rateMilli * ms) / 1000n + 1000n);
    if (excess > burst * 1000n) return { outcome: 'reject', delayMs: 0n, next: s };
    const next = { excess, lastMs: ms !== 0n ? now : s.lastMs };
    if (delay === null || excess <= delay * 1000n) return { outcome: 'admit', delayMs: 0n, next };
    const waitMs = ((excess - delay * 1000n) * 1000n) / rateMilli;
    return { outcome: waitMs === 0n ? 'admit' : 'delay', delayMs: waitMs, next };
  };
}

/** nginx's ctx->rate: ⌊rate·1000 / (1 or 60)⌋ milli-requests per second. */
export function refRateMilli(rate: number, unit: 'r/s' | 'r/m'): bigint {
  return (big(rate) * 1000n) / (unit === 'r/m' ? 60n : 1n);
}

// ---- anchored window (express-rate-limit MemoryStore, rate-limiter-flexible RateLimiterMemory) ----
// Written from express-rate-limit 8.7.5 source/memory-store.ts (increment: reset when resetTime ≤
// now, then totalHits++) and rate-limiter-flexible 11.4.0 lib/RateLimiterMemory.js (consume).

interface AnchoredState {
  reset: bigint;
  count: bigint;
  blocked: boolean;
}

function anchoredWindow(
  limit: bigint,
  windowMs: bigint,
  countRejected: boolean,
  blockMs: bigint,
  execEvenly: boolean,
  minDelayMs: bigint,
  cost: bigint,
): StepFn<AnchoredState> {
  return (s, now) => {
    const live = s !== undefined && s.reset > now;
    const cur: AnchoredState = live ? s : { reset: now + windowMs, count: 0n, blocked: false };
    const counted = cur.count + cost; // both systems count first, then compare
    if (counted <= limit) {
      const next = { ...cur, count: counted };
      if (!execEvenly || !live) return { outcome: 'admit', delayMs: 0n, next };
      const before = cur.reset - now;
      let d = ceilDiv(before, limit - counted + 2n);
      if (d < minDelayMs) d = counted * minDelayMs;
      return { outcome: d > 0n ? 'delay' : 'admit', delayMs: d, next };
    }
    const next = { ...cur, count: countRejected ? counted : cur.count };
    if (blockMs > 0n && !cur.blocked) {
      next.blocked = true;
      next.reset = now + blockMs;
    }
    return { outcome: 'reject', delayMs: 0n, next };
  };
}

// ---- calendar windows (Kong rate-limiting, envoyproxy/ratelimit) ----
// Periods from JavaScript's own Date in UTC (independent of src/core/calendar.ts): Date covers
// ±8.64e15 ms, more than the traces' ±2^50; beyond it (only the bisection's far probes) every
// period is taken as new, which is what any counter is by then.

type Unit = 'second' | 'minute' | 'hour' | 'day' | 'month' | 'year';
const UNIT_S: Record<Unit, bigint> = {
  second: 1n,
  minute: 60n,
  hour: 3600n,
  day: 86400n,
  month: 2592000n,
  year: 31536000n,
};

function refPeriodStart(unit: Unit, t: bigint, calendar: boolean): bigint {
  if (!calendar || (unit !== 'month' && unit !== 'year')) {
    const len = UNIT_S[unit] * 1000n;
    return floorDiv(t, len) * len;
  }
  if (t > 8_000_000_000_000_000n || t < -8_000_000_000_000_000n) return t;
  const d = new Date(Number(t));
  const y = d.getUTCFullYear();
  const start = new Date(0);
  start.setUTCFullYear(y, unit === 'month' ? d.getUTCMonth() : 0, 1);
  start.setUTCHours(0, 0, 0, 0);
  return BigInt(start.getTime());
}

function refPeriodEnd(unit: Unit, t: bigint, calendar: boolean): bigint {
  if (!calendar || (unit !== 'month' && unit !== 'year')) {
    return refPeriodStart(unit, t, calendar) + UNIT_S[unit] * 1000n;
  }
  if (t > 8_000_000_000_000_000n || t < -8_000_000_000_000_000n) return t + 1n;
  const d = new Date(Number(t));
  const end = new Date(0);
  if (unit === 'month') end.setUTCFullYear(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  else end.setUTCFullYear(d.getUTCFullYear() + 1, 0, 1);
  end.setUTCHours(0, 0, 0, 0);
  return BigInt(end.getTime());
}

interface CalCounter {
  start: bigint;
  count: bigint;
  expires: bigint;
}

interface CalendarState {
  last: bigint;
  counters: ReadonlyMap<Unit, CalCounter>;
}

function calendarWindows(
  limits: ReadonlyArray<[Unit, bigint]>,
  calendar: boolean,
  countRejected: boolean,
  ttl: boolean,
): StepFn<CalendarState> {
  return (s, now) => {
    const t = s === undefined ? now : max(s.last, now);
    const live = (u: Unit): bigint => {
      const c = s?.counters.get(u);
      if (c === undefined) return 0n;
      return c.start === refPeriodStart(u, t, calendar) && t < c.expires ? c.count : 0n;
    };
    const blocked = limits.some(([u, limit]) => live(u) >= limit);
    const counters = new Map<Unit, CalCounter>();
    for (const [u] of limits) {
      const n = live(u);
      const old = s?.counters.get(u);
      if (!blocked || countRejected) {
        if (n > 0n && old !== undefined) counters.set(u, { ...old, count: n + 1n });
        else {
          const end = refPeriodEnd(u, t, calendar);
          const nominal = t + UNIT_S[u] * 1000n;
          counters.set(u, {
            start: refPeriodStart(u, t, calendar),
            count: 1n,
            expires: ttl && nominal < end ? nominal : end,
          });
        }
      } else if (old !== undefined) counters.set(u, old);
    }
    return { outcome: blocked ? 'reject' : 'admit', delayMs: 0n, next: { last: t, counters } };
  };
}

// ---- the limiter: per-key Maps, replayed remaining / retryAfter ----

/** Far enough that every model admits again (a day of windows, drained buckets, any clock gap). */
const NEVER = 2n ** 64n;

export class RefLimiter {
  private readonly step: StepFn<unknown>;
  private readonly states = new Map<string, unknown>();
  /** nginx only: keys from most to least recently looked up (ngx_http_limit_req_node_t.queue). */
  private readonly lru: string[] = [];
  private readonly rateMilli: bigint = 0n;

  constructor(
    readonly config: AlgorithmConfig,
    private readonly remainingCap = 64,
  ) {
    this.step = RefLimiter.stepOf(config);
    if (config.kind === 'leaky-bucket') this.rateMilli = refRateMilli(config.rate, config.rateUnit);
  }

  private static stepOf(c: AlgorithmConfig): StepFn<unknown> {
    switch (c.kind) {
      case 'fixed-window':
        return erase(fixedWindow(big(c.limit), big(c.windowMs)));
      case 'sliding-log':
        if (c.lastMsPasses === true) return erase(caddyRing(big(c.limit), big(c.windowMs)));
        return erase(slidingLog(big(c.limit), big(c.windowMs), c.logRejected === true));
      case 'sliding-window-counter':
        if (c.anchor === 'entry') {
          return erase(
            haproxyFreqCtr(
              big(c.limit),
              big(c.windowMs),
              c.expireMs === undefined ? null : big(c.expireMs),
            ),
          );
        }
        return erase(slidingWindowCounter(big(c.limit), big(c.windowMs)));
      case 'token-bucket': {
        const make = c.refill === 'interval' ? tokenBucketInterval : tokenBucketContinuous;
        return erase(
          make(
            big(c.maxTokens),
            big(c.tokensPerFill),
            big(c.fillIntervalMs),
            big(c.maxDelayMs ?? 0),
          ),
        );
      }
      case 'leaky-bucket':
        return erase(
          nginx(
            refRateMilli(c.rate, c.rateUnit),
            big(c.burst),
            c.delay === 'nodelay' ? null : big(c.delay),
          ),
        );
      case 'gcra':
        return erase(gcra(big(c.count), big(c.periodMs), big(c.burst)));
      case 'anchored-window':
        return erase(
          anchoredWindow(
            big(c.limit),
            big(c.windowMs),
            c.countRejected === true,
            big(c.blockMs ?? 0),
            c.execEvenly === true,
            // rate-limiter-flexible's default: ⌈windowMs / limit⌉.
            big(c.execEvenlyMinDelayMs ?? Math.ceil(c.windowMs / c.limit)),
            big(c.cost ?? 1),
          ),
        );
      case 'calendar-windows': {
        const units: Unit[] = ['second', 'minute', 'hour', 'day', 'month', 'year'];
        const limits = units.flatMap((u): Array<[Unit, bigint]> => {
          const v = c[u];
          return v === undefined ? [] : [[u, big(v)]];
        });
        return erase(
          calendarWindows(
            limits,
            (c.align ?? 'calendar') === 'calendar',
            c.countRejected === true,
            c.counterTtl === true,
          ),
        );
      }
    }
  }

  /** Keys holding state (nginx: nodes not yet expired). */
  keys(): string[] {
    return [...this.states.keys()];
  }

  decide(nowMs: number, key = 'default'): RefDecision {
    const now = big(nowMs);
    if (this.config.kind === 'leaky-bucket') this.nginxLookup(now, key);
    const r = this.step(this.states.get(key), now);
    if (r.next === undefined) this.states.delete(key);
    else this.states.set(key, r.next);
    const { remaining, capped } = this.replayRemaining(r.next, now);
    return {
      outcome: r.outcome,
      delayMs: Number(r.delayMs),
      retryAfterMs: r.outcome === 'reject' ? Number(this.retryAfter(r.next, now)) : 0,
      remaining,
      remainingCapped: capped,
    };
  }

  /**
   * The LRU part of ngx_http_limit_req_lookup: a found node moves to the head of the queue whatever
   * the outcome (the bump comes before the excess check); before a new node is allocated,
   * ngx_http_limit_req_expire(ctx, 1) looks at up to two nodes from the tail.
   */
  private nginxLookup(now: bigint, key: string): void {
    const at = this.lru.indexOf(key);
    if (at >= 0) {
      this.lru.splice(at, 1);
      this.lru.unshift(key);
      return;
    }
    for (let n = 1; n < 3; n++) {
      const tail = this.lru[this.lru.length - 1];
      if (tail === undefined) break;
      const node = this.states.get(tail) as NginxNode;
      let ms = now - node.lastMs;
      if (ms < 0n) ms = -ms; // ngx_abs
      if (ms < 60000n) break;
      if (node.excess - (this.rateMilli * ms) / 1000n > 0n) break;
      this.lru.pop();
      this.states.delete(tail);
    }
    this.lru.unshift(key);
  }

  /** Requests at `now` after this one that are admitted, counted one by one. */
  private replayRemaining(state: unknown, now: bigint): { remaining: number; capped: boolean } {
    let s = state;
    for (let n = 0; n < this.remainingCap; n++) {
      const r = this.step(s, now);
      if (r.outcome !== 'admit') return { remaining: n, capped: false };
      s = r.next;
    }
    return { remaining: this.remainingCap, capped: true };
  }

  /**
   * The smallest w ≥ 1 at which the same key, left alone, is not rejected. Bisection is valid
   * because every model is monotone in w: refill, drain and window expiry only grow with the time
   * given, and a clock behind the stored time reasons at the stored time (nginx's ms < −60000 → 1 is
   * the one non-monotone spot, and it is never better than ms ≥ 0, so it cannot admit earlier).
   */
  private retryAfter(state: unknown, now: bigint): bigint {
    const passes = (w: bigint): boolean => this.step(state, now + w).outcome !== 'reject';
    if (!passes(NEVER)) throw new Error('reference: a rejected key never recovers');
    let lo = 0n; // rejected (the request itself)
    let hi = NEVER; // passes
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n;
      if (passes(mid)) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}
