/**
 * What `Limiter.inspect(nowMs, key)` returns: everything a drawing needs, one shape per algorithm.
 * Times are absolute virtual ms; fractional values (tokens, TAT) are for drawing only: decisions use
 * the exact integers kept inside each limiter.
 */

/** The script's arguments and Traefik's own limits for a config (average per period, burst). */
export interface TraefikRedisParams {
  /** float64(rtl / 1e6): tokens per µs. */
  limit: number;
  burst: number;
  /** Seconds (rate_limiter.go). */
  ttl: number;
  /** maxDelay.Microseconds(): whole µs, truncated. */
  maxDelayUs: number;
  /** maxDelay in ns, what rate_limiter.go compares the delay with. */
  maxDelayNs: number;
}

/** One key's hash in Redis (`last`, `tokens`) and when the key expires (Unix ms). */
export interface TraefikRedisKey {
  tokens: number;
  lastUs: number;
  expiresAtMs: number;
}

interface InspectionBase {
  key: string;
  /** The time asked about. */
  nowMs: number;
  /**
   * The time the limiter reasons at: `nowMs`, or later when the clock went backwards and the stored
   * time stays (DESIGN.md, "Clock jumps").
   */
  effectiveNowMs: number;
  /** False for a key with no state: it is idle, as if never seen. */
  seen: boolean;
  /** The nominal quota (as in `Decision.limit`). */
  limit: number;
}

export interface FixedWindowInspection extends InspectionBase {
  kind: 'fixed-window';
  windowMs: number;
  windowStartMs: number;
  windowEndMs: number;
  /** Requests admitted in the window containing `effectiveNowMs`. */
  count: number;
}

export interface SlidingLogInspection extends InspectionBase {
  kind: 'sliding-log';
  windowMs: number;
  /** Entries that count at `effectiveNowMs` (t − entry < windowMs), oldest first. */
  entries: readonly number[];
  /** Entries held in memory, including expired ones not yet pruned. */
  stored: number;
  logRejected: boolean;
  /** A full log whose oldest entry is in its last ms lets a request pass unlogged (Caddy). */
  lastMsPasses: boolean;
}

export interface SlidingWindowCounterInspection extends InspectionBase {
  kind: 'sliding-window-counter';
  windowMs: number;
  /** 'entry': HAProxy's per-entry period (windowStartMs is the entry's tick); absent: aligned. */
  anchor?: 'entry';
  windowStartMs: number;
  previousCount: number;
  currentCount: number;
  /** e = t − window start. */
  elapsedMs: number;
  /** previousCount · (windowMs − e) / windowMs + currentCount, as a float for display. */
  estimate: number;
}

export interface TokenBucketInspection extends InspectionBase {
  kind: 'token-bucket';
  refill: 'continuous' | 'interval';
  maxTokens: number;
  tokensPerFill: number;
  fillIntervalMs: number;
  maxDelayMs: number;
  /** Tokens now (fractional for continuous refill; negative while tokens are reserved). */
  tokens: number;
  /** Tokens promised to delayed requests that are not there yet (≥ 0). */
  debt: number;
  /** When the next whole token appears (null when the bucket is full). */
  nextTokenAtMs: number | null;
  /** When the bucket is full again with no more traffic. */
  fullAtMs: number;
  /** Release times of delayed requests still waiting, ascending. */
  releases: readonly number[];
  /**
   * Traefik's Redis limiter only (algorithms/traefik-redis.ts): the script's arguments, the key's
   * hash as Redis holds it at `nowMs` (null: no key, never set or expired) and the request's Unix
   * ms, from which the explainer replays the script's decision.
   */
  redis?: { params: TraefikRedisParams; stored: TraefikRedisKey | null; unixMs: number };
}

export interface LeakyBucketInspection extends InspectionBase {
  kind: 'leaky-bucket';
  /** nginx's rate in milli-requests per second: ⌊rate·1000 / (1 or 60)⌋. */
  rateMilli: number;
  /** Stored `excess` in milli-requests, as of `lastMs`. */
  excessMilli: number;
  /** Excess drained to `nowMs`, clamped at 0: the water in the bucket now. */
  excessNowMilli: number;
  /**
   * The excess the next request at `nowMs` would have: max(0, drained + 1000), as nginx clamps after
   * adding its own 1000 (so it can be less than excessNowMilli + 1000); 0 for a key with no node.
   * Above burst·1000 it is rejected; above delay·1000 it waits.
   */
  excessNextMilli: number;
  lastMs: number;
  burst: number;
  /** The `delay=` threshold in requests (null for `nodelay`). */
  delay: number | null;
  /** Release times of delayed requests still waiting, ascending. */
  releases: readonly number[];
}

export interface GcraInspection extends InspectionBase {
  kind: 'gcra';
  /** Theoretical arrival time (fractional ms). Equals nowMs for an idle key. */
  tatMs: number;
  /** T = period / count. */
  emissionIntervalMs: number;
  /** τ = T · (burst + 1). */
  toleranceMs: number;
  /** The earliest time the next request is admitted: max(tat, now) + T − τ. */
  allowAtMs: number;
}

export interface AnchoredWindowInspection extends InspectionBase {
  kind: 'anchored-window';
  windowMs: number;
  /** Start of the key's live window (its first request), or null when it has none. */
  windowStartMs: number | null;
  /**
   * When the live window (or block) ends, or null when it has none or when it never ends
   * (windowMs 0 and not blocked: `windowStartMs` is then set).
   */
  resetAtMs: number | null;
  /** Requests counted in the live window (above `limit` when rejected requests count). */
  count: number;
  /** True while a rate-limiter-flexible block holds the key. */
  blocked: boolean;
}

/** One window of a calendar-windows limiter. */
export interface CalendarWindowState {
  unit: 'second' | 'minute' | 'hour' | 'day' | 'month' | 'year';
  limit: number;
  startMs: number;
  endMs: number;
  /** Requests counted in this window now. */
  count: number;
  /** When the counter disappears (the period end, or earlier with Kong's counter TTL). */
  expiresAtMs: number;
}

export interface CalendarWindowsInspection extends InspectionBase {
  kind: 'calendar-windows';
  align: 'calendar' | 'epoch';
  countRejected: boolean;
  /** envoyproxy/ratelimit shadow_mode: over-limit requests are answered OK (and counted). */
  shadowMode?: boolean;
  /** One per configured unit, shortest first. */
  windows: readonly CalendarWindowState[];
}

export type Inspection =
  | FixedWindowInspection
  | SlidingLogInspection
  | SlidingWindowCounterInspection
  | TokenBucketInspection
  | LeakyBucketInspection
  | GcraInspection
  | AnchoredWindowInspection
  | CalendarWindowsInspection;
