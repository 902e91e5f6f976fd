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
 * The largest |time| accepted, 2^51 ms (about 71,000 years): differences of two such times stay exact.
 */
export const MAX_TIME_MS = 2 ** 51;

/** Throws a RangeError unless `nowMs` is a whole number of ms within ±MAX_TIME_MS. */
export function checkTime(nowMs: number): void {
  if (!Number.isInteger(nowMs) || nowMs > MAX_TIME_MS || nowMs < -MAX_TIME_MS) {
    throw new RangeError(
      `nowMs must be a whole number of milliseconds from -${MAX_TIME_MS} to ${MAX_TIME_MS}, got ${String(nowMs)}`,
    );
  }
}
