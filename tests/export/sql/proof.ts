/**
 * The proof that generated SQL decides as core: cases (a config, a trace), the SQL generated for
 * each, and a comparison of the engine's rows with core's decisions, request by request and key
 * by key. The engine is given as a function that loads a trace and runs a query.
 */
import fc from 'fast-check';
import { createLimiter } from '../../../src/core';
import type { AlgorithmConfig } from '../../../src/core';
import { generateWith } from '../../../src/export/sql/generate';
import { nginxExpiryMatters } from '../../../src/export/sql/machine';
import type { Dialect } from '../../../src/export/sql/plan';
import type { LogTable, SqlOptions } from '../../../src/export/sql/types';
import { configArb } from '../../core/arbitraries';
import { tracesOf } from './traces';
import type { Row } from './traces';

const CODE = { admit: 0, delay: 1, reject: 2 } as const;

/** Core's decisions, in row order, on the rows' own times. */
export function coreDecisions(config: AlgorithmConfig, rows: readonly Row[]) {
  const limiter = createLimiter(config);
  return rows.map((r) => {
    const d = limiter.decide(r.t, r.key);
    return { outcome: CODE[d.outcome], delay: d.delayMs };
  });
}

export interface Case {
  name: string;
  config: AlgorithmConfig;
  rows: Row[];
}

/**
 * Whether the config's windows are on the clock in the real systems (Redis ⌊now / W⌋, Kong's UTC
 * periods, envoyproxy/ratelimit's (now / divider) · divider): fixed window, the aligned
 * sliding-window counter, calendar windows. Written out here, not imported, so the oracle does
 * not share the generator's rule.
 */
const onClock = (c: AlgorithmConfig): boolean =>
  c.kind === 'fixed-window' ||
  c.kind === 'calendar-windows' ||
  (c.kind === 'sliding-window-counter' && c.anchor !== 'entry');

/**
 * The decision the page's dry run makes for each row (rows in time, then seq, order): its time 0
 * is the first request, standing for that request's epoch ms t0, so a limiter with windows on the
 * clock decides row r at the clock's r.t (core at t + t0 for time t) and the others at r.t − t0.
 */
export function expected(c: Case) {
  const limiter = createLimiter(c.config);
  const t0 = c.rows[0]?.t ?? 0;
  const shift = onClock(c.config) ? t0 : 0;
  return c.rows.map((r) => {
    const d = limiter.decide(r.t - t0 + shift, r.key);
    const o = d.outcome === 'admit' ? 0 : d.outcome === 'delay' ? 1 : 2;
    const was = r.status === 429 || r.status === 503;
    const change =
      !was && o === 2
        ? 'to_rejected'
        : was && o !== 2
          ? 'to_allowed'
          : !was && o === 1
            ? 'to_delayed'
            : 'same';
    return {
      key: r.key,
      time_ms: r.t - t0,
      status: r.status,
      outcome: d.outcome,
      delay_ms: d.delayMs,
      change,
    };
  });
}

export type Out = Record<string, string | number>;

/** Per-key counts from per-request rows. */
export function perKeyOf(rows: ReturnType<typeof expected>): Out[] {
  const m = new Map<string, Out>();
  for (const r of rows) {
    let s = m.get(r.key);
    if (s === undefined) {
      s = {
        key: r.key,
        requests: 0,
        admitted: 0,
        delayed: 0,
        rejected: 0,
        to_rejected: 0,
        to_allowed: 0,
        to_delayed: 0,
      };
      m.set(r.key, s);
    }
    const inc = (f: string) => (s[f] = (s[f] as number) + 1);
    inc('requests');
    inc(r.outcome === 'admit' ? 'admitted' : r.outcome === 'delay' ? 'delayed' : 'rejected');
    if (r.change !== 'same') inc(r.change);
  }
  return [...m.values()].sort((a, b) => {
    const ka = String(a.key);
    const kb = String(b.key);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** Rows as plain numbers and strings (engines give bigints as strings or bigint). */
export function normal(rows: Record<string, unknown>[]): Out[] {
  return rows.map((r) => {
    const o: Out = {};
    for (const [k, v] of Object.entries(r)) {
      o[k] =
        typeof v === 'bigint'
          ? Number(v)
          : typeof v === 'string' && k !== 'key' && /^-?\d+$/.test(v)
            ? Number(v)
            : (v as string | number);
    }
    return o;
  });
}

/** The table the tests load: key text, ts (epoch ms, bigint), status, seq. */
export const TABLE: LogTable = {
  table: 'logs',
  time: 'ts',
  timeUnit: 'ms',
  key: ['key'],
  status: 'status',
  order: 'seq',
};

/** The kinds (and variants) with SQL, each with the configs the random cases draw from. */
export function caseArbs(): [string, fc.Arbitrary<AlgorithmConfig>][] {
  return [
    ['fixed-window', configArb['fixed-window']],
    [
      'sliding-log (logRejected)',
      // Every request logged (Caddy's ring logs only passed requests: the SQL refuses it).
      configArb['sliding-log']
        .filter((c) => c.kind === 'sliding-log' && c.lastMsPasses !== true)
        .map((c) => ({ ...c, logRejected: true })),
    ],
    ['sliding-window-counter', configArb['sliding-window-counter']],
    ['token-bucket', configArb['token-bucket']],
    [
      'leaky-bucket',
      configArb['leaky-bucket'].filter((c) => c.kind === 'leaky-bucket' && !nginxExpiryMatters(c)),
    ],
    ['gcra', configArb.gcra],
    ['anchored-window', configArb['anchored-window']],
    ['calendar-windows', configArb['calendar-windows']],
  ];
}

/** `perKind` random cases of every kind, reproducible from `seed`. */
export function randomCases(perKind: number, seed: number): Case[] {
  const out: Case[] = [];
  for (const [name, arb] of caseArbs()) {
    const samples = fc.sample(fc.tuple(arb, tracesOf('max')), { numRuns: perKind, seed });
    samples.forEach(([config, rows], i) => out.push({ name: `${name} #${i}`, config, rows }));
  }
  return out;
}

/** The SQL of a case, or throws with the generator's message. */
export function sqlOf(
  d: Dialect,
  c: Case,
  output: SqlOptions['output'],
  table: LogTable = TABLE,
): string {
  const r = generateWith(d, c.config, table, { output, baseline: 'recorded' });
  if (!r.ok) throw new Error(`${c.name}: ${r.message}`);
  return r.sql;
}

/** The first difference between two row lists, or null. */
export function firstDifference(got: Out[], want: Out[]): string | null {
  if (got.length !== want.length) return `${got.length} rows, want ${want.length}`;
  for (let i = 0; i < want.length; i += 1) {
    const g = JSON.stringify(got[i]);
    const w = JSON.stringify(want[i]);
    if (g !== w) return `row ${i}: got ${g}, want ${w}`;
  }
  return null;
}

/** Expected per-request rows in the query's order (key, then time, then seq). */
export function perRequestOrder(rows: ReturnType<typeof expected>, c: Case): Out[] {
  const idx = rows.map((_, i) => i);
  idx.sort((a, b) => {
    const ka = rows[a]?.key as string;
    const kb = rows[b]?.key as string;
    if (ka !== kb) return ka < kb ? -1 : 1;
    return (c.rows[a]?.t as number) - (c.rows[b]?.t as number) || a - b;
  });
  return idx.map((i) => rows[i] as Out);
}

/**
 * A seeded, real-shaped access log: a few hundred client addresses with a heavy tail (a handful
 * send most requests), bursts from page loads, ms times over about ten minutes, statuses mostly
 * 200 with some 404, 429 and 503.
 */
export function accessLog(n: number, seed: number): Row[] {
  let s = seed >>> 0;
  const rand = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  const clients = 300;
  const rows: Row[] = [];
  let t = 1_718_000_000_000 + Math.floor(rand() * 1000);
  for (let i = 0; i < n;) {
    // Zipf-like: client c with weight 1/(c+1).
    const c = Math.min(clients - 1, Math.floor(Math.exp(rand() * Math.log(clients + 1))) - 1);
    const burst = rand() < 0.2 ? 1 + Math.floor(rand() * 12) : 1;
    for (let b = 0; b < burst && i < n; b += 1, i += 1) {
      const u = rand();
      const status = u < 0.85 ? 200 : u < 0.92 ? 404 : u < 0.97 ? 429 : 503;
      rows.push({ t, key: `10.0.${c >> 8}.${c & 255}`, status, seq: i });
      t += rand() < 0.5 ? 0 : Math.floor(rand() * 8);
    }
    t += Math.floor(rand() * 30);
  }
  return rows;
}

/** Fixed configs for the access log: typical settings of every algorithm. */
export const TYPICAL: AlgorithmConfig[] = [
  { kind: 'fixed-window', limit: 10, windowMs: 1000 },
  { kind: 'sliding-log', limit: 20, windowMs: 5000, logRejected: true },
  { kind: 'sliding-window-counter', limit: 30, windowMs: 10_000 },
  {
    kind: 'sliding-window-counter',
    limit: 30,
    windowMs: 10_000,
    anchor: 'entry',
    expireMs: 30_000,
  },
  { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 },
  {
    kind: 'token-bucket',
    maxTokens: 10,
    tokensPerFill: 2,
    fillIntervalMs: 1000,
    refill: 'interval',
    maxDelayMs: 800,
  },
  { kind: 'token-bucket', maxTokens: 8, tokensPerFill: 8, fillIntervalMs: 1000, idleResetS: 2 },
  { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 20, delay: 'nodelay' },
  { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 12, delay: 4 },
  { kind: 'gcra', count: 30, periodMs: 60_000, burst: 15 },
  { kind: 'anchored-window', limit: 15, windowMs: 10_000, countRejected: true },
  {
    kind: 'anchored-window',
    limit: 15,
    windowMs: 10_000,
    blockMs: 20_000,
    execEvenly: true,
    execEvenlyMinDelayMs: 5,
  },
  { kind: 'calendar-windows', second: 5, minute: 60, hour: 1000 },
  {
    kind: 'calendar-windows',
    second: 5,
    month: 100000,
    year: 1000000,
    align: 'calendar',
    counterTtl: true,
  },
  {
    kind: 'calendar-windows',
    second: 4,
    minute: 50,
    countRejected: true,
    shadowMode: true,
    align: 'epoch',
  },
];
