/**
 * The core contract (../shared/DESIGN.md, "Core contract"). Code outside this repository relies on
 * these names and meanings: extend, never rename.
 *
 * Units: every duration and time is a whole number of milliseconds and carries an `Ms` suffix.
 */
import type { Inspection } from './inspect';

/** Windows aligned to t = 0; a window admits `limit` requests. */
export interface FixedWindowConfig {
  kind: 'fixed-window';
  /** Requests admitted per window. 1 – 1,000,000. */
  limit: number;
  /** Window length in ms. 1 – 86,400,000. */
  windowMs: number;
}

/** A log of admitted request times; an entry counts while it is younger than the window. */
export interface SlidingLogConfig {
  kind: 'sliding-log';
  limit: number;
  windowMs: number;
  /**
   * Also log rejected requests (the Redis sorted-set pattern that adds before it counts). Memory then
   * grows with offered load, and a client that keeps hammering stays blocked. Default false.
   */
  logRejected?: boolean;
  /**
   * caddy-ratelimit's ring buffer (ringbuffer.go When(), handler.go): when the log holds `limit`
   * entries and the oldest of them is in its last millisecond (exactly windowMs − 1 ms old), the
   * request passes and is not logged — When() returns 0 there, and the handler lets the request
   * through without reserving. Every request in that millisecond passes alike, so an admit there
   * reports `remaining` 0 (the log is unchanged) though the count of such passes has no bound. Not
   * with logRejected. Default false.
   */
  lastMsPasses?: boolean;
}

/** Cloudflare's sliding-window counter: the previous window's count weighted by its overlap. */
export interface SlidingWindowCounterConfig {
  kind: 'sliding-window-counter';
  limit: number;
  windowMs: number;
  /**
   * 'aligned' (default, Cloudflare): windows aligned to t = 0; a rejected request changes nothing.
   * 'entry' (HAProxy 2.6 `freq_ctr`, a stick-table's `http_req_rate(<period>)`): each key's period
   * starts at its first request and is rotated per key (`tick += period`, the tick's lowest bit
   * cleared); every request is counted before it is compared (track-sc runs before deny), so
   * rejected requests count too; a request is rejected when curr + ⌊prev·remain / period⌋ > limit.
   */
  anchor?: 'aligned' | 'entry';
  /**
   * With anchor 'entry': the stick-table's `expire` — a key untouched for this many ms is forgotten
   * (its next request starts a fresh entry). Absent: never forgotten. 1 – 86,400,000.
   */
  expireMs?: number;
  /**
   * With anchor 'entry': the status of a rejected request (HAProxy `deny_status`; absent, HAProxy's
   * `deny` answers 403). One of HAPROXY_DENY_STATUSES.
   */
  denyStatus?: number;
}

/** Envoy `envoy.type.v3.TokenBucket`; starts full. */
export interface TokenBucketConfig {
  kind: 'token-bucket';
  /** `max_tokens`: bucket capacity. 1 – 1,000,000. */
  maxTokens: number;
  /** `tokens_per_fill`: tokens added per `fill_interval`. 1 – 1,000,000. */
  tokensPerFill: number;
  /** `fill_interval` in ms. 1 – 86,400,000. */
  fillIntervalMs: number;
  /**
   * 'continuous' (default): Envoy ≥ 1.31's `AtomicTokenBucket`, tokens grow every millisecond.
   * 'interval': Envoy's older timer, `tokens_per_fill` whole tokens at every t = k·fill_interval.
   */
  refill?: 'continuous' | 'interval';
  /**
   * golang `x/time/rate` Reserve/Wait: a request that finds no token reserves the next one and waits
   * for it when the wait is at most this many ms. 0 (default) rejects at once. 0 – 86,400,000.
   */
  maxDelayMs?: number;
  /**
   * The maximum delay in whole ns, when it is not a whole number of ms (Traefik's
   * `time.Second / (time.Duration(rate) * 2)`, e.g. 83,333,333 ns at 6 r/s); maxDelayMs then holds
   * ⌊maxDelayNs / 10^6⌋ for display. Set, the continuous bucket decides as x/time/rate does: a
   * request waits when its wait truncated to whole ns is at most this. 0 – 86,400,000,000,000.
   */
  maxDelayNs?: number;
  /**
   * Traefik's bucket expiry (pkg/middlewares/ratelimiter/ttlmap): a key that no request (of any
   * outcome) touched for this many whole Unix seconds — ⌊now/1000⌋ ≥ ⌊touched/1000⌋ + idleResetS,
   * with t = 0 on a second boundary — starts again with a full bucket. Every request refreshes it,
   * so with this set a rejected request changes the key's state (its touch time). Absent: never.
   * 1 – 86,400.
   */
  idleResetS?: number;
}

/** nginx `limit_req`, an exact integer port of ngx_http_limit_req_module.c. */
export interface LeakyBucketConfig {
  kind: 'leaky-bucket';
  /** `rate=` number. 1 – 1,000,000. */
  rate: number;
  /** `r/s` or `r/m` (nginx keeps ⌊rate·1000/60⌋ milli-requests per second for r/m). */
  rateUnit: 'r/s' | 'r/m';
  /** `burst=`: excess requests held (delayed) beyond the rate. 0 – 1,000,000. */
  burst: number;
  /** `delay=N` (requests passed undelayed within the burst) or `nodelay`. Default `delay=0`. */
  delay: number | 'nodelay';
  /** `limit_req_status`: the status of a rejected request. 400 – 599, default 503. */
  limitReqStatus?: number;
}

/** GCRA as redis-cell's `CL.THROTTLE key burst count period`. */
export interface GcraConfig {
  kind: 'gcra';
  /** `count` requests … 1 – 1,000,000. */
  count: number;
  /** … per `period`, here in ms. 1 – 86,400,000. */
  periodMs: number;
  /** `max_burst`: requests allowed on top of the first. 0 – 1,000,000. */
  burst: number;
}

// ---- For the gateways: anchored windows, calendar windows ----

/**
 * A fixed window anchored at each key's first request, not at t = 0: the window of a key starts
 * with the first request that finds no live window and lasts `windowMs` (express-rate-limit's
 * MemoryStore, rate-limiter-flexible's RateLimiterMemory). Both count a request before comparing,
 * so rejected requests count too (`countRejected`).
 */
export interface AnchoredWindowConfig {
  kind: 'anchored-window';
  /** Requests admitted per window (express-rate-limit `limit`, rate-limiter-flexible `points`). 1 – 1,000,000. */
  limit: number;
  /**
   * Window length in ms, from the key's first request. 0 – 86,400,000; 0: the key's record
   * never expires (rate-limiter-flexible `duration: 0`, "0 = never expires",
   * lib/RateLimiterAbstract.js 11.4.0), so only a block ends it. A request that a never-expiring
   * record rejects passes at no later time: its `retryAfterMs` and `resetMs` are `NEVER_MS`.
   */
  windowMs: number;
  /** Rejected requests increment the count too (both modelled systems do). Default false. */
  countRejected?: boolean;
  /**
   * rate-limiter-flexible `blockDuration` in ms: the first rejected request of a window restarts
   * the key's record to expire this long after it. 0 (default) = no block. 0 – 86,400,000.
   */
  blockMs?: number;
  /**
   * rate-limiter-flexible `execEvenly`: an admitted request that is not the window's first is
   * delayed by ⌈msBeforeNext / (remaining points + 2)⌉ ms, or by count · `execEvenlyMinDelayMs` when
   * that is shorter than `execEvenlyMinDelayMs`. Default false.
   */
  execEvenly?: boolean;
  /**
   * rate-limiter-flexible `execEvenlyMinDelayMs` (whole ms). 0 – 86,400,000. Default, as the
   * library's (RateLimiterAbstract.js _getExecEvenlyMinDelayMsDefault): ⌈windowMs / limit⌉.
   */
  execEvenlyMinDelayMs?: number;
  /**
   * Points each request consumes (rate-limiter-flexible `consume(key, points)`): a request passes
   * when the count plus `cost` is at most `limit`, and adds `cost` to the count. 1 – `limit`,
   * default 1. `remaining` is then the further requests of this cost that pass at once.
   */
  cost?: number;
}

/** A unit of a calendar window, shortest first. */
export type CalendarUnit = 'second' | 'minute' | 'hour' | 'day' | 'month' | 'year';

/**
 * Several fixed windows at once, one per unit given (Kong `rate-limiting`: `second` … `year`;
 * envoyproxy/ratelimit descriptors of one key). A request passes only if every window has room.
 */
export interface CalendarWindowsConfig {
  kind: 'calendar-windows';
  /** Requests per second / minute / … (each optional, at least one). 1 – 1,000,000,000. */
  second?: number;
  minute?: number;
  hour?: number;
  day?: number;
  month?: number;
  year?: number;
  /**
   * 'calendar' (default, Kong): UTC calendar months and years. 'epoch' (envoyproxy/ratelimit):
   * every unit is a fixed number of seconds counted from 1970 (month = 30 days, year = 365 days).
   */
  align?: 'calendar' | 'epoch';
  /** Rejected requests increment every window's count too (envoyproxy/ratelimit). Default false. */
  countRejected?: boolean;
  /**
   * Kong's `local` policy: a counter is created with a time-to-live of the unit's nominal length
   * (month 30 days, year 365 days) from its first increment, so in a 31-day month or a 366-day year
   * it can vanish before its period ends. Default false.
   */
  counterTtl?: boolean;
  /**
   * envoyproxy/ratelimit `shadow_mode` (src/limiter/base_limiter.go GetResponseDescriptorStatus,
   * master f2fb157): a request over a limit is answered OK all the same — outcome 'admit',
   * remaining 0 (the OVER_LIMIT descriptor status keeps limit_remaining 0) — and every hit is
   * counted, as the service always counts. `remaining` then means the further requests at this
   * instant that stay within every limit. Default false.
   */
  shadowMode?: boolean;
}

export type AlgorithmConfig =
  | FixedWindowConfig
  | SlidingLogConfig
  | SlidingWindowCounterConfig
  | TokenBucketConfig
  | LeakyBucketConfig
  | GcraConfig
  | AnchoredWindowConfig
  | CalendarWindowsConfig;

export type AlgorithmKind = AlgorithmConfig['kind'];

/** The config of one kind, e.g. `ConfigOf<'gcra'>`. */
export type ConfigOf<K extends AlgorithmKind> = Extract<AlgorithmConfig, { kind: K }>;

export type Outcome = 'admit' | 'delay' | 'reject';

export interface Decision {
  outcome: Outcome;
  /** > 0 exactly when outcome is 'delay': how long the request is held before it is passed on. */
  delayMs: number;
  /** > 0 exactly when outcome is 'reject': the smallest whole wait after which the same request passes. */
  retryAfterMs: number;
  /** Further requests at this same instant that would get 'admit'. */
  remaining: number;
  /** The nominal quota, for headers (see `quotaOf`). */
  limit: number;
  /** Time until this key is back to its idle state, given no more traffic. */
  resetMs: number;
}

/** Size of one key's state, for the memory metrics. */
export interface StateSize {
  /** Stored items: log entries for the sliding log, 1 for the others. */
  entries: number;
  /** Bytes the state takes in the reference system's layout (see README, "State size"). */
  bytes: number;
}

/** How createLimiter places a limiter on the clock. */
export interface LimiterOptions {
  /**
   * The epoch ms (UTC) that virtual time 0 stands for: a replayed log's first request, a probe's
   * start. Aligned windows are counted from 1970 as the real systems count them (a Redis key per
   * ⌊now / window⌋, Kong's UTC periods, envoyproxy/ratelimit's (now / divider) · divider). Default
   * 0: virtual 0 is 1970-01-01T00:00:00Z. A whole number of ms within ±MAX_TIME_MS.
   */
  originMs?: number;
}

export interface Limiter {
  /** Decides one request arriving at `nowMs` for `key` (default 'default') and updates the state. */
  decide(nowMs: number, key?: string): Decision;
  /** The state at `nowMs` for drawing; never changes anything. */
  inspect(nowMs: number, key?: string): Inspection;

  // ---- Extensions beyond the contract (used by src/sim and the UI) ----

  /** The validated config this limiter was made from. */
  readonly config: AlgorithmConfig;
  /**
   * The epoch ms (UTC) that virtual time 0 stands for (LimiterOptions.originMs; 0 by default).
   * Windows aligned to the clock (fixed window, the aligned sliding-window counter, calendar
   * windows) are placed at t + originMs; every time taken or given stays virtual.
   */
  readonly originMs: number;
  /** An independent deep copy: deciding on one never affects the other. */
  clone(): Limiter;
  /** Keys that currently hold state. */
  keys(): IterableIterator<string>;
  /** Number of keys that currently hold state. */
  readonly size: number;
  /**
   * Size of one key's state at `nowMs`: 0 entries and 0 bytes if the key is idle or unseen, except
   * that nginx counts every node its zone still holds (it frees them only by its own expiry).
   */
  stateSize(nowMs: number, key?: string): StateSize;
  /**
   * The sum of `stateSize` over every key at `nowMs`, where the limiter can give it without
   * visiting each key (nginx: its node count × the node size). Absent elsewhere. It changes only
   * when the limiter's state does (a decision, `setState`), never with time alone: the simulator
   * re-reads it only for the limiters a decision touched.
   */
  totalStateSize?(nowMs: number): StateSize;
  /**
   * Forgets keys that are back to their idle state at `nowMs`. Decisions at `nowMs` and later are
   * unchanged by this; an earlier time (a clock gone backwards) would find a forgotten key fresh
   * where its stored time would have held it back. nginx forgets nothing (its nodes only leave
   * through ngx_http_limit_req_expire).
   */
  prune(nowMs: number): void;
  /** A copy of one key's state, for deployments that read state, decide, and write it back later. */
  getState(key?: string): KeyState | undefined;
  /** Replaces one key's state with a copy of `state` (or forgets the key when undefined). */
  setState(key: string, state: KeyState | undefined): void;

  // ---- The simulator's fast path (speed): keys as small integers ----

  /**
   * From now on `decideKey` and `stateSizeKey` find a key's state by its index in `index` (key →
   * 0 … index.size − 1) instead of a Map lookup. Not copied by `clone`. Decisions are unchanged.
   */
  useKeyIndex(index: ReadonlyMap<string, number>): void;
  /**
   * `decide(nowMs, key)` where `k` is `key`'s index in the map given to `useKeyIndex` (if any).
   * The Decision is the limiter's own, reused: it holds until this limiter decides again.
   */
  decideKey(nowMs: number, key: string, k: number): Decision;
  /**
   * The most `stateSize` ever gives for one key, when that is a fixed size (every state of the
   * algorithm takes the same); null when a key's state can grow (logs, calendar counters). Right
   * after a request for a key is admitted or delayed, that key's `stateSize` is exactly this.
   */
  readonly keySizeMax: StateSize | null;
  /** `stateSize(nowMs, key)` where `k` is `key`'s index in the map given to `useKeyIndex` (if any). */
  stateSizeKey(nowMs: number, key: string, k: number): StateSize;
  /**
   * Right after a `decide` or `decideKey` at `nowMs` that rejected: the time up to which (not
   * included) the same key keeps being rejected alike, as long as this limiter decides nothing
   * else. A request of that key at any whole t from `nowMs` to before it is rejected, changes no
   * state, and gets remaining 0, delayMs 0, the same limit, and retryAfterMs and resetMs each
   * t − nowMs less than that decision's. The simulator then writes such rows without deciding
   * (an overloaded limiter rejects most of a large run). −Infinity (nothing promised)
   * where an algorithm does not say; only asked right after a rejection.
   */
  rejectsUntil(): number;
  /**
   * True when `other` decides every request at `nowMs` and later exactly as this limiter does
   * (same algorithm and config; key by key equal states, or both idle). False when unsure. Not
   * about earlier times: a clock that goes back may tell an idle key from an unseen one.
   */
  sameStateAs(other: Limiter, nowMs: number): boolean;
}

/** An opaque, copyable snapshot of one key's state. Only the limiter that made it understands it. */
export interface KeyState {
  readonly kind: AlgorithmKind;
}

export const DEFAULT_KEY = 'default';
