import { ticks as niceTicks } from 'd3-array/first-paint';

/**
 * A number → number linear scale for the views and the timeline: the part of d3-scale's
 * `scaleLinear` they use (map, invert, clamp, ticks), with the same arithmetic, so every drawn
 * coordinate is the one d3-scale gives. Why not d3-scale itself on the first load: its
 * `scaleLinear` interpolates any value, colours included, so it brings d3-interpolate and all of
 * d3-color (colour names, parsing): about 6 kB gzip the first paint never uses (initial
 * JavaScript ≤ 160 kB). Ticks are d3-array's `ticks`, which is what d3-scale's `ticks` calls,
 * imported as `d3-array/first-paint` (a copy of d3-array for the first chunk: vite.config.ts). The
 * charts and the sweep (lazy chunks) keep d3-scale.
 */
export interface LinearScale {
  (value: number): number;
  /** [d0, d1] as given. */
  domain(): [number, number];
  /** [r0, r1] as given. */
  range(): [number, number];
  /** The domain value drawn at `px` (clamped to the domain when the scale clamps). */
  invert(px: number): number;
  /** Round values across the domain, about `count` of them (d3-array `ticks`). */
  ticks(count?: number): number[];
}

/** (x − a) / (b − a), or ½ everywhere when a = b (d3-scale's `normalize`). */
function normalize(a: number, b: number): (x: number) => number {
  const span = b - a;
  return span !== 0 ? (x) => (x - a) / span : () => (Number.isNaN(span) ? NaN : 0.5);
}

/** a·(1 − t) + b·t (d3-interpolate's `interpolateNumber`). */
function lerp(a: number, b: number): (t: number) => number {
  return (t) => a * (1 - t) + b * t;
}

/** A two-point piecewise map the way d3-scale's `bimap` builds it (a reversed domain flips both). */
function bimap(domain: [number, number], range: [number, number]): (x: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  const norm = d1 < d0 ? normalize(d1, d0) : normalize(d0, d1);
  const inter = d1 < d0 ? lerp(r1, r0) : lerp(r0, r1);
  return (x) => inter(norm(x));
}

/** Clamps to [min(a, b), max(a, b)]; the identity when `on` is false. */
function clamper(on: boolean, a: number, b: number): (x: number) => number {
  if (!on) return (x) => x;
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  return (x) => Math.max(lo, Math.min(hi, x));
}

/** The scale from `domain` onto `range`; with `clamp`, inputs outside the domain map to its ends. */
export function linearScale(
  domain: readonly [number, number],
  range: readonly [number, number],
  clamp = false,
): LinearScale {
  const d: [number, number] = [+domain[0], +domain[1]];
  const r: [number, number] = [+range[0], +range[1]];
  const bound = clamper(clamp, d[0], d[1]);
  const output = bimap(d, r);
  const input = bimap(r, d);
  const scale = ((value: number) => output(bound(+value))) as LinearScale;
  scale.domain = () => [d[0], d[1]];
  scale.range = () => [r[0], r[1]];
  scale.invert = (px: number) => bound(input(+px));
  scale.ticks = (count = 10) => niceTicks(d[0], d[1], count);
  return scale;
}
