import { floorDiv } from '../int';
import type { FixedWindowInspection } from '../inspect';
import { KeyedLimiter, fixedSize } from '../keyed';
import type { Decision, FixedWindowConfig, StateSize } from '../types';

/** Every state of this algorithm takes the same size (see fixedSize). */
const SIZE = fixedSize(1, 16);

interface State {
  /** Index of the window the count belongs to: ⌊(t + shift) / windowMs⌋. */
  window: number;
  count: number;
}

/**
 * Fixed window: windows aligned to the epoch (a Redis INCR key per ⌊now / windowMs⌋), so at virtual
 * t the window index is ⌊(t + originMs) / windowMs⌋, computed as ⌊(t + shift) / windowMs⌋ with
 * shift = originMs mod windowMs (small numbers; the index differs from the epoch's by a constant).
 * Admit iff the window's count is below the limit. A clock that goes backwards stays in the stored
 * window (elapsed counts as 0).
 */
export class FixedWindowLimiter extends KeyedLimiter<FixedWindowConfig, State> {
  override readonly keySizeMax = SIZE;
  private readonly shift =
    this.originMs - floorDiv(this.originMs, this.config.windowMs) * this.config.windowMs;
  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const { limit, windowMs } = this.config;
    const w = floorDiv(nowMs + this.shift, windowMs);
    let s = this.find(key, k);
    if (s === undefined) {
      s = { window: w, count: 0 };
      this.put(key, k, s);
    } else if (w > s.window) {
      // A new window: its count is 0, which always admits, so moving here on any request is safe.
      s.window = w;
      s.count = 0;
    }
    const endMs = (s.window + 1) * windowMs - this.shift;
    if (s.count < limit) {
      s.count += 1;
      return this.result('admit', 0, 0, limit - s.count, limit, endMs - nowMs);
    }
    return this.result('reject', 0, endMs - nowMs, 0, limit, endMs - nowMs);
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): FixedWindowInspection {
    const { limit, windowMs } = this.config;
    const w = floorDiv(nowMs + this.shift, windowMs);
    const window = s !== undefined && s.window > w ? s.window : w;
    const count = s !== undefined && s.window === window ? s.count : 0;
    const startMs = window * windowMs - this.shift;
    return {
      kind: 'fixed-window',
      key,
      nowMs,
      effectiveNowMs: window === w ? nowMs : startMs,
      seen: s !== undefined,
      limit,
      windowMs,
      windowStartMs: startMs,
      windowEndMs: startMs + windowMs,
      count,
    };
  }

  protected copyState(s: State): State {
    return { window: s.window, count: s.count };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    return floorDiv(nowMs + this.shift, this.config.windowMs) > s.window || s.count === 0;
  }

  protected sizeOf(): StateSize {
    return SIZE;
  }

  protected empty(): FixedWindowLimiter {
    return new FixedWindowLimiter(this.config, this.originMs);
  }
}
