/**
 * Seeded configs and request traces for the differential tests (Redis scripts vs the core).
 */
import type { AlgorithmConfig, AlgorithmKind } from '../../src/core';
import { MAX_TIME_MS, UNIT_SECONDS, calendarUnits, nginxRateMilli } from '../../src/core';

/** mulberry32: a small seeded generator, enough for test traces. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rng = () => number;

/** A whole number in [lo, hi]. */
export function int(rng: Rng, lo: number, hi: number): number {
  return lo + Math.floor(rng() * (hi - lo + 1));
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

/** Small values most of the time, with the edges of the accepted ranges now and then. */
function count(rng: Rng, min: number): number {
  const r = rng();
  if (r < 0.1) return min;
  if (r < 0.75) return int(rng, Math.max(min, 1), 8);
  if (r < 0.95) return int(rng, 9, 200);
  return int(rng, 1000, 1_000_000);
}

function duration(rng: Rng): number {
  const r = rng();
  if (r < 0.1) return int(rng, 1, 5);
  if (r < 0.8) return int(rng, 6, 5000);
  if (r < 0.95) return int(rng, 5001, 600_000);
  return int(rng, 600_001, 86_400_000);
}

/**
 * A random valid config of `kind`. With `drainsIn60s`, leaky buckets are drawn so that any key idle
 * for 60 s has fully drained (60·rate ≥ (burst + 1)·1000): nginx's zone expiry, which the Redis
 * script deliberately lacks, then forgets only idle keys and cannot change a decision (see
 * toRedisLua's differences).
 */
export function randomConfig(rng: Rng, kind: AlgorithmKind, drainsIn60s = false): AlgorithmConfig {
  switch (kind) {
    case 'fixed-window':
    case 'sliding-window-counter':
      return { kind, limit: count(rng, 1), windowMs: duration(rng) };
    case 'sliding-log': {
      const limit = Math.min(count(rng, 1), 500); // the log holds up to `limit` entries per key
      const windowMs = duration(rng);
      // Caddy's ring (lastMsPasses) logs passed requests only.
      if (rng() < 0.3) return { kind, limit, windowMs, lastMsPasses: true };
      return { kind, limit, windowMs, logRejected: rng() < 0.4 };
    }
    case 'token-bucket': {
      const c: AlgorithmConfig = {
        kind,
        maxTokens: count(rng, 1),
        tokensPerFill: count(rng, 1),
        fillIntervalMs: duration(rng),
        refill: rng() < 0.5 ? 'continuous' : 'interval',
      };
      if (rng() < 0.4) c.maxDelayMs = rng() < 0.2 ? 0 : duration(rng);
      return c;
    }
    case 'leaky-bucket':
      for (;;) {
        const rateUnit = rng() < 0.7 ? 'r/s' : 'r/m';
        const rate =
          rateUnit === 'r/s' ? count(rng, 1) : pick(rng, [1, 7, 60, 61, 100, 119, 600, 7000]);
        const burst = rng() < 0.2 ? 0 : count(rng, 1);
        const delay = pick(rng, ['nodelay', 0, 1, 2, 5, burst] as const);
        if (drainsIn60s && nginxRateMilli(rate, rateUnit) * 60 < (burst + 1) * 1000) continue;
        const c: AlgorithmConfig = { kind, rate, rateUnit, burst, delay };
        if (rng() < 0.3) c.limitReqStatus = 429;
        return c;
      }
    case 'gcra':
      return {
        kind,
        count: count(rng, 1),
        periodMs: duration(rng),
        burst: rng() < 0.2 ? 0 : count(rng, 1),
      };
    case 'anchored-window': {
      const c: AlgorithmConfig = {
        kind,
        limit: count(rng, 1),
        windowMs: duration(rng),
        countRejected: rng() < 0.6,
      };
      if (rng() < 0.4) c.blockMs = rng() < 0.2 ? 0 : duration(rng);
      if (rng() < 0.4) {
        c.execEvenly = true;
        if (rng() < 0.7) c.execEvenlyMinDelayMs = int(rng, 0, 2000);
      }
      return c;
    }
    case 'calendar-windows':
      return randomCalendarConfig(rng);
  }
}

/** A random calendar-windows config: a few units with increasing limits. */
export function randomCalendarConfig(rng: Rng): AlgorithmConfig {
  const units = ['second', 'minute', 'hour', 'day', 'month', 'year'] as const;
  const c: AlgorithmConfig = { kind: 'calendar-windows' };
  let limit = count(rng, 1);
  let any = false;
  for (const u of units) {
    if (rng() < 0.4 || (!any && u === 'year')) {
      c[u] = limit;
      any = true;
      limit = Math.min(1_000_000_000, limit + int(rng, 0, 20));
    }
  }
  if (rng() < 0.5) c.align = rng() < 0.5 ? 'calendar' : 'epoch';
  if (rng() < 0.5) c.countRejected = true;
  if (rng() < 0.5) c.counterTtl = true;
  if (rng() < 0.25) c.shadowMode = true;
  return c;
}

/** The time scale on which a config's decisions change: a window, an interval, a drain time. */
export function scaleMs(c: AlgorithmConfig): number {
  switch (c.kind) {
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
      return c.windowMs;
    case 'token-bucket':
      return Math.max(1, Math.ceil((c.fillIntervalMs * c.maxTokens) / c.tokensPerFill));
    case 'leaky-bucket':
      return Math.max(
        1,
        Math.ceil(((c.burst + 1) * 1_000_000) / nginxRateMilli(c.rate, c.rateUnit)),
      );
    case 'gcra':
      return Math.max(1, Math.ceil((c.periodMs * (c.burst + 1)) / c.count));
    case 'anchored-window':
      // windowMs 0 without a block never expires: steps of a second then.
      return Math.max(c.windowMs, c.blockMs ?? 0) || 1000;
    case 'calendar-windows': {
      const first = calendarUnits(c)[0];
      return first === undefined ? 1000 : UNIT_SECONDS[first.unit] * 1000;
    }
  }
}

export interface Request {
  nowMs: number;
  key: string;
}

/**
 * `n` requests over a few keys: ties, small and large steps forward, and clock jumps backwards.
 * `maxBackMs` bounds how far time may go below the latest time seen so far.
 */
export function randomTrace(
  rng: Rng,
  c: AlgorithmConfig,
  n: number,
  maxBackMs: number,
  keyCount = int(rng, 1, 3),
): Request[] {
  const scale = scaleMs(c);
  const keys = ['alice', 'bob', 'carol'].slice(0, keyCount);
  const starts = [
    0,
    int(rng, -1e6, 1e6),
    1_700_000_000_000 + int(rng, 0, 1e9),
    -int(rng, 1e9, 1e12),
    MAX_TIME_MS - int(rng, 0, 1e6) - 50 * scale,
  ];
  let t = Math.max(-MAX_TIME_MS, pick(rng, starts));
  let latest = t;
  const out: Request[] = [];
  for (let i = 0; i < n; i += 1) {
    const r = rng();
    if (r < 0.25) {
      // a tie
    } else if (r < 0.32 && out.length > 0) {
      // exactly a window (interval, drain time) after an earlier request, or 1 ms either side
      t = pick(rng, out).nowMs + scale + int(rng, -1, 1);
    } else if (r < 0.65) t += int(rng, 1, Math.max(1, Math.ceil(scale / 4)));
    else if (r < 0.85) t += int(rng, 1, 2 * scale);
    else if (r < 0.9) t += int(rng, 2 * scale, 20 * scale);
    else if (r < 0.95) t -= int(rng, 1, Math.min(2 * scale, maxBackMs));
    else if (r < 0.97)
      t = latest - pick(rng, [59_999, 60_000, 60_001]); // nginx's clamp edges
    else t -= int(rng, 1, Math.min(100 * scale + 120_000, maxBackMs));
    t = Math.max(t, latest - maxBackMs, -MAX_TIME_MS);
    t = Math.min(t, MAX_TIME_MS);
    latest = Math.max(latest, t);
    out.push({ nowMs: t, key: pick(rng, keys) });
  }
  return out;
}

/**
 * A trace on a window's edges: bursts, then requests exactly at a window boundary (a multiple of
 * the window for aligned windows, a key's earlier request + the window for anchored ones and
 * logs) or 1 ms either side, in order. `atBoundary` counts the requests exactly on an edge.
 */
export function boundaryTrace(
  rng: Rng,
  c: AlgorithmConfig,
  n: number,
  keyCount = int(rng, 1, 2),
): { trace: Request[]; atBoundary: number } {
  const s = scaleMs(c);
  const keys = ['alice', 'bob'].slice(0, keyCount);
  let t = int(rng, 0, 1000) * s;
  const out: Request[] = [];
  let atBoundary = 0;
  for (let i = 0; i < n; i += 1) {
    const r = rng();
    const key = pick(rng, keys);
    const mine = out.filter((q) => q.key === key);
    const edge = int(rng, -1, 1);
    let next = t;
    if (r < 0.45) {
      // a tie: fills the window before its edge
    } else if (r < 0.7) next = (Math.floor(t / s) + 1) * s + edge;
    else if (mine.length > 0) next = pick(rng, mine).nowMs + s + edge;
    else next = t + int(rng, 1, s);
    t = Math.max(t, next);
    if (t === next && edge === 0 && r >= 0.45) atBoundary += 1;
    out.push({ nowMs: t, key });
  }
  return { trace: out, atBoundary };
}
