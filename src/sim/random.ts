/**
 * Seeded randomness that gives the same numbers on every JavaScript engine: 32-bit integer
 * arithmetic (Math.imul, shifts) and IEEE-754 +, −, ×, ÷ only, which are exactly rounded everywhere.
 * Math.log and Math.exp are not (ECMAScript leaves their precision to the engine), so the
 * logarithm for exponential gaps is computed here from basic operations.
 */

/** splitmix32 finaliser: a bijective avalanche on 32 bits. */
export function mix32(x: number): number {
  let z = (x + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}

/**
 * A counter-based draw: the same (seed, a, b, c) always gives the same 32 bits, whatever order the
 * draws are made in. Used where a draw belongs to a request (random balancing, jitter), so the same
 * first attempt gets the same draw in every lane.
 */
export function hash32(seed: number, a: number, b = 0, c = 0): number {
  let h = mix32(seed ^ 0x5bd1e995);
  h = mix32(h ^ a);
  h = mix32(h ^ b);
  return mix32(h ^ c);
}

/** A uint32 as a float in [0, 1). */
export function toUnit(u32: number): number {
  return u32 / 4294967296;
}

/**
 * sfc32 (Chris Doty-Humphrey's Small Fast Counter, PractRand), a sequential generator for streams
 * of draws such as Poisson gaps. Seeded from (seed, stream) through splitmix32 and warmed up.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;

  constructor(seed: number, stream: number) {
    this.a = mix32(seed);
    this.b = mix32(this.a ^ stream);
    this.c = mix32(this.b ^ 0x2545f491);
    for (let i = 0; i < 12; i += 1) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in (0, 1): never 0, so its logarithm is finite. */
  nextOpenUnit(): number {
    return (this.nextUint32() + 0.5) / 4294967296;
  }
}

const LN2 = 0.6931471805599453;
const SQRT2 = 1.4142135623730951;

/**
 * ln(x) for x in (0, 1], to within a few ulps, from basic operations only: x = m·2^e with m in
 * [√½, √2), then ln m = 2·atanh(s) with s = (m − 1)/(m + 1), |s| ≤ 0.172, summed to s^25.
 */
export function lnUnit(x: number): number {
  let e = 0;
  let m = x;
  // Scaling by powers of two is exact.
  while (m < 1 / 65536) {
    m *= 65536;
    e -= 16;
  }
  while (m < 1) {
    m *= 2;
    e -= 1;
  }
  if (m >= SQRT2) {
    m /= 2;
    e += 1;
  }
  const s = (m - 1) / (m + 1);
  const s2 = s * s;
  let term = s;
  let sum = 0;
  for (let k = 1; k <= 25; k += 2) {
    sum += term / k;
    term *= s2;
  }
  return 2 * sum + e * LN2;
}

/** An exponential draw with mean 1 from a uniform u in (0, 1). */
export function exponential(u: number): number {
  return -lnUnit(u);
}
