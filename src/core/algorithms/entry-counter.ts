import { floorDiv, ceilDiv } from '../int';
import type { SlidingWindowCounterInspection } from '../inspect';
import { KeyedLimiter } from '../keyed';
import type { Decision, SlidingWindowCounterConfig, StateSize } from '../types';

/** One stick-table entry's `freq_ctr` (HAProxy 2.6 include/haproxy/freq_ctr-t.h). */
interface State {
  /** `curr_tick`: start of the current period (always even: its low bit is HAProxy's lock). */
  tick: number;
  /** `prev_ctr`: events counted in the period before. */
  prev: number;
  /** `curr_ctr`: events counted in the current period. */
  curr: number;
  /** The entry's last touch (stktable_touch_local), for `expire`; also the clock's high-water mark. */
  lastMs: number;
}

/** An entry's counters as a rotation leaves them (State without its last touch). */
interface Counters {
  tick: number;
  prev: number;
  curr: number;
}

/** Sets `v`'s counters; returns it. */
function set(v: Counters, tick: number, prev: number, curr: number): Counters {
  v.tick = tick;
  v.prev = prev;
  v.curr = curr;
  return v;
}

/** The tick with its lowest bit cleared (`curr_tick & ~1`), floored for negative times. */
const even = (t: number): number => t - (t - 2 * floorDiv(t, 2));

/**
 * The sliding-window counter anchored per entry: HAProxy 2.6's frequency counter as a stick-table's
 * `store http_req_rate(<period>)` keeps it, read by `sc_http_req_rate(0)` after
 * `http-request track-sc0 src`, with `http-request deny if { sc_http_req_rate(0) gt <limit> }`.
 *
 * - Counting (HAProxy 2.6 src/http_act.c, http_action_track_sc): the track-sc0 rule counts the
 *   request with update_freq_ctr_period(…, period, 1) when it starts tracking, before the deny rule
 *   is evaluated — so denied requests count too.
 * - Rotation (include/haproxy/freq_ctr.h, update_freq_ctr_period, 2.6): if now − curr_tick <
 *   period the event is added to curr_ctr; otherwise prev_ctr ← curr_ctr, curr_ctr ← the event,
 *   curr_tick += period, and if now − curr_tick ≥ period still ("we missed at least two periods")
 *   prev_ctr ← 0 and curr_tick ← now. The stored tick has its low bit cleared (`& ~1`: that bit is
 *   the rotation lock). A new entry is zeroed (src/stick_table.c __stksess_init), so its first
 *   event finds curr_tick = 0 far in the past and anchors the entry's period at now & ~1.
 * - Reading (src/freq_ctr.c freq_ctr_total with pend = −1, read_freq_ctr_period, 2.6): remain =
 *   curr_tick + period − now; total = prev·remain + curr·period; the rate is ⌊total / period⌋
 *   (div64_32). Its "flapping correction" (curr = 0 and prev ≤ 1 → prev) never applies here: the
 *   deny rule reads the counter right after this request was added, so curr ≥ 1.
 * - Expiry (src/stick_table.c, stktable_touch_local / process_table_expire, 2.6): every tracked
 *   request touches the entry (expire = now + the table's `expire`); an entry untouched that long is
 *   freed, and the key's next request starts a fresh entry.
 *
 * So a request at t is rejected iff curr + ⌊prev·(tick + period − t) / period⌋ > limit, with curr
 * counting this request. HAProxy's clock (global_now_ms) never goes backwards; here a time before the
 * key's last request is taken as that last request's time.
 */
export class EntryCounterLimiter extends KeyedLimiter<SlidingWindowCounterConfig, State> {
  private readonly expireMs = this.config.expireMs;

  /**
   * Scratch counters a decision rolls the entry into (`decideAt`, `remainingAt`): reused, so a
   * decision allocates nothing but a new key's entry.
   */
  private readonly rolledNow: Counters = { tick: 0, prev: 0, curr: 0 };
  private readonly rolledAfter: Counters = { tick: 0, prev: 0, curr: 0 };

  /** The entry as the next event at `t` finds it, rotated but before that event is counted. */
  private rolled(s: State | undefined, t: number): Counters {
    return this.rollInto({ tick: 0, prev: 0, curr: 0 }, s, t);
  }

  /** `rolled`, written into `v`. */
  private rollInto(v: Counters, s: State | undefined, t: number): Counters {
    const W = this.config.windowMs;
    if (s === undefined || this.expired(s, t)) return set(v, even(t), 0, 0);
    if (t - s.tick < W) return set(v, s.tick, s.prev, s.curr);
    const next = s.tick + W;
    if (t - next >= W) return set(v, even(t), 0, 0);
    return set(v, even(next), s.curr, 0);
  }

  private expired(s: State, t: number): boolean {
    return this.expireMs !== undefined && t - s.lastMs >= this.expireMs;
  }

  /** ⌊prev·(tick + W − t) / W⌋ + curr: read_freq_ctr_period at t. */
  private rate(v: Counters, t: number): number {
    const W = this.config.windowMs;
    return v.curr + floorDiv(v.prev * (v.tick + W - t), W);
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const { limit } = this.config;
    const s = this.find(key, k);
    const t = s !== undefined && s.lastMs > nowMs ? s.lastMs : nowMs;
    const v = this.rollInto(this.rolledNow, s, t);
    v.curr += 1; // track-sc0 counts it before the deny rule reads it
    let next: State;
    if (s === undefined) {
      next = { tick: v.tick, prev: v.prev, curr: v.curr, lastMs: t };
      this.put(key, k, next);
    } else {
      s.tick = v.tick;
      s.prev = v.prev;
      s.curr = v.curr;
      s.lastMs = t;
      next = s;
    }
    const rate = this.rate(v, t);
    const resetAt = this.resetAt(next);
    if (rate <= limit) {
      return this.result('admit', 0, 0, this.remainingAt(next, t), limit, resetAt - nowMs);
    }
    return this.result('reject', 0, this.retryAt(next, t) - nowMs, 0, limit, resetAt - nowMs);
  }

  /** When the entry decides as a new one: two periods after its tick, or when it expires. */
  private resetAt(s: State): number {
    const idle = s.tick + 2 * this.config.windowMs;
    return this.expireMs === undefined ? idle : Math.min(idle, s.lastMs + this.expireMs);
  }

  /** Further requests at `t` that are admitted, after the state `s` stored at `t`. */
  private remainingAt(s: State, t: number): number {
    const { limit } = this.config;
    // With an odd period the stored tick can sit exactly one period before t (the low bit
    // cleared after `tick += period`): the next request at t then rotates once more.
    const v = this.rollInto(this.rolledAfter, s, t);
    v.curr += 1;
    // From here the entry stays in its period at t (W ≥ 2): each further request adds one.
    const rest = limit - this.rate(v, t);
    return rest < 0 ? 0 : rest + 1;
  }

  /** The first time after `t` at which a request for this key is admitted (state `s` stored at t). */
  private retryAt(s: State, t: number): number {
    const { limit: L, windowMs: W } = this.config;
    // The earliest of the candidates below (a running minimum: no array a decision).
    let first = Math.max(t + 1, s.tick + 2 * W);
    if (this.expireMs !== undefined) first = Math.min(first, s.lastMs + this.expireMs);
    // Still in the entry's period: (curr + 1) + ⌊prev·(tick + W − u)/W⌋ ≤ L
    // ⟺ prev·(tick + W − u) < (L − curr)·W.
    if (L - s.curr >= 1) {
      const u =
        s.prev === 0 ? t + 1 : Math.max(t + 1, s.tick + W - ceilDiv((L - s.curr) * W, s.prev) + 1);
      if (u < s.tick + W) first = Math.min(first, u);
    }
    // In the next period: prev ← curr, curr ← 1, tick' = (tick + W) & ~1:
    // 1 + ⌊curr·(tick' + W − u)/W⌋ ≤ L ⟺ curr·(tick' + W − u) < L·W.
    const tick2 = even(s.tick + W);
    const u2 = Math.max(t + 1, s.tick + W, tick2 + W - ceilDiv(L * W, s.curr) + 1);
    if (u2 < s.tick + 2 * W) first = Math.min(first, u2);
    return first;
  }

  protected inspectAt(
    nowMs: number,
    key: string,
    s: State | undefined,
  ): SlidingWindowCounterInspection {
    const { limit, windowMs: W } = this.config;
    const t = s !== undefined && s.lastMs > nowMs ? s.lastMs : nowMs;
    const v = this.rolled(s, t);
    const e = t - v.tick;
    return {
      kind: 'sliding-window-counter',
      key,
      nowMs,
      effectiveNowMs: t,
      seen: s !== undefined,
      limit,
      windowMs: W,
      anchor: 'entry',
      windowStartMs: v.tick,
      previousCount: v.prev,
      currentCount: v.curr,
      elapsedMs: e,
      estimate: (v.prev * (W - e)) / W + v.curr,
    };
  }

  protected copyState(s: State): State {
    return { ...s };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    const t = Math.max(nowMs, s.lastMs);
    return t >= this.resetAt(s);
  }

  protected sizeOf(): StateSize {
    // A stick-table entry's freq_ctr: curr_tick, curr_ctr, prev_ctr (3 × 4 bytes), plus the
    // entry's expire tick; the key and tree nodes are not counted here.
    return { entries: 1, bytes: 16 };
  }

  protected empty(): EntryCounterLimiter {
    return new EntryCounterLimiter(this.config, this.originMs);
  }
}
