import { ceilDiv, floorDiv, waitFits } from '../int';
import type { TokenBucketInspection } from '../inspect';
import { KeyedLimiter, fixedSize } from '../keyed';
import type { Decision, StateSize, TokenBucketConfig } from '../types';
import { addRelease, pendingReleases, pruneReleases } from './releases';

/** Every state of this algorithm takes the same size (see fixedSize). */
const SIZE = fixedSize(1, 16);

interface State {
  /**
   * Tokens. Continuous refill: scaled by fillIntervalMs (one token = fillIntervalMs units, and
   * tokensPerFill units arrive every ms), so refill is exact. Interval refill: whole tokens.
   * Negative while tokens are reserved by delayed requests (`maxDelayMs`).
   */
  level: number;
  /** The time `level` was computed at; a clock that goes backwards reasons at this time. */
  lastMs: number;
  /** Release times of delayed requests (drawing only). */
  releases: number[] | null;
  /** The last request's time, of any outcome (only read with `idleResetS`). */
  touchedMs: number;
}

/**
 * Envoy's `TokenBucket` (envoy.type.v3.TokenBucket: max_tokens, tokens_per_fill, fill_interval),
 * starting full.
 *
 * - refill 'continuous' (Envoy ≥ 1.31, source/common/common/token_bucket_impl.cc
 *   `AtomicTokenBucketImpl`): tokens grow at tokens_per_fill / fill_interval per ms, capped.
 * - refill 'interval' (Envoy's older timer): tokens_per_fill whole tokens at every k·fill_interval.
 *
 * A request takes one token if there is one. With `maxDelayMs` > 0 it otherwise reserves the next
 * token not yet promised and waits for it, as golang.org/x/time/rate `Reserve` does
 * (`tokens -= n; wait = durationFromTokens(-tokens)`), when that wait is at most maxDelayMs.
 */
export class TokenBucketLimiter extends KeyedLimiter<TokenBucketConfig, State> {
  override readonly keySizeMax = SIZE;
  private readonly interval = this.config.refill === 'interval';
  private readonly maxDelayMs = this.config.maxDelayMs ?? 0;
  /** The maximum delay in ns: maxDelayNs, else maxDelayMs (see waitFits). */
  private readonly maxDelayNs = this.config.maxDelayNs ?? this.maxDelayMs * 1_000_000;
  /** Units per token: fillIntervalMs (continuous) or 1 (interval). */
  private readonly unit = this.interval ? 1 : this.config.fillIntervalMs;
  private readonly full = this.config.maxTokens * this.unit;
  private readonly idleResetS = this.config.idleResetS ?? 0;
  /**
   * Continuous refill, no token: when the next token and the full bucket are reached depends only
   * on the stored level and time, not on when it is asked (see `emptyUntil`). Kept for the last
   * (level, lastMs) asked about: a run of rejected requests between two admits asks the same
   * (two exact divisions per rejection were a third of a decision's time).
   */
  private memoLevel = Number.NaN;
  private memoLastMs = Number.NaN;
  private memoTokenAt = 0;
  private memoFullAt = 0;
  /** See rejectsUntil: set by every rejection. */
  private rejectUntilMs = Number.NEGATIVE_INFINITY;

  /** Traefik's ttlmap: the key expired (whole Unix seconds) and starts again full. */
  private expired(s: State, t: number): boolean {
    return (
      this.idleResetS > 0 &&
      Math.floor(t / 1000) >= Math.floor(s.touchedMs / 1000) + this.idleResetS
    );
  }

  /** Tokens (in units) at time t ≥ s.lastMs. */
  private levelAt(s: State, t: number): number {
    const { tokensPerFill, fillIntervalMs } = this.config;
    if (this.interval) {
      const fills = floorDiv(t, fillIntervalMs) - floorDiv(s.lastMs, fillIntervalMs);
      return fills > 0 ? Math.min(this.full, s.level + fills * tokensPerFill) : s.level;
    }
    // Exact while the sum is below `full` (both terms are integers and small); a huge elapsed time
    // only makes the product inexact where the cap wins anyway.
    return Math.min(this.full, s.level + (t - s.lastMs) * tokensPerFill);
  }

  /** When the bucket holds `target` units, starting from `level` at time t (t when already there). */
  private timeToReach(level: number, t: number, target: number): number {
    if (level >= target) return t;
    const { tokensPerFill, fillIntervalMs } = this.config;
    if (this.interval) {
      return (
        (floorDiv(t, fillIntervalMs) + ceilDiv(target - level, tokensPerFill)) * fillIntervalMs
      );
    }
    return t + ceilDiv(target - level, tokensPerFill);
  }

  /**
   * Continuous refill, `s` holding less than one token at t ≥ s.lastMs: sets memoTokenAt and
   * memoFullAt to timeToReach(levelAt(s, t), t, unit) and (…, full). Below a token the cap does
   * not bind, so levelAt(s, t) = s.level + (t − s.lastMs)·tokensPerFill, and for whole m and d,
   * ⌈(m − d·p) / p⌉ = ⌈m / p⌉ − d: both times are s.lastMs + ⌈(target − s.level) / tokensPerFill⌉,
   * whatever t is (an identity on whole numbers; the results are the same to the bit).
   */
  private emptyUntil(s: State): void {
    if (s.level === this.memoLevel && s.lastMs === this.memoLastMs) return;
    const { tokensPerFill } = this.config;
    this.memoLevel = s.level;
    this.memoLastMs = s.lastMs;
    this.memoTokenAt = s.lastMs + ceilDiv(this.unit - s.level, tokensPerFill);
    this.memoFullAt = s.lastMs + ceilDiv(this.full - s.level, tokensPerFill);
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const limit = this.config.maxTokens;
    const unit = this.unit;
    let s = this.find(key, k);
    let t = nowMs;
    let level = this.full;
    if (s !== undefined && this.expired(s, nowMs)) {
      this.forget(key);
      s = undefined;
    }
    if (s !== undefined) {
      if (s.lastMs > t) t = s.lastMs;
      level = this.levelAt(s, t);
    }
    if (level >= unit) {
      level -= unit;
      s = this.store(key, k, s, level, t);
      if (s.releases !== null) pruneReleases(s.releases, nowMs);
      const resetMs = this.timeToReach(level, t, this.full) - nowMs;
      return this.result('admit', 0, 0, floorDiv(level, unit), limit, resetMs);
    }
    // No token: when does the next one not yet promised exist? (A new key starts full: s is set.)
    let tokenAt: number;
    let resetAt: number;
    if (!this.interval && s !== undefined) {
      this.emptyUntil(s);
      tokenAt = this.memoTokenAt;
      resetAt = this.memoFullAt;
    } else {
      tokenAt = this.timeToReach(level, t, unit);
      resetAt = this.timeToReach(level, t, this.full);
    }
    // The wait to the token in ms as a fraction: exact for continuous refill, whole for interval.
    const waitNum = this.interval ? tokenAt - t : unit - level;
    const waitDen = this.interval ? 1 : this.config.tokensPerFill;
    const delays = this.maxDelayNs > 0;
    if (delays && waitFits(waitNum, waitDen, this.maxDelayNs)) {
      level -= unit;
      s = this.store(key, k, s, level, t);
      const delayMs = tokenAt - t;
      s.releases ??= [];
      pruneReleases(s.releases, nowMs);
      addRelease(s.releases, nowMs + delayMs);
      const resetMs = this.timeToReach(level, t, this.full) - nowMs;
      return this.result('delay', delayMs, 0, 0, limit, resetMs);
    }
    const retryAt = delays ? t + this.firstFit(waitNum, waitDen) : tokenAt;
    // Traefik refreshes the expiry before it reserves: a rejected request keeps the key alive.
    if (s !== undefined && this.idleResetS > 0) s.touchedMs = Math.max(s.touchedMs, t);
    // Continuous refill, no idle reset, nothing stored ahead of now: until retryAt the level stays
    // below a token beyond what maxDelayMs may wait for (emptyUntil), and a rejection stores
    // nothing, so the same key is rejected with the same retryAt and resetAt.
    this.rejectUntilMs =
      !this.interval && this.idleResetS === 0 && s !== undefined && s.lastMs <= nowMs
        ? retryAt
        : Number.NEGATIVE_INFINITY;
    return this.result('reject', 0, retryAt - nowMs, 0, limit, resetAt - nowMs);
  }

  /**
   * The whole ms d ≥ 0 after which a wait of num / den ms, shrinking by 1 ms per ms, first fits the
   * maximum delay (waitFits). Starts at least one ms before it and steps forward (at most 3 steps).
   */
  private firstFit(num: number, den: number): number {
    let d = Math.max(0, ceilDiv(num, den) - Math.ceil(this.maxDelayNs / 1_000_000) - 2);
    while (!waitFits(num - d * den, den, this.maxDelayNs)) d += 1;
    return d;
  }

  /**
   * After a rejection at nowMs (continuous refill, no idle reset, s.lastMs ≤ nowMs): a request of
   * the same key at t in [nowMs, retryAt) finds the state unchanged, less than a token in it (t is
   * before tokenAt, the first time with a whole token), and the same tokenAt and fullAt
   * (emptyUntil: they depend on the stored level and time only). So its wait tokenAt − t passes
   * maxDelayMs, and it is rejected with retryAt − t and resetAt − t.
   */
  override rejectsUntil(): number {
    return this.rejectUntilMs;
  }

  private store(key: string, k: number, s: State | undefined, level: number, t: number): State {
    if (s === undefined) {
      s = { level, lastMs: t, releases: null, touchedMs: t };
      this.put(key, k, s);
    } else {
      s.level = level;
      s.lastMs = t;
      s.touchedMs = Math.max(s.touchedMs, t);
    }
    return s;
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): TokenBucketInspection {
    const { maxTokens, tokensPerFill, fillIntervalMs } = this.config;
    if (s !== undefined && this.expired(s, nowMs)) s = undefined;
    const unit = this.unit;
    const t = s !== undefined && s.lastMs > nowMs ? s.lastMs : nowMs;
    const level = s === undefined ? this.full : this.levelAt(s, t);
    const nextWhole = (floorDiv(level, unit) + 1) * unit;
    return {
      kind: 'token-bucket',
      key,
      nowMs,
      effectiveNowMs: t,
      seen: s !== undefined,
      limit: maxTokens,
      refill: this.interval ? 'interval' : 'continuous',
      maxTokens,
      tokensPerFill,
      fillIntervalMs,
      maxDelayMs: this.maxDelayMs,
      tokens: level / unit,
      debt: level < 0 ? -level / unit : 0,
      nextTokenAtMs: level >= this.full ? null : this.timeToReach(level, t, nextWhole),
      fullAtMs: this.timeToReach(level, t, this.full),
      releases: pendingReleases(s?.releases ?? null, nowMs),
    };
  }

  protected copyState(s: State): State {
    return {
      level: s.level,
      lastMs: s.lastMs,
      releases: s.releases === null ? null : s.releases.slice(),
      touchedMs: s.touchedMs,
    };
  }

  protected isIdle(s: State, nowMs: number): boolean {
    if (nowMs >= s.lastMs && this.expired(s, nowMs)) return true;
    return nowMs >= s.lastMs && this.levelAt(s, nowMs) >= this.full;
  }

  protected sizeOf(): StateSize {
    return SIZE;
  }

  protected empty(): TokenBucketLimiter {
    return new TokenBucketLimiter(this.config, this.originMs);
  }
}
