/**
 * golang.org/x/time/rate's Limiter as Traefik's in-memory limiter drives it, in the library's own
 * float64 arithmetic, so that a reservation's delay comes out to the same nanosecond (and the 429's
 * `X-Retry-In` to the same bytes). JavaScript numbers are IEEE-754 doubles: the same operations in
 * the same order give the same bits as Go's float64.
 *
 * Read from rate/rate.go at the version Traefik v3.7.9 vendors (go.mod: golang.org/x/time v0.15.0;
 * read at v0.13.0 and the one later commit 2b4e439, which only swaps `==` for `Time.Equal`) and at
 * Debian's golang-golang-x-time-dev 0.3.0, which the proof runs. The two agree on everything used
 * here: 0.3.0's NewLimiter starts at 0 tokens with `last` at the zero time, so its first advance
 * fills the bucket, as the newer NewLimiter's `tokens: burst` does; durationFromTokens multiplies
 * the same two factors in the other order (the same product).
 *
 * Time is kept as whole ns as plain numbers, counted from the source's first request (x/time/rate
 * only ever uses differences of instants): requests are on whole ms, so every instant is an
 * integer, exact in a double while a source's requests span less than 2^53 ns (about 104 days);
 * goDelaysNs refuses a longer span rather than round.
 */

/** Go's `time.Duration(x)` of a float64: truncated toward zero (the Go spec's float→int rule). */
function goDuration(x: number): number {
  return Math.trunc(x);
}

/**
 * Go's `Duration.Seconds()` of `ns` whole nanoseconds (src/time/time.go): float64(ns / 1e9) +
 * float64(ns % 1e9) / 1e9, the whole seconds and the rest converted apart.
 */
export function goSeconds(ns: number): number {
  const nsec = ns % 1_000_000_000;
  return (ns - nsec) / 1_000_000_000 + nsec / 1e9;
}

/** rate.go `Limit.tokensFromDuration`: d.Seconds() · limit (limit > 0). */
function tokensFromDuration(limit: number, ns: number): number {
  return goSeconds(ns) * limit;
}

/** rate.go `Limit.durationFromTokens`: Duration((tokens / limit) · 1e9), truncated (limit > 0). */
function durationFromTokens(limit: number, tokens: number): number {
  return goDuration((tokens / limit) * 1e9);
}

/** One source's `rate.Limiter`: float64 tokens at `lastNs`. */
export interface GoLimiterState {
  tokens: number;
  /** `lim.last`, ns since time 0. */
  lastNs: number;
}

/** rate.go `Limiter.advance`: the tokens at `nowNs` (time going backwards counts as none passing). */
function advance(limit: number, burst: number, s: GoLimiterState, nowNs: number): number {
  const last = nowNs < s.lastNs ? nowNs : s.lastNs;
  const tokens = s.tokens + tokensFromDuration(limit, nowNs - last);
  return tokens > burst ? burst : tokens;
}

/**
 * One `bucket.Reserve()` at `nowNs` (rate.go `reserveN` with n = 1, no future limit), then, as
 * Traefik's in_memory_limiter.go does, `res.Cancel()` when the delay exceeds `maxDelayNs`
 * (rate.go `CancelAt` at the same instant: the reserved token goes back). Mutates `s`; returns the
 * reservation's delay in whole ns (0 when a token was there).
 */
export function goReserve(
  limit: number,
  burst: number,
  maxDelayNs: number,
  s: GoLimiterState,
  nowNs: number,
): number {
  const tokens = advance(limit, burst, s, nowNs) - 1;
  const waitNs = tokens < 0 ? durationFromTokens(limit, -tokens) : 0;
  s.lastNs = nowNs;
  s.tokens = tokens;
  // DelayFrom(now) = timeToAct − now = the wait. CancelAt(now): timeToAct is not before now and
  // lastEvent is this reservation's timeToAct, so restoreTokens = 1 − tokensFromDuration(0) = 1;
  // advance over no time adds 0 tokens; then the token is added back and capped at burst.
  if (waitNs > maxDelayNs) {
    const back = advance(limit, burst, s, nowNs) + (1 - tokensFromDuration(limit, 0));
    s.tokens = back > burst ? burst : back;
  }
  return waitNs;
}

/**
 * The delay of every request of one source, in order, at `timesMs` (ascending, whole ms since the
 * scenario's time 0), with Traefik's bucket expiry: a source untouched for `idleResetS` whole Unix
 * seconds (ttlmap.go) starts again with a new, full Limiter. `limit` is Traefik's
 * rtl = float64(average·1e9) / float64(period in ns) (rate_limiter.go).
 */
export function goDelaysNs(
  limit: number,
  burst: number,
  maxDelayNs: number,
  timesMs: readonly number[],
  idleResetS = 0,
): number[] {
  const firstMs = timesMs[0] ?? 0;
  const lastMs = timesMs[timesMs.length - 1] ?? 0;
  if ((lastMs - firstMs) * 1_000_000 > Number.MAX_SAFE_INTEGER) {
    throw new RangeError("a source's requests span more than 2^53 ns (about 104 days)");
  }
  let s: GoLimiterState | undefined;
  let touchedMs = firstMs;
  return timesMs.map((ms) => {
    const ns = (ms - firstMs) * 1_000_000;
    const expired =
      idleResetS > 0 && Math.floor(ms / 1000) >= Math.floor(touchedMs / 1000) + idleResetS;
    // A new Limiter is full: its first advance caps the tokens at burst whatever `last` is.
    if (s === undefined || expired) s = { tokens: burst, lastNs: ns };
    touchedMs = ms;
    return goReserve(limit, burst, maxDelayNs, s, ns);
  });
}
