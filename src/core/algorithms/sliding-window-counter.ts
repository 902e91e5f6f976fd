import { ceilDiv, floorDiv } from '../int';
import type { SlidingWindowCounterInspection } from '../inspect';
import { KeyedLimiter, fixedSize } from '../keyed';
import type { Decision, SlidingWindowCounterConfig, StateSize } from '../types';

/** Every state of this algorithm takes the same size (see fixedSize). */
const SIZE = fixedSize(1, 32);

interface State {
  /** The window `current` belongs to: ⌊(t + shift) / windowMs⌋. */
  window: number;
  previous: number;
  current: number;
  /** Time of the last admitted request: a clock that goes backwards reasons at this time. */
  lastMs: number;
}

/**
 * Cloudflare's sliding-window counter
 * (https://blog.cloudflare.com/counting-things-a-lot-of-different-things/): aligned windows; with
 * p = previous window's count, c = current count, e = t − window start,
 * estimate = p·(W − e)/W + c. Admit iff estimate < limit, compared scaled by W so it stays exact:
 * p·(W − e) + c·W < limit·W. Windows start at multiples of W since 1970 (UTC): at virtual t the
 * window is ⌊(t + shift) / W⌋ with shift = originMs mod W.
 */
export class SlidingWindowCounterLimiter extends KeyedLimiter<SlidingWindowCounterConfig, State> {
  override readonly keySizeMax = SIZE;
  private readonly shift =
    this.originMs - floorDiv(this.originMs, this.config.windowMs) * this.config.windowMs;
  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const { limit, windowMs: W } = this.config;
    const s = this.find(key, k);
    const t = s !== undefined && s.lastMs > nowMs ? s.lastMs : nowMs;
    const window = floorDiv(t + this.shift, W);
    // Roll the counts forward to `window` without storing them: a rejected request changes nothing.
    let p = 0;
    let c = 0;
    if (s !== undefined) {
      if (window === s.window) {
        p = s.previous;
        c = s.current;
      } else if (window === s.window + 1) {
        p = s.current;
      }
    }
    const startMs = window * W - this.shift;
    const e = t - startMs;
    const budget = limit * W - p * (W - e);
    if (c * W < budget) {
      c += 1;
      if (s === undefined) this.put(key, k, { window, previous: p, current: c, lastMs: t });
      else {
        s.window = window;
        s.previous = p;
        s.current = c;
        s.lastMs = t;
      }
      const remaining = Math.max(0, ceilDiv(budget, W) - c);
      return this.result('admit', 0, 0, remaining, limit, startMs + 2 * W - nowMs);
    }
    // The earliest time a request passes: later in this window as the previous count's weight
    // shrinks, or else early in the next one, where this window's count becomes the previous.
    let retryAt: number;
    const inWindow = p > 0 && c < limit ? floorDiv((p + c - limit) * W, p) + 1 : W;
    if (inWindow < W) retryAt = startMs + inWindow;
    else retryAt = startMs + W + (c > 0 ? Math.max(0, floorDiv((c - limit) * W, c) + 1) : 0);
    const resetAt = c > 0 ? startMs + 2 * W : startMs + W;
    return this.result('reject', 0, retryAt - nowMs, 0, limit, resetAt - nowMs);
  }

  protected inspectAt(
    nowMs: number,
    key: string,
    s: State | undefined,
  ): SlidingWindowCounterInspection {
    const { limit, windowMs: W } = this.config;
    const t = s !== undefined && s.lastMs > nowMs ? s.lastMs : nowMs;
    const window = floorDiv(t + this.shift, W);
    let p = 0;
    let c = 0;
    if (s !== undefined) {
      if (window === s.window) {
        p = s.previous;
        c = s.current;
      } else if (window === s.window + 1) {
        p = s.current;
      }
    }
    const startMs = window * W - this.shift;
    const e = t - startMs;
    return {
      kind: 'sliding-window-counter',
      key,
      nowMs,
      effectiveNowMs: t,
      seen: s !== undefined,
      limit,
      windowMs: W,
      windowStartMs: startMs,
      previousCount: p,
      currentCount: c,
      elapsedMs: e,
      estimate: (p * (W - e)) / W + c,
    };
  }

  protected copyState(s: State): State {
    return { window: s.window, previous: s.previous, current: s.current, lastMs: s.lastMs };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    const window = floorDiv(Math.max(nowMs, s.lastMs) + this.shift, this.config.windowMs);
    return window >= s.window + 2 || (window === s.window + 1 && s.current === 0);
  }

  protected sizeOf(): StateSize {
    return SIZE;
  }

  protected empty(): SlidingWindowCounterLimiter {
    return new SlidingWindowCounterLimiter(this.config, this.originMs);
  }
}
