import type { SlidingLogInspection } from '../inspect';
import { KeyedLimiter } from '../keyed';
import type { Decision, SlidingLogConfig, StateSize } from '../types';

interface State {
  /** Logged times, ascending; entries before `head` are expired and waiting to be compacted away. */
  times: number[];
  head: number;
}

/** Bytes per log entry: one 64-bit timestamp (a Redis sorted-set member costs more; see README). */
const ENTRY_BYTES = 8;

/**
 * Sliding log: the log holds admitted requests' times (and rejected ones with `logRejected`); an entry
 * at t0 counts at t iff t − t0 < windowMs. Admit iff the count is below the limit. Expired entries are
 * dropped on every decision for the key, so memory follows the entries in the window.
 * A clock that goes backwards reasons at the newest stored time (elapsed counts as 0).
 * With `lastMsPasses` (caddy-ratelimit), a full log whose oldest entry is in its last millisecond
 * lets the request pass unlogged.
 */
export class SlidingLogLimiter extends KeyedLimiter<SlidingLogConfig, State> {
  private readonly logRejected = this.config.logRejected === true;
  private readonly lastMsPasses = this.config.lastMsPasses === true;

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const { limit, windowMs } = this.config;
    let s = this.find(key, k);
    if (s === undefined) {
      s = { times: [], head: 0 };
      this.put(key, k, s);
    }
    const times = s.times;
    const len = times.length;
    const newest = len > s.head ? (times[len - 1] as number) : nowMs;
    const t = newest > nowMs ? newest : nowMs;
    let head = s.head;
    while (head < len && t - (times[head] as number) >= windowMs) head += 1;
    if (head > 64 && head * 2 > len) {
      times.copyWithin(0, head);
      times.length = len - head;
      head = 0;
    }
    s.head = head;
    const n = times.length - head;
    if (n < limit) {
      times.push(t);
      return this.result('admit', 0, 0, limit - n - 1, limit, t + windowMs - nowMs);
    }
    // caddy-ratelimit: the oldest of the ring in its last millisecond lets the request through,
    // unlogged (its When() is 0 there). Without logRejected the log holds exactly `limit` here.
    const oldest = times[head] as number;
    if (this.lastMsPasses && t - oldest === windowMs - 1) {
      return this.result('admit', 0, 0, 0, limit, (times[len - 1] as number) + windowMs - nowMs);
    }
    if (this.logRejected) times.push(t);
    // Passing needs at most limit − 1 entries left: the (after − limit)-th oldest must have expired
    // (with lastMsPasses, be in its last millisecond).
    const after = times.length - head;
    const retryAt =
      (times[head + after - limit] as number) + windowMs - (this.lastMsPasses ? 1 : 0);
    const resetAt = (times[times.length - 1] as number) + windowMs;
    return this.result('reject', 0, retryAt - nowMs, 0, limit, resetAt - nowMs);
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): SlidingLogInspection {
    const { limit, windowMs } = this.config;
    const times = s?.times ?? [];
    const head = s?.head ?? 0;
    const newest = times.length > head ? (times[times.length - 1] as number) : nowMs;
    const t = newest > nowMs ? newest : nowMs;
    const entries: number[] = [];
    for (let i = head; i < times.length; i += 1) {
      const e = times[i] as number;
      if (t - e < windowMs) entries.push(e);
    }
    return {
      kind: 'sliding-log',
      key,
      nowMs,
      effectiveNowMs: t,
      seen: s !== undefined,
      limit,
      windowMs,
      entries,
      stored: times.length - head,
      logRejected: this.logRejected,
      lastMsPasses: this.lastMsPasses,
    };
  }

  protected copyState(s: State): State {
    return { times: s.times.slice(s.head), head: 0 };
  }

  private live(s: State, nowMs: number): number {
    const len = s.times.length;
    if (len === s.head) return 0;
    const newest = s.times[len - 1] as number;
    const t = newest > nowMs ? newest : nowMs;
    let n = 0;
    for (let i = len - 1; i >= s.head && t - (s.times[i] as number) < this.config.windowMs; i -= 1)
      n += 1;
    return n;
  }

  /** Only the entries still counting at nowMs decide later requests (expired ones are skipped). */
  protected override equalStates(a: State, b: State, nowMs: number): boolean {
    const n = this.live(a, nowMs);
    if (n !== this.live(b, nowMs)) return false;
    const ea = a.times.length;
    const eb = b.times.length;
    for (let i = 1; i <= n; i += 1) if (a.times[ea - i] !== b.times[eb - i]) return false;
    return true;
  }

  protected isIdle(s: State, nowMs: number): boolean {
    return this.live(s, nowMs) === 0;
  }

  protected sizeOf(s: State): StateSize {
    const entries = s.times.length - s.head;
    return { entries, bytes: entries * ENTRY_BYTES };
  }

  protected empty(): SlidingLogLimiter {
    return new SlidingLogLimiter(this.config, this.originMs);
  }
}
