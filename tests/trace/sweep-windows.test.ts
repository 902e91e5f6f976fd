/**
 * The sweep for anchored windows (express-rate-limit, rate-limiter-flexible) and calendar windows
 * (Kong, Envoy's rate limit service): the grid a user of each system tunes, named in its words,
 * every other option of the config kept; every held cell equal to core's dry run of its config
 * (the kernel path and core's path alike), with month and year limits, and under Kong's rule for
 * requests with an empty key.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { assertAlgorithmConfig } from '../../src/core';
import { defaultScenario, nearestRank, peakWindow, simulate } from '../../src/sim';
import type { SimTrace } from '../../src/sim';
import { systemById } from '../../src/systems';
import {
  axisText,
  belowP99,
  emptyKeyId,
  fastSweepCell,
  holdTrace,
  keyEmptyByClient,
  parseTrace,
  prepareSweep,
  replayColumns,
  sweepCell,
  sweepPlan,
  traceHash,
  traceSourceOf,
} from '../../src/trace';
import type { CellResult, SweepPlan } from '../../src/trace';
import { MAIN, SPEC, mainLine } from './emptyKeyLog';
import { pageSweep } from './pageSweep';

const KONG = systemById('kong')!;
const ENVOY = systemById('envoy-global')!;
const ERL = systemById('express-rate-limit')!;
const RLF = systemById('rate-limiter-flexible')!;

/** Every cell's config, x-major (as the page lays them out). */
function cells(plan: SweepPlan): AlgorithmConfig[] {
  const out: AlgorithmConfig[] = [];
  for (let xi = 0; xi < plan.x.values.length; xi += 1)
    for (let yi = 0; yi < plan.y.values.length; yi += 1) out.push(plan.configAt(xi, yi));
  return out;
}

/** `config` without the fields named. */
function without(config: AlgorithmConfig, ...fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const f of fields) delete out[f];
  return out;
}

describe('the grid, as a user of each system tunes it', () => {
  it('Kong: its two shortest periods, named as Kong names them; counter TTL and the rest kept', () => {
    const base: AlgorithmConfig = {
      kind: 'calendar-windows',
      second: 3,
      minute: 50,
      day: 1000,
      counterTtl: true,
    };
    const plan = sweepPlan(base, 20, KONG.params)!;
    expect(plan.x.label).toBe('second');
    expect(plan.y.label).toBe('minute');
    // Around the current limits: a tenth of them to ten times them.
    expect([plan.x.values[0], plan.x.values.at(-1)]).toEqual([1, 30]);
    expect([plan.y.values[0], plan.y.values.at(-1)]).toEqual([5, 500]);
    expect(plan.x.values.length).toBeLessThanOrEqual(20);
    for (const [xi, yi] of [
      [0, 0],
      [5, 7],
      [plan.x.values.length - 1, plan.y.values.length - 1],
    ] as const) {
      const c = plan.configAt(xi, yi);
      expect(assertAlgorithmConfig(c)).toEqual(c);
      expect(without(c, 'second', 'minute')).toEqual(without(base, 'second', 'minute'));
      expect(c).toMatchObject({ second: plan.x.values[xi], minute: plan.y.values[yi] });
    }
  });

  it('Envoy with one unit: its limit × the next unit’s up to none, in requests_per_unit words', () => {
    const base = ENVOY.derive!({ kind: 'calendar-windows', minute: 10, shadowMode: true });
    const plan = sweepPlan(base, 20, ENVOY.params)!;
    expect(plan.x.label).toBe('requests_per_unit (unit: minute)');
    expect(plan.y.label).toBe('requests_per_unit (unit: hour)');
    // None last: the loosest value at the top, the axis going from strictest to loosest.
    expect(plan.y.values.at(-1)).toBe(0);
    expect(axisText(plan.y, 0)).toBe('none');
    expect(axisText(plan.y, plan.y.values[3]!)).toBe(String(plan.y.values[3]));
    expect(axisText(plan.x, plan.x.values[0]!)).toBe('1');
    // 0 is no hour limit: the field is left out, and the rest is Envoy's (epoch, counted, shadow).
    const none = plan.configAt(2, plan.y.values.length - 1);
    expect(none).toEqual({ ...base, minute: plan.x.values[2] });
    expect('hour' in none).toBe(false);
    const some = plan.configAt(2, 4);
    expect(some).toEqual({ ...base, minute: plan.x.values[2], hour: plan.y.values[4] });
    for (const c of cells(plan)) expect(assertAlgorithmConfig(c)).toEqual(c);
    // Up to 10 times what 10 a minute allows in an hour, then none.
    expect(plan.y.values.at(-2)).toBe(6000);
  });

  it('a year alone: the month’s limit (up to none) across, the year’s up; month alone: × year', () => {
    const year = sweepPlan({ kind: 'calendar-windows', year: 1000, counterTtl: true }, 20)!;
    expect([year.x.field, year.y.field]).toEqual(['month', 'year']);
    expect(year.x.values.at(-1)).toBe(0);
    expect(year.configAt(year.x.values.length - 1, 3)).toEqual({
      kind: 'calendar-windows',
      year: year.y.values[3],
      counterTtl: true,
    });
    expect(year.configAt(4, 3)).toMatchObject({ month: year.x.values[4], year: year.y.values[3] });
    const month = sweepPlan({ kind: 'calendar-windows', month: 100 }, 20)!;
    expect([month.x.field, month.y.field]).toEqual(['month', 'year']);
    for (const c of [...cells(year), ...cells(month)]) expect(assertAlgorithmConfig(c)).toEqual(c);
  });

  it('express-rate-limit: limit × windowMs (ms), counting rejected hits as it does', () => {
    const plan = sweepPlan(ERL.defaultConfig, 20, ERL.params)!;
    expect(plan.x.label).toBe('limit');
    expect(plan.y.label).toBe('windowMs (ms)');
    expect([plan.x.values[0], plan.x.values.at(-1)]).toEqual([1, 50]);
    expect([plan.y.values[0], plan.y.values.at(-1)]).toEqual([6000, 600_000]);
    const c = plan.configAt(1, 2);
    expect(c).toEqual({
      ...ERL.defaultConfig,
      limit: plan.x.values[1],
      windowMs: plan.y.values[2],
    });
    expect(c).toMatchObject({ countRejected: true });
  });

  it('rate-limiter-flexible: points × duration (ms); cost, block and execEvenly kept; duration 0', () => {
    const base: AlgorithmConfig = {
      kind: 'anchored-window',
      limit: 8,
      windowMs: 0,
      countRejected: true,
      blockMs: 5000,
      execEvenly: true,
      execEvenlyMinDelayMs: 7,
      cost: 3,
    };
    const plan = sweepPlan(base, 20, RLF.params)!;
    expect(plan.x.label).toBe('points');
    expect(plan.y.label).toBe('duration (ms)');
    // Points start at the cost (core refuses fewer); 0 ("never expires") is kept as a value.
    expect(plan.x.values[0]).toBe(3);
    expect(plan.x.values).toContain(8);
    expect(plan.y.values[0]).toBe(0);
    expect(plan.y.values[1]).toBe(1000);
    expect(plan.y.values.at(-1)).toBe(86_400_000);
    for (const c of cells(plan)) {
      expect(assertAlgorithmConfig(c)).toEqual(c);
      expect(without(c, 'limit', 'windowMs')).toEqual(without(base, 'limit', 'windowMs'));
    }
  });
});

/** Requests in bursts around an hour's and a day's boundary (virtual time), 5 keys. */
function burstyTrace(rows: Array<[number, number, number]>): SimTrace {
  const anchors = [0, 1_000, 3_599_000, 86_399_200, 2_000_000_000];
  const sorted = rows
    .map(([a, off, k]) => [(anchors[a] as number) + off, k] as const)
    .sort((p, q) => p[0] - q[0]);
  return {
    hash: '00000000000000cc',
    timeMs: Int32Array.from(sorted.map((r) => r[0])),
    keyId: Uint32Array.from(sorted.map((r) => r[1])),
    keys: ['k0', 'k1', 'k2', 'k3', 'k4'],
  };
}

/** A cell worked out from core's dry run of `config` (replayColumns), as the sim measures. */
function fromDryRun(trace: SimTrace, config: AlgorithmConfig, w: number): CellResult {
  const r = replayColumns(trace, config);
  const below = belowP99(trace);
  const backend: number[] = [];
  const delays: number[] = [];
  let offeredBelow = 0;
  let rejectedBelow = 0;
  for (let i = 0; i < r.count; i += 1) {
    const t = trace.timeMs[i] as number;
    const b = below[trace.keyId[i] as number] === 1;
    if (b) offeredBelow += 1;
    if (r.outcome[i] === 0) backend.push(t);
    else if (r.outcome[i] === 1) {
      delays.push(r.delayMs[i] as number);
      backend.push(t + (r.delayMs[i] as number));
    } else if (b) rejectedBelow += 1;
  }
  backend.sort((a, b) => a - b);
  delays.sort((a, b) => a - b);
  const n = r.count;
  return {
    offered: n,
    rejected: r.rejected,
    delayed: r.delayed,
    rejectedShare: n > 0 ? r.rejected / n : 0,
    rejectedShareP99: offeredBelow > 0 ? rejectedBelow / offeredBelow : 0,
    peakBackend: peakWindow(Float64Array.from(backend), backend.length, w).count,
    p95DelayMs: nearestRank(delays, 0.95),
  };
}

const BASES: Array<[string, AlgorithmConfig, readonly { field: string; key: string }[]]> = [
  [
    'express-rate-limit',
    { kind: 'anchored-window', limit: 3, windowMs: 1500, countRejected: true },
    ERL.params,
  ],
  [
    'rate-limiter-flexible, block + execEvenly',
    {
      kind: 'anchored-window',
      limit: 4,
      windowMs: 1000,
      countRejected: true,
      blockMs: 2500,
      execEvenly: true,
    },
    RLF.params,
  ],
  [
    'rate-limiter-flexible, cost 2, duration 0, min delay',
    {
      kind: 'anchored-window',
      limit: 6,
      windowMs: 0,
      countRejected: true,
      blockMs: 800,
      execEvenly: true,
      execEvenlyMinDelayMs: 3,
      cost: 2,
    },
    RLF.params,
  ],
  ['anchored, rejected not counted', { kind: 'anchored-window', limit: 2, windowMs: 700 }, []],
  [
    'Kong second × minute',
    { kind: 'calendar-windows', second: 2, minute: 6, counterTtl: true },
    KONG.params,
  ],
  [
    'Kong hour × day, a month and a year too',
    { kind: 'calendar-windows', hour: 4, day: 9, month: 12, year: 14, counterTtl: true },
    KONG.params,
  ],
  [
    'Kong minute alone (× hour up to none)',
    { kind: 'calendar-windows', minute: 3, counterTtl: true },
    KONG.params,
  ],
  ['year alone, no TTL', { kind: 'calendar-windows', year: 9 }, []],
  [
    'Envoy, epoch, shadow mode',
    ENVOY.derive!({ kind: 'calendar-windows', second: 2, minute: 5, month: 20, shadowMode: true }),
    ENVOY.params,
  ],
  ['Envoy, epoch', ENVOY.derive!({ kind: 'calendar-windows', minute: 4, day: 10 }), ENVOY.params],
];

describe('every held cell is core’s dry run of its config', () => {
  it.each(BASES)('%s', (_name, base, words) => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 4 }),
            fc.integer({ min: 0, max: 5000 }),
            fc.integer({ min: 0, max: 4 }),
          ),
          { minLength: 1, maxLength: 120 },
        ),
        (rows) => {
          const trace = burstyTrace(rows);
          const plan = sweepPlan(base, 4, words);
          expect(plan).not.toBeNull();
          if (plan === null) return;
          const below = belowP99(trace);
          const prep = prepareSweep({
            timeMs: trace.timeMs,
            keyId: trace.keyId,
            keyCount: trace.keys.length,
          });
          const scenario = { ...defaultScenario(), sources: [traceSourceOf(trace, 't.log', 1)] };
          for (const config of cells(plan)) {
            const want = fromDryRun(trace, config, 1000);
            expect(sweepCell(trace, config, 1000, below)).toEqual(want);
            expect(fastSweepCell(prep, config, 1000)).toEqual(want);
            // The main view's numbers for the same config (the stage replays at most a day).
            const end = (trace.timeMs.at(-1) as number) + 1;
            if (end > 86_400_000) continue;
            const lane = simulate([config], scenario, end, { traces: [trace] }).lanes[0]!;
            expect(want.rejected).toBe(lane.metrics.first.rejected);
            expect(want.delayed).toBe(lane.metrics.first.delayed);
            expect(want.peakBackend).toBe(lane.metrics.peakBackend.count);
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it('the grids are not trivial: some cells reject, some delay, some pass everything', () => {
    const rows: Array<[number, number, number]> = [];
    for (let i = 0; i < 400; i += 1) rows.push([i % 5, (i * 37) % 5000, i % 3]);
    const trace = burstyTrace(rows);
    const prep = prepareSweep({ timeMs: trace.timeMs, keyId: trace.keyId, keyCount: 5 });
    const all = BASES.flatMap(([, base, words]) =>
      cells(sweepPlan(base, 6, words)!).map((c) => fastSweepCell(prep, c, 1000)),
    );
    expect(all.some((c) => c.rejected > 0)).toBe(true);
    expect(all.some((c) => c.rejected === 0)).toBe(true);
    expect(all.some((c) => c.delayed > 0)).toBe(true);
  });
});

/**
 * 150 nginx `main` lines over five minutes: behind the proxy, X-Forwarded-For names one of three
 * clients; every third line comes straight from a client with no header (its key is empty).
 */
function kongLog(): string {
  const direct = ['203.0.113.7', '198.51.100.9', '192.0.2.4', '203.0.113.7'];
  const viaProxy = ['203.0.113.7', '203.0.113.8', '203.0.113.9'];
  const lines: string[] = [];
  for (let i = 0; i < 150; i += 1) {
    const [addr, xff] =
      i % 3 === 0
        ? [direct[(i / 3) % direct.length] as string, '-']
        : ['10.0.0.1', viaProxy[i % viaProxy.length] as string];
    lines.push(mainLine(2 * i, addr, xff));
  }
  return `${lines.join('\n')}\n`;
}

describe('Kong’s held sweep keys an empty-key request by its address (the rule ‘client’)', () => {
  const built = parseTrace(new TextEncoder().encode(kongLog()), {
    name: 'access.log',
    logFormat: MAIN,
    keySpec: SPEC,
  });
  const { held } = holdTrace(built);
  const timeMs = held.times as Int32Array;
  const sim: SimTrace = {
    hash: traceHash(timeMs, held.keyId, held.keys),
    timeMs,
    keyId: held.keyId,
    keys: held.keys,
    emptyKeyId: emptyKeyId(held),
    ...(held.emptyClients === undefined ? {} : { emptyClients: held.emptyClients }),
  };
  const moved = keyEmptyByClient(held, held.emptyClients)!;
  const base = KONG.derive!({ kind: 'calendar-windows', minute: 6, hour: 40 });
  const plan = sweepPlan(base, 5, KONG.params)!;
  const configs = cells(plan);

  /** The page's held sweep (src/store/sweep.ts runSweep, here without workers). */
  function sweep(rule: 'client' | null): Promise<CellResult[]> {
    return pageSweep(sim, configs, 1000, rule);
  }

  it('each cell equals core’s dry run over the key column with each moved to its address', async () => {
    expect(moved.moved).toBe(50);
    const got = await sweep('client');
    const movedTrace: SimTrace = { ...sim, keyId: moved.keyId, keys: moved.keys };
    const want = configs.map((c) => fromDryRun(movedTrace, c, 1000));
    expect(got).toEqual(want);
    for (let i = 0; i < configs.length; i += 1) {
      const r = replayColumns({ timeMs, keyId: moved.keyId, keys: moved.keys }, configs[i]!);
      expect(got[i]!.rejected).toBe(r.rejected);
    }
    // Under one shared key the cells differ: the rule is what the equality above checks.
    const shared = await sweep(null);
    expect(shared).not.toEqual(got);
    expect(got.some((c) => c.rejected > 0) && got.some((c) => c.rejected === 0)).toBe(true);
  });
});
