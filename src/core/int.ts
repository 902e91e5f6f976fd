/**
 * Exact integer helpers. Every decision is made on whole numbers well inside 2^53, so these are
 * exact; the correction step makes them safe even where the float quotient rounds up to an integer.
 */

/** ⌊a / b⌋ for whole a and whole b > 0 (rounds toward −∞, unlike C's `/`). */
export function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/** ⌈a / b⌉ for whole a and whole b > 0. */
export function ceilDiv(a: number, b: number): number {
  return -floorDiv(-a, b);
}

/**
 * ⌊a / b ms in ns⌋ for whole a ≥ 0 and whole b in 1 – 10^6: a wait of a/b ms truncated to whole ns,
 * as Go's `time.Duration(float)` truncates (x/time/rate durationFromTokens). Exact: the remainder
 * times 10^6 stays below 10^12.
 */
export function floorNs(a: number, b: number): number {
  const q = floorDiv(a, b);
  return q * 1_000_000 + floorDiv((a - q * b) * 1_000_000, b);
}

/**
 * Whether a wait of `a / b` ms (whole a, b as in floorNs) is at most `maxDelayNs`: x/time/rate's
 * rule, the wait truncated to whole ns (Traefik's `if delay > maxDelay` on a time.Duration). For a
 * maximum of whole ms M it is ⌈a / b⌉ ≤ M: with b ≤ 10^6 a wait above M is at least M + 1/b ms.
 */
export function waitFits(a: number, b: number, maxDelayNs: number): boolean {
  return floorNs(a, b) <= maxDelayNs;
}

/**
 * The largest |time| accepted, 2^51 ms (about 71,000 years): differences of two such times stay exact.
 */
export const MAX_TIME_MS = 2 ** 51;

/**
 * The wait reported for something that never comes (a reject by a record that never expires):
 * 2 · MAX_TIME_MS + 1 = 2^52 + 1 ms, so that now + NEVER_MS lies beyond MAX_TIME_MS for every
 * accepted now — no wait within the times a limiter takes makes the request pass. Whole and
 * finite, so columns, headers and sums never meet Infinity or NaN; below 2^53 with room, as some
 * clients (node-redis 5) read 2^53 − 1 back as 2^53.
 */
export const NEVER_MS = 2 * MAX_TIME_MS + 1;

/** Throws a RangeError unless `nowMs` is a whole number of ms within ±MAX_TIME_MS. */
export function checkTime(nowMs: number): void {
  if (!Number.isInteger(nowMs) || nowMs > MAX_TIME_MS || nowMs < -MAX_TIME_MS) {
    throw new RangeError(
      `nowMs must be a whole number of milliseconds from -${MAX_TIME_MS} to ${MAX_TIME_MS}, got ${String(nowMs)}`,
    );
  }
}
