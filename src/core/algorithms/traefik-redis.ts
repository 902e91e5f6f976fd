/**
 * Traefik's Redis limiter (RateLimit's `redis:` option, traefik v3.7.9): how Traefik instances
 * share a bucket. Each request runs one Lua script in Redis, atomically, and Traefik decides from
 * the wait it returns. Replayed here in the same double operations in the same order (JavaScript's
 * numbers and Lua 5.1's are both IEEE-754 doubles), so the wait string, the delay and the decision
 * are Traefik's.
 *
 * Read from pkg/middlewares/ratelimiter/lua.go, redis_limiter.go and rate_limiter.go @ v3.7.9:
 * - redis_limiter.go passes limit = float64(rate / 1e6) tokens per µs (rate = rate_limiter.go's
 *   rtl; go-redis writes it with strconv 'f', -1, which Lua reads back to the same double), burst,
 *   ttl in seconds, t = time.Now().UnixMicro() and max_delay = maxDelay.Microseconds() (truncated).
 * - lua.go: a key without its hash starts at tokens 0, last 0 (its first refill, limit · t, fills
 *   it); `last` is clamped to t; tokens = min(tokens + limit · (t − last), burst) − 1; below 0 the
 *   wait is −tokens / limit µs, and a wait above max_delay gives the token back
 *   (min(tokens + 1, burst)). Either way it stores last = t and the tokens and sets the key to
 *   expire in ttl seconds; it returns tostring(wait), Lua 5.1's "%.14g".
 * - redis_limiter.go parses the wait (strconv.ParseFloat) into time.Duration(wait · 1000) ns,
 *   truncated; rate_limiter.go answers 429 when that is above maxDelay (ns), else waits it and
 *   passes the request. The script compared whole µs: a wait between ⌊maxDelay⌋ µs and maxDelay
 *   passes without having taken its token.
 * - Redis (db.c keyIsExpired, 7.0) drops the key once its clock is past the expiry time (ms).
 *
 * The lab has one clock: the script's t is the wall time in µs and Redis's clock the same in ms,
 * counted from TRAEFIK_REDIS_EPOCH_MS at the scenario's time 0.
 */
import { KeyedLimiter, fixedSize } from '../keyed';
import type { TokenBucketInspection, TraefikRedisKey, TraefikRedisParams } from '../inspect';

// The script's arguments and a key's stored hash are declared with the inspection that shows them.
export type { TraefikRedisKey, TraefikRedisParams };
import type { Decision, StateSize, TokenBucketConfig } from '../types';
import { addRelease, pendingReleases, pruneReleases } from './releases';

/**
 * The Unix time (ms) of the scenario's time 0 for the script's clock: 2026-01-01T00:00:00Z, the
 * instant the responses' wall clock starts at too (SCENARIO_EPOCH_MS in src/systems/response.ts).
 */
export const TRAEFIK_REDIS_EPOCH_MS = 1_767_225_600_000;

/**
 * What Traefik reads back from Lua's tostring of a wait a ≥ 0: Lua 5.1 writes "%.14g" (luaconf.h
 * LUA_NUMBER_FMT: 14 significant digits, glibc rounding the exact value half to even) and
 * strconv.ParseFloat reads the decimal back, correctly rounded, as Number does. toPrecision rounds
 * the exact value too, but a tie away from zero: a tie (an exact value of 15 significant digits
 * ending in 5) whose 14th digit is even is rounded down instead.
 */
export function luaRoundTrip(a: number): number {
  // Below 10^-4 µs the delay truncates to 0 ns however the wait is written.
  if (a < 1e-4) return a;
  // Exact: a double of at least 10^-4 has fewer than 70 significant digits.
  const s = a.toExponential(99);
  const e = s.indexOf('e');
  const tie = s[15] === '5' && /^0*$/.test(s.slice(16, e));
  if (tie && '02468'.includes(s[14] as string)) return Number(s.slice(0, 15) + s.slice(e));
  return Number(a.toPrecision(14));
}

/** Traefik's script arguments for a token bucket of average `tokensPerFill` per `fillIntervalMs`. */
export function traefikRedisParams(config: TokenBucketConfig): TraefikRedisParams {
  const { tokensPerFill: average, fillIntervalMs: periodMs, maxTokens } = config;
  // rate_limiter.go: rtl = float64(average · int64(time.Second)) / float64(period in ns); maxDelay
  // 500 ms below 1/s, else time.Second / (time.Duration(rtl) · 2) (integer ns); ttl 1, plus 1 when
  // rtl ≥ 1, else int(1 / rtl) (the float64 quotient, truncated).
  const rtl = (average * 1e9) / (periodMs * 1e6);
  const maxDelayNs = rtl < 1 ? 500_000_000 : Math.floor(1e9 / (Math.trunc(rtl) * 2));
  return {
    limit: rtl / 1_000_000,
    burst: Math.max(maxTokens, 1),
    ttl: 1 + (rtl >= 1 ? 1 : Math.trunc(1 / rtl)),
    maxDelayUs: Math.trunc(maxDelayNs / 1000),
    maxDelayNs,
  };
}

/** What one request got from the script and what Traefik did with it. */
export interface TraefikRedisStep {
  /** The script's wait in µs (it returns tostring of it). */
  waitUs: number;
  /** time.Duration of the wait: ns, truncated. */
  delayNs: number;
  /** 429 when delayNs > maxDelay; 'delay' when it waits a positive delay; else 'admit'. */
  outcome: 'admit' | 'delay' | 'reject';
}

/** Whether Redis has dropped `key` by Unix ms `nowMs` (db.c keyIsExpired: now > when). */
export function traefikRedisExpired(key: TraefikRedisKey, nowMs: number): boolean {
  return nowMs > key.expiresAtMs;
}

/**
 * One request at Unix ms `nowMs` against the key's state `key` (undefined: no such key); `key` is
 * not changed. Returns the step and the key's state after it.
 */
export function traefikRedisStep(
  p: TraefikRedisParams,
  key: TraefikRedisKey | undefined,
  nowMs: number,
): { step: TraefikRedisStep; key: TraefikRedisKey } {
  const live = key !== undefined && !traefikRedisExpired(key, nowMs) ? key : undefined;
  const t = nowMs * 1000;
  let last = live === undefined ? 0 : live.lastUs;
  if (t < last) last = t;
  const elapsed = t - last;
  const delta = p.limit * elapsed;
  let tokens = (live === undefined ? 0 : live.tokens) + delta;
  tokens = Math.min(tokens, p.burst);
  tokens = tokens - 1;
  let wait = 0;
  if (tokens < 0) {
    wait = (tokens * -1) / p.limit;
    if (wait > p.maxDelayUs) {
      tokens = tokens + 1;
      tokens = Math.min(tokens, p.burst);
    }
  }
  const delayNs = Math.trunc(luaRoundTrip(wait) * 1000);
  const outcome = delayNs > p.maxDelayNs ? 'reject' : delayNs > 0 ? 'delay' : 'admit';
  return {
    step: { waitUs: wait, delayNs, outcome },
    key: { tokens, lastUs: t, expiresAtMs: nowMs + p.ttl * 1000 },
  };
}

interface State extends TraefikRedisKey {
  /** Release times of delayed requests (drawing only). */
  releases: number[] | null;
}

const SIZE = fixedSize(1, 16);

/**
 * Traefik's shared bucket for one config: each key a Redis hash decided by traefikRedisStep.
 * Decisions: 'reject' (429) with the ms until a request would pass, 'delay' with the delay rounded
 * up to whole ms (drawn so), 'admit'.
 */
export class TraefikRedisLimiter extends KeyedLimiter<TokenBucketConfig, State> {
  override readonly keySizeMax = SIZE;
  private readonly p = traefikRedisParams(this.config);

  /** Tokens the script would find at scenario ms `nowMs` before taking one. */
  private tokensAt(s: State | undefined, nowMs: number): number {
    const unixMs = TRAEFIK_REDIS_EPOCH_MS + nowMs;
    const live = s !== undefined && !traefikRedisExpired(s, unixMs) ? s : undefined;
    const t = unixMs * 1000;
    const last = live === undefined ? 0 : Math.min(live.lastUs, t);
    return Math.min(
      (live === undefined ? 0 : live.tokens) + this.p.limit * (t - last),
      this.p.burst,
    );
  }

  /** Whole ms from `nowMs` until the bucket holds `target` tokens (0 when it does). */
  private msUntil(tokens: number, target: number): number {
    return tokens >= target ? 0 : Math.ceil((target - tokens) / this.p.limit / 1000);
  }

  protected decideAt(nowMs: number, key: string, k: number): Decision {
    const s = this.find(key, k);
    const { step, key: after } = traefikRedisStep(this.p, s, TRAEFIK_REDIS_EPOCH_MS + nowMs);
    let st = s;
    if (st === undefined) {
      st = { ...after, releases: null };
      this.put(key, k, st);
    } else {
      st.tokens = after.tokens;
      st.lastUs = after.lastUs;
      st.expiresAtMs = after.expiresAtMs;
    }
    const limit = this.config.maxTokens;
    const resetMs = this.msUntil(after.tokens, this.p.burst);
    if (step.outcome === 'reject') {
      return this.result('reject', 0, this.retryAfter(st, nowMs), 0, limit, resetMs);
    }
    if (st.releases !== null) pruneReleases(st.releases, nowMs);
    if (step.outcome === 'delay') {
      const delayMs = Math.ceil(step.delayNs / 1_000_000);
      st.releases ??= [];
      addRelease(st.releases, nowMs + delayMs);
      return this.result('delay', delayMs, 0, 0, limit, resetMs);
    }
    return this.result('admit', 0, 0, Math.max(0, Math.floor(after.tokens)), limit, resetMs);
  }

  /**
   * The whole ms d ≥ 1 after which a request of the key (state `s` after a 429 at `nowMs`) would
   * pass: from just before the estimate (the refill covers the wait beyond maxDelay), stepping on.
   */
  private retryAfter(s: State, nowMs: number): number {
    const need = (1 - this.tokensAt(s, nowMs)) / this.p.limit - this.p.maxDelayNs / 1000;
    let d = Math.max(1, Math.floor(need / 1000) - 1);
    while (
      traefikRedisStep(this.p, s, TRAEFIK_REDIS_EPOCH_MS + nowMs + d).step.outcome === 'reject'
    )
      d += 1;
    return d;
  }

  protected inspectAt(nowMs: number, key: string, s: State | undefined): TokenBucketInspection {
    const { maxTokens, tokensPerFill, fillIntervalMs } = this.config;
    const unixMs = TRAEFIK_REDIS_EPOCH_MS + nowMs;
    const live = s !== undefined && !traefikRedisExpired(s, unixMs);
    const tokens = this.tokensAt(s, nowMs);
    return {
      kind: 'token-bucket',
      key,
      nowMs,
      effectiveNowMs: nowMs,
      seen: live,
      limit: maxTokens,
      refill: 'continuous',
      maxTokens,
      tokensPerFill,
      fillIntervalMs,
      maxDelayMs: this.config.maxDelayMs ?? 0,
      tokens,
      debt: tokens < 0 ? -tokens : 0,
      nextTokenAtMs:
        tokens >= this.p.burst ? null : nowMs + this.msUntil(tokens, Math.floor(tokens) + 1),
      fullAtMs: nowMs + this.msUntil(tokens, this.p.burst),
      releases: pendingReleases(s?.releases ?? null, nowMs),
      redis: {
        params: this.p,
        stored: live ? { tokens: s.tokens, lastUs: s.lastUs, expiresAtMs: s.expiresAtMs } : null,
        unixMs,
      },
    };
  }

  protected copyState(s: State): State {
    return { ...s, releases: s.releases === null ? null : s.releases.slice() };
  }

  /** Gone from Redis, or full again as a new key would be (its first refill fills it). */
  protected isIdle(s: State, nowMs: number): boolean {
    const unixMs = TRAEFIK_REDIS_EPOCH_MS + nowMs;
    if (traefikRedisExpired(s, unixMs)) return true;
    return (
      unixMs * 1000 >= s.lastUs &&
      this.tokensAt(s, nowMs) >= this.p.burst &&
      this.p.limit * unixMs * 1000 >= this.p.burst
    );
  }

  protected sizeOf(): StateSize {
    return SIZE;
  }

  protected empty(): TraefikRedisLimiter {
    return new TraefikRedisLimiter(this.config, this.originMs);
  }
}
