/**
 * Traffic sources → first attempts. Each source yields whole-millisecond times in ascending order,
 * drawn from its own random stream (seed, source index), so adding a source after the others (or
 * removing the last) never changes their arrivals. The sources are merged in time order; ties keep source order.
 */
import { Rng, exponential } from './random';
import type { SimTrace, TrafficSource } from './types';

/** Yields the next arrival time, or −1 when the source is done. */
type Generator = () => number;

function evenly(startMs: number, ratePerSec: number, endMs: number): Generator {
  let n = 0;
  return () => {
    // ⌊n·1000 / rate⌋ from the start, not accumulated gaps, so rounding never drifts.
    const t = startMs + Math.floor((n * 1000) / ratePerSec);
    if (t >= endMs) return -1;
    n += 1;
    return t;
  };
}

function fromList(times: readonly number[]): Generator {
  let i = 0;
  return () => (i < times.length ? (times[i++] as number) : -1);
}

/** Times of `count` requests spread evenly over [0, spreadMs), as offsets: ⌊i·spreadMs / count⌋. */
function spreadOffsets(count: number, spreadMs: number): number[] {
  const out = new Array<number>(count);
  for (let i = 0; i < count; i += 1) out[i] = Math.floor((i * spreadMs) / count);
  return out;
}

/**
 * A generator of `source`'s arrivals before `untilMs`. `index` picks its random stream. A trace
 * source replays `traces`' entry with its hash (nothing when it is not there).
 */
export function sourceGenerator(
  source: TrafficSource,
  index: number,
  seed: number,
  untilMs: number,
  traces: ReadonlyMap<string, SimTrace> = new Map(),
): Generator {
  switch (source.kind) {
    case 'trace': {
      const trace = traces.get(source.hash);
      if (trace === undefined) return () => -1;
      const times = trace.timeMs;
      let i = 0;
      return () => {
        if (i >= times.length) return -1;
        const t = times[i++] as number;
        return t < untilMs ? t : -1;
      };
    }
    case 'manual': {
      const times = source.timesMs.filter((t) => t < untilMs).sort((a, b) => a - b);
      return fromList(times);
    }
    case 'burst': {
      if (source.atMs >= untilMs) return () => -1;
      const spreadMs = source.spreadMs ?? 0;
      const times = spreadOffsets(source.count, spreadMs)
        .map((o) => source.atMs + o)
        .filter((t) => t < untilMs);
      return fromList(times);
    }
    case 'constant':
      return evenly(source.startMs, source.ratePerSec, Math.min(source.endMs, untilMs));
    case 'poisson': {
      const rng = new Rng(seed, index + 1);
      const endMs = Math.min(source.endMs, untilMs);
      const meanGapMs = 1000 / source.ratePerSec;
      let t = source.startMs;
      return () => {
        t += exponential(rng.nextOpenUnit()) * meanGapMs;
        const ms = Math.floor(t);
        return ms >= endMs ? -1 : ms;
      };
    }
    case 'on-off': {
      const { ratePerSec, onMs, offMs, startMs } = source;
      const endMs = Math.min(source.endMs, untilMs);
      let phaseStart = startMs;
      let phase = evenly(phaseStart, ratePerSec, Math.min(phaseStart + onMs, endMs));
      return () => {
        for (;;) {
          const t = phase();
          if (t >= 0) return t;
          phaseStart += onMs + offMs;
          if (phaseStart >= endMs) return -1;
          phase = evenly(phaseStart, ratePerSec, Math.min(phaseStart + onMs, endMs));
        }
      };
    }
    case 'boundary-burst': {
      const { boundaryMs, count } = source;
      const offsets = spreadOffsets(count, source.spreadMs ?? 0);
      const times: number[] = [];
      // Before: mirror image of the after side, ending at boundaryMs − 1.
      for (let i = count - 1; i >= 0; i -= 1) times.push(boundaryMs - 1 - (offsets[i] as number));
      for (const o of offsets) times.push(boundaryMs + o);
      return fromList(times.filter((t) => t < untilMs));
    }
  }
}

/** Merged first attempts before the client assignment. */
export interface MergedArrivals {
  count: number;
  timeMs: Int32Array;
  source: Uint8Array;
  /** Every arrival before this time is included: untilMs, or earlier when the cap cut the run. */
  completeUntilMs: number;
  truncated: boolean;
}

/**
 * All sources' arrivals before `untilMs`, merged in time order (ties: lower source index first).
 * Stops past `cap` arrivals: the run is then cut at the first arrival past the cap, and arrivals at
 * that same millisecond are dropped too, so everything before `completeUntilMs` is complete.
 */
export function mergeSources(
  sources: readonly TrafficSource[],
  seed: number,
  untilMs: number,
  cap: number,
  traces: ReadonlyMap<string, SimTrace> = new Map(),
): MergedArrivals {
  const gens = sources.map((s, i) => sourceGenerator(s, i, seed, untilMs, traces));
  const heads = gens.map((g) => g());
  let capacity = 1024;
  let timeMs = new Int32Array(capacity);
  let source = new Uint8Array(capacity);
  let count = 0;
  let completeUntilMs = untilMs;
  let truncated = false;
  for (;;) {
    let best = -1;
    let bestT = Number.POSITIVE_INFINITY;
    for (let i = 0; i < heads.length; i += 1) {
      const t = heads[i] as number;
      if (t >= 0 && t < bestT) {
        bestT = t;
        best = i;
      }
    }
    if (best < 0) break;
    if (count === cap) {
      truncated = true;
      completeUntilMs = bestT;
      while (count > 0 && (timeMs[count - 1] as number) >= bestT) count -= 1;
      break;
    }
    if (count === capacity) {
      capacity = Math.min(cap, capacity * 2);
      const t2 = new Int32Array(capacity);
      t2.set(timeMs);
      timeMs = t2;
      const s2 = new Uint8Array(capacity);
      s2.set(source);
      source = s2;
    }
    timeMs[count] = bestT;
    source[count] = best;
    count += 1;
    heads[best] = (gens[best] as Generator)();
  }
  return {
    count,
    // Copies, so the spare capacity of the doubling is given back.
    timeMs: timeMs.slice(0, count),
    source: source.slice(0, count),
    completeUntilMs,
    truncated,
  };
}
