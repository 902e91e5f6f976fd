/**
 * A parameter sweep over a trace: for the two parameters that matter for an
 * algorithm, a grid of configs, each cell an exact replay of the whole trace (no sampling) through
 * core's limiter, measured the way the simulator measures a lane (src/sim/metrics.ts): share
 * rejected, peak requests reaching the backend in any W, p95 delay (nearest rank over delayed
 * requests). So a cell's numbers are the ones the main view shows for that config, replaying the
 * same trace with no retries and one instance (tests/trace/sweep.test.ts checks it cell by cell).
 */
import type { AlgorithmConfig, CalendarUnit, CalendarWindowsConfig } from '../core';
import { CALENDAR_UNITS, MAX_CALENDAR_LIMIT, UNIT_SECONDS, createLimiter } from '../core';
import { nearestRank, peakWindow } from '../sim';
import type { SimTrace } from '../sim';
import type { EmptyKeyExempt } from './types';

/** One axis: the config field it sets, its label (official name and unit) and its values. */
export interface SweepAxis {
  field: string;
  label: string;
  values: number[];
  /**
   * What a value of 0 means when it does not mean the number: 'none' for a calendar unit that
   * has no limit at 0 (the field is left out of that cell's config), placed last, as the loosest
   * value, so the axis still goes from strictest to loosest (the grid's "smallest limit that fits"
   * takes the lowest index). Absent: 0 is the number.
   */
  zero?: string;
}

/** An axis value as the grid shows it: the number, or the axis's word for 0. */
export function axisText(axis: SweepAxis, v: number): string {
  return v === 0 && axis.zero !== undefined ? axis.zero : String(v);
}

/**
 * The system's own names for config fields (a system's `params`: `points` for `limit` in
 * rate-limiter-flexible, `requests_per_unit (unit: minute)` for `minute` in Envoy's service),
 * so the axes of anchored and calendar windows read in the words of the system being tuned.
 */
export type SweepWords = ReadonlyArray<{ field: string; key: string; unit?: string | undefined }>;

export interface SweepPlan {
  x: SweepAxis;
  y: SweepAxis;
  /** The config of cell (xi, yi): the base config with both fields set. */
  configAt: (xi: number, yi: number) => AlgorithmConfig;
}

export interface CellResult {
  offered: number;
  rejected: number;
  delayed: number;
  /** rejected / offered (0 when nothing was offered). */
  rejectedShare: number;
  /** The same over requests of keys whose volume is at most the p99 of key volumes. */
  rejectedShareP99: number;
  /** Most requests reaching the backend (admitted at arrival, delayed at release) in any W. */
  peakBackend: number;
  /** p95 delay over delayed requests, nearest rank (0 when none was delayed). */
  p95DelayMs: number;
}

/** Up to `n` whole values from `lo` to `hi`, spaced geometrically, ascending and distinct. */
export function axisValues(lo: number, hi: number, n: number): number[] {
  // 0 (no burst) is a value of its own; the rest is geometric from 1.
  const zero = lo <= 0 && n > 1;
  const m = zero ? n - 1 : n;
  const a = Math.max(1, lo);
  const out: number[] = zero ? [0] : [];
  for (let i = 0; i < m; i += 1) {
    const v = Math.round(a * (hi / a) ** (m === 1 ? 0 : i / (m - 1)));
    if (out.length === 0 || v > (out[out.length - 1] as number)) out.push(v);
  }
  return out;
}

/** A range around `current`: from ⌊current / 10⌋ to 10·current (at least `min` .. min + n). */
function around(current: number, min: number, n: number): number[] {
  const lo = Math.max(min, Math.floor(current / 10));
  const hi = Math.max(lo + n, Math.ceil(current * 10));
  return axisValues(lo, hi, n);
}

/**
 * The grid for `base` (`n` × `n` at most): nginx `rate` × `burst`; Envoy `tokens_per_fill` ×
 * `max_tokens`; redis-cell `count` × `max_burst`; windows `limit` × window length, anchored windows
 * (express-rate-limit, rate-limiter-flexible) too; calendar windows (Kong, Envoy's rate limit
 * service) as `calendarPlan` lays them out. Every other field of `base` (countRejected,
 * blockMs, execEvenly, cost, align, counterTtl, shadowMode …) is kept in every cell. `words`
 * names the anchored and calendar axes as the system does; absent, by the config's fields.
 */
export function sweepPlan(base: AlgorithmConfig, n = 20, words: SweepWords = []): SweepPlan | null {
  const label = (field: string, fallback: string): string => {
    const w = words.find((p) => p.field === field);
    return w === undefined ? fallback : w.unit === undefined ? w.key : `${w.key} (${w.unit})`;
  };
  const set = (xf: string, yf: string, x: SweepAxis, y: SweepAxis): SweepPlan => ({
    x,
    y,
    configAt: (xi, yi) => ({
      ...base,
      [xf]: x.values[xi] as number,
      [yf]: y.values[yi] as number,
    }),
  });
  switch (base.kind) {
    case 'leaky-bucket':
      return set(
        'rate',
        'burst',
        { field: 'rate', label: `rate (${base.rateUnit})`, values: around(base.rate, 1, n) },
        { field: 'burst', label: 'burst', values: around(base.burst, 0, n) },
      );
    case 'token-bucket':
      return set(
        'tokensPerFill',
        'maxTokens',
        {
          field: 'tokensPerFill',
          label: `tokens_per_fill (per ${base.fillIntervalMs} ms)`,
          values: around(base.tokensPerFill, 1, n),
        },
        { field: 'maxTokens', label: 'max_tokens', values: around(base.maxTokens, 1, n) },
      );
    case 'gcra':
      return set(
        'count',
        'burst',
        {
          field: 'count',
          label: `count (per ${base.periodMs} ms)`,
          values: around(base.count, 1, n),
        },
        { field: 'burst', label: 'max_burst', values: around(base.burst, 0, n) },
      );
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
      return set(
        'limit',
        'windowMs',
        { field: 'limit', label: 'limit', values: around(base.limit, 1, n) },
        {
          field: 'windowMs',
          label: 'window (ms)',
          values: around(base.windowMs, 1, n).filter((v) => v <= 86_400_000),
        },
      );
    case 'anchored-window': {
      // As the fixed window's axes. A request costing `cost` points needs limit ≥ cost (core
      // refuses less), so the limits start there.
      const cost = base.cost ?? 1;
      const limits = around(base.limit, 1, n).filter((v) => v >= cost);
      if (limits.length === 0 || limits[0] !== cost) limits.unshift(cost);
      while (limits.length > n) limits.pop();
      // windowMs 0 is rate-limiter-flexible's "never expires": kept as a value of its own, the
      // rest from a second to a day (a range around 0 ms would be 1 – 21 ms).
      const windows =
        base.windowMs === 0
          ? [0, ...axisValues(1000, 86_400_000, n - 1)]
          : around(base.windowMs, 1, n).filter((v) => v <= 86_400_000);
      return set(
        'limit',
        'windowMs',
        { field: 'limit', label: label('limit', 'limit'), values: limits },
        { field: 'windowMs', label: label('windowMs', 'window (ms)'), values: windows },
      );
    }
    case 'calendar-windows':
      return calendarPlan(base, n, label);
    default:
      return null;
  }
}

/**
 * Calendar windows: the limits of the two shortest units set (Kong `second` × `minute`), each
 * around its current value; the longer units keep their limits. With one unit set, that unit's
 * limit × the next longer unit's limit up to none (0: the field left out), or the next shorter
 * unit's when the one set is a year. Why that second axis: a Kong or Envoy user with one limit
 * tunes its number, and the question the other axis answers is whether a cap over a longer period
 * (an hour's on top of a minute's) would help and at what size; sweeping the unit itself instead
 * would change the period the counters and headers are named by, another limit altogether. The
 * other unit's values go from ⌊limit / 10⌋ to 10 times what the set unit allows over it (its
 * limit × the units' nominal ratio, Kong's expiration.lua lengths), capped at core's maximum.
 */
function calendarPlan(
  base: CalendarWindowsConfig,
  n: number,
  label: (field: string, fallback: string) => string,
): SweepPlan {
  const set = CALENDAR_UNITS.filter((u) => base[u] !== undefined);
  const cap = (vs: number[]) => vs.filter((v) => v <= MAX_CALENDAR_LIMIT);
  const axis = (u: CalendarUnit, values: number[], zero?: string): SweepAxis => ({
    field: u,
    label: label(u, u),
    values,
    ...(zero === undefined ? {} : { zero }),
  });
  const configAt = (x: SweepAxis, y: SweepAxis) => (xi: number, yi: number) => {
    const out: Record<string, unknown> = { ...base };
    for (const [a, i] of [
      [x, xi],
      [y, yi],
    ] as const) {
      const v = a.values[i] as number;
      if (v === 0 && a.zero !== undefined) delete out[a.field];
      else out[a.field] = v;
    }
    return out as unknown as AlgorithmConfig;
  };
  const first = set[0] as CalendarUnit;
  const firstLimit = base[first] as number;
  if (set.length >= 2) {
    const second = set[1] as CalendarUnit;
    const x = axis(first, cap(around(firstLimit, 1, n)));
    const y = axis(second, cap(around(base[second] as number, 1, n)));
    return { x, y, configAt: configAt(x, y) };
  }
  const at = CALENDAR_UNITS.indexOf(first);
  const hasLonger = at + 1 < CALENDAR_UNITS.length;
  const other = CALENDAR_UNITS[hasLonger ? at + 1 : at - 1] as CalendarUnit;
  // How many of the set unit's periods one period of the other holds (or the reverse).
  const ratio = UNIT_SECONDS[other] / UNIT_SECONDS[first];
  const lo = Math.max(1, Math.floor((firstLimit * Math.min(1, ratio)) / 10));
  const hi = Math.max(lo + n, Math.ceil(firstLimit * ratio * 10));
  const x = axis(first, cap(around(firstLimit, 1, n)));
  const y = axis(
    other,
    [...cap(axisValues(lo, Math.min(hi, MAX_CALENDAR_LIMIT), n - 1)), 0],
    'none',
  );
  return hasLonger
    ? { x, y, configAt: configAt(x, y) }
    : // The shorter unit across, as with two units set.
      { x: y, y: x, configAt: (xi, yi) => configAt(y, x)(xi, yi) };
}

/** Keys whose volume is at most the p99 of key volumes (nearest rank): 1 per such key id. */
export function belowP99(trace: {
  keyId: Uint32Array;
  keys: { readonly length: number };
}): Uint8Array {
  const counts = new Uint32Array(trace.keys.length);
  for (let i = 0; i < trace.keyId.length; i += 1) {
    const k = trace.keyId[i] as number;
    counts[k] = (counts[k] as number) + 1;
  }
  return belowP99OfCounts(counts);
}

/** belowP99 from each key's request count (a streamed log's counts, from the pass that read it). */
export function belowP99OfCounts(counts: ArrayLike<number>): Uint8Array {
  const sorted = Float64Array.from(counts).sort();
  const p99 =
    sorted.length === 0 ? 0 : (sorted[Math.max(0, Math.ceil(0.99 * sorted.length) - 1)] as number);
  const out = new Uint8Array(counts.length);
  for (let k = 0; k < counts.length; k += 1) out[k] = (counts[k] as number) <= p99 ? 1 : 0;
  return out;
}

/**
 * Whether `config` places its windows on the clock (at ⌊epoch ms / W⌋, or on UTC calendar
 * periods), as a Redis INCR window keyed ⌊now / W⌋, Kong (kong/tools/timestamp.lua) and
 * envoyproxy/ratelimit (src/limiter/cache_key.go) do: then its decisions depend on the epoch ms a
 * replay's time 0 stands for. Every other algorithm decides on time differences only.
 */
export function clockAligned(config: AlgorithmConfig): boolean {
  return (
    config.kind === 'fixed-window' ||
    config.kind === 'calendar-windows' ||
    (config.kind === 'sliding-window-counter' && config.anchor !== 'entry')
  );
}

/**
 * One cell: the whole trace through a fresh limiter built from `config`, in time order, each request
 * with its own key. `below` is `belowP99(trace)` (computed once per sweep). The requests of key
 * `empty.id` skip the limiter and get `empty.outcome` when given (the system's empty-key rule).
 * `originMs`: the epoch ms time 0 stands for (createLimiter `originMs`): a clock-aligned limiter places
 * its windows on the clock, at timeMs[i] + originMs; the others do not depend on it.
 */
export function sweepCell(
  trace: SimTrace,
  config: AlgorithmConfig,
  windowMs: number,
  below: Uint8Array,
  empty: EmptyKeyExempt | null = null,
  originMs = 0,
): CellResult {
  const limiter = createLimiter(config, { originMs });
  const n = trace.timeMs.length;
  const admittedAt = new Float64Array(n);
  const delays: number[] = [];
  const releases: number[] = [];
  let nAdmitted = 0;
  let rejected = 0;
  let offeredBelow = 0;
  let rejectedBelow = 0;
  const emptyId = empty === null ? -1 : empty.id;
  const emptyAdmitted = empty?.outcome === 'admit';
  for (let i = 0; i < n; i += 1) {
    const t = trace.timeMs[i] as number;
    const k = trace.keyId[i] as number;
    const isBelow = below[k] === 1;
    if (isBelow) offeredBelow += 1;
    if (k === emptyId) {
      if (emptyAdmitted) admittedAt[nAdmitted++] = t;
      else {
        rejected += 1;
        if (isBelow) rejectedBelow += 1;
      }
      continue;
    }
    const d = limiter.decide(t, trace.keys[k]);
    if (d.outcome === 'admit') admittedAt[nAdmitted++] = t;
    else if (d.outcome === 'delay') {
      delays.push(d.delayMs);
      releases.push(t + d.delayMs);
    } else {
      rejected += 1;
      if (isBelow) rejectedBelow += 1;
    }
  }
  // Backend arrivals in time order: admitted (ascending already) merged with sorted releases.
  releases.sort((a, b) => a - b);
  delays.sort((a, b) => a - b);
  const backend = new Float64Array(nAdmitted + releases.length);
  let b = 0;
  let r = 0;
  for (let i = 0; i < nAdmitted; i += 1) {
    const t = admittedAt[i] as number;
    while (r < releases.length && (releases[r] as number) < t)
      backend[b++] = releases[r++] as number;
    backend[b++] = t;
  }
  while (r < releases.length) backend[b++] = releases[r++] as number;
  return {
    offered: n,
    rejected,
    delayed: delays.length,
    rejectedShare: n > 0 ? rejected / n : 0,
    rejectedShareP99: offeredBelow > 0 ? rejectedBelow / offeredBelow : 0,
    peakBackend: peakWindow(backend, b, windowMs).count,
    p95DelayMs: nearestRank(delays, 0.95),
  };
}

/** What a person asks of a limit; absent fields ask nothing. */
export interface SweepConstraints {
  /** The backend takes at most this many requests in any W. */
  maxBackend?: number;
  /** At most this share (0 – 1) of the requests of keys below the p99 may be rejected. */
  maxRejectedP99?: number;
}

export function satisfies(cell: CellResult, c: SweepConstraints): boolean {
  return (
    (c.maxBackend === undefined || cell.peakBackend <= c.maxBackend) &&
    (c.maxRejectedP99 === undefined || cell.rejectedShareP99 <= c.maxRejectedP99)
  );
}
