import type { AnchoredWindowInspection } from '../inspect';
import { NEVER_MS } from '../int';
import { KeyedLimiter } from '../keyed';
import type { AnchoredWindowConfig, Decision, StateSize } from '../types';

interface State {
  /** The request that opened the window. */
  startMs: number;
  /**
   * The window (or block) ends here: a request at resetAtMs or later opens a new window.
   * Infinity for a record that never expires (windowMs 0).
   */
  resetAtMs: number;
  /** Requests counted in this window. */
  count: number;
  /** A rate-limiter-flexible block has replaced the window's end. */
  blocked: boolean;
}

/**
 * A fixed window anchored at each key's first request.
 *
 * express-rate-limit 8.7.5 `source/memory-store.ts` (MemoryStore.increment): a client whose
 * `resetTime <= now` is reset (count 0, resetTime = now + windowMs), then `totalHits++`; the
 * middleware (`source/rate-limit.ts`) rejects when `totalHits > limit`. So the count is taken before
 * the comparison and rejected requests count too.
 *
 * rate-limiter-flexible 11.4.0 `lib/component/MemoryStorage/MemoryStorage.js` (incrby): a record
 * lives while `expiresAt − now > 0`; otherwise it is replaced by a new one expiring at
 * now + duration. `lib/RateLimiterMemory.js` (consume): reject when consumed > points; with
 * `blockDuration > 0`, the first such request (consumed ≤ points + 1) re-sets the record to expire
 * at now + blockDuration; with `execEvenly`, an admitted request that is not the record's first
 * waits ⌈msBeforeNext / (remaining points + 2)⌉ ms, or consumed · execEvenlyMinDelayMs when that is
 * less than execEvenlyMinDelayMs (by default ⌈duration / points⌉, lib/RateLimiterAbstract.js).
 * `cost` is consume()'s points: added before the comparison (consumed > points rejects).
 *
 * `windowMs` 0 is rate-limiter-flexible's `duration: 0` ("0 = never expires",
 * lib/RateLimiterAbstract.js): MemoryStorage.set stores the record with `expiresAt` null and no
 * expiry timer, and incrby keeps adding to a record without `expiresAt` forever. Only a block
 * (set() with blockDuration) gives it an end; when that ends, the next consume starts a new record
 * that again never expires. execEvenly never delays then: consume() delays only when
 * `msBeforeNext > 0`, and a never-expiring record reports −1.
 *
 * A clock that goes backwards keeps the live window (both compare the stored reset time with now).
 */
export class AnchoredWindowLimiter extends KeyedLimiter<AnchoredWindowConfig, State> {
  private readonly countRejected = this.config.countRejected === true;
  private readonly blockMs = this.config.blockMs ?? 0;
  private readonly execEvenly = this.config.execEvenly === true;
  /** RateLimiterAbstract.js _getExecEvenlyMinDelayMsDefault: ⌈duration / points⌉ ms. */
  private readonly minDelayMs =
    this.config.execEvenlyMinDelayMs ?? Math.ceil(this.config.windowMs / this.config.limit);
  private readonly cost = this.config.cost ?? 1;

  /** The end of a window opened at `nowMs`: never (Infinity) when windowMs is 0. */
  private endOf(nowMs: number): number {
    const { windowMs } = this.config;
    return windowMs === 0 ? Number.POSITIVE_INFINITY : nowMs + windowMs;
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const { limit } = this.config;
    let s = this.find(key, k);
    let first = false;
    if (s === undefined) {
      s = { startMs: nowMs, resetAtMs: this.endOf(nowMs), count: 0, blocked: false };
      this.put(key, k, s);
      first = true;
    } else if (s.resetAtMs <= nowMs) {
      s.startMs = nowMs;
      s.resetAtMs = this.endOf(nowMs);
      s.count = 0;
      s.blocked = false;
      first = true;
    }
    const cost = this.cost;
    if (s.count + cost <= limit) {
      s.count += cost;
      // RateLimiterMemory's remainingPoints; `remaining` counts requests of this cost.
      const points = limit - s.count;
      const untilReset = Math.min(s.resetAtMs - nowMs, NEVER_MS);
      // A never-expiring record's msBeforeNext is −1: consume() does not delay it.
      if (this.execEvenly && !first && untilReset !== NEVER_MS) {
        let delayMs = Math.ceil(untilReset / (points + 2));
        if (delayMs < this.minDelayMs) delayMs = s.count * this.minDelayMs;
        // Every further request at this instant is delayed too: none would be admitted as is.
        if (delayMs > 0) return this.result('delay', delayMs, 0, 0, limit, untilReset);
      }
      // With execEvenly the next request at this instant is not the window's first: it waits.
      const remaining = this.execEvenly ? 0 : Math.floor(points / cost);
      return this.result('admit', 0, 0, remaining, limit, untilReset);
    }
    // Rejected. The first reject of a window may start a block (rate-limiter-flexible).
    if (this.countRejected) s.count += cost;
    if (this.blockMs > 0 && !s.blocked) {
      s.blocked = true;
      s.resetAtMs = nowMs + this.blockMs;
    }
    const wait = Math.min(s.resetAtMs - nowMs, NEVER_MS);
    return this.result('reject', 0, wait, 0, limit, wait);
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): AnchoredWindowInspection {
    const live = s !== undefined && s.resetAtMs > nowMs;
    return {
      kind: 'anchored-window',
      key,
      nowMs,
      effectiveNowMs: nowMs,
      seen: s !== undefined,
      limit: this.config.limit,
      windowMs: this.config.windowMs,
      windowStartMs: live ? s.startMs : null,
      resetAtMs: live && s.resetAtMs !== Number.POSITIVE_INFINITY ? s.resetAtMs : null,
      count: live ? s.count : 0,
      blocked: live ? s.blocked : false,
    };
  }

  protected copyState(s: State): State {
    return { ...s };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    return s.resetAtMs <= nowMs;
  }

  protected sizeOf(): StateSize {
    // express-rate-limit's Client: { totalHits, resetTime } — two numbers.
    return { entries: 1, bytes: 16 };
  }

  protected empty(): AnchoredWindowLimiter {
    return new AnchoredWindowLimiter(this.config, this.originMs);
  }
}
