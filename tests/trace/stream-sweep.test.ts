/**
 * The sweep as a streaming pass (src/trace/streamSweep.ts) gives the held sweep's numbers cell by
 * cell: on random traces and configs of every kind fed in chunks of any size, and on a log read
 * through the streaming reader (one stream, or segments) against the held read's 20 × 20 sweep.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assertAlgorithmConfig } from '../../src/core';
import type { AlgorithmConfig } from '../../src/core';
import {
  BlobSink,
  StreamPass,
  StreamSweepPass,
  SweepCells,
  belowP99OfCounts,
  emptyKeyName,
  stateBytes,
  stateBytesPerKey,
  sweepPasses,
  sweepRecorded,
  TraceStream,
  belowByName,
  belowP99,
  fastSweepCell,
  parseTrace,
  prepareSweep,
  streamRead,
  sweepCellsPerPass,
  sweepCell,
  sweepPlan,
  virtualTimes,
} from '../../src/trace';
import type { RangeReader, StreamSource } from '../../src/trace';
import { systemById } from '../../src/systems';
import { ArrayRecycler, kernelState, runKernel } from '../../src/trace/kernels';
import { configArb, traceArb } from './sweepArbs';
import { chunkInput } from './kernelInput';

describe('streamed sweep cells equal the held sweep', () => {
  it('on random traces and configs, in chunks of any size', () => {
    fc.assert(
      fc.property(
        traceArb,
        fc.array(configArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(1, 7, 1000),
        fc.integer({ min: 1, max: 50 }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom('admit' as const, 'reject' as const)), {
          nil: null,
        }),
        // The epoch ms time 0 stands for: 0, or a first request 1 ms before a minute's edge.
        fc.constantFrom(0, Date.UTC(2026, 0, 5, 0, 1) - 1),
        (trace, configs, w, chunk, empty, originMs) => {
          const n = trace.timeMs.length;
          const counts = new Float64Array(trace.keys.length);
          for (const k of trace.keyId) counts[k] = (counts[k] as number) + 1;
          // One of the keys stands for the empty key, under a system's rule (or none).
          const emptyId = empty === null ? -1 : empty[0] % trace.keys.length;
          const emptyKey =
            empty === null ? null : { name: trace.keys[emptyId] as string, outcome: empty[1] };
          const cells = new SweepCells(configs, w, belowByName(trace.keys, counts), emptyKey);
          // Keys appear to the stream as they are first seen: the list grows between chunks.
          let seen = 0;
          for (let from = 0; from < n; from += chunk) {
            const to = Math.min(n, from + chunk);
            for (let i = from; i < to; i += 1)
              seen = Math.max(seen, (trace.keyId[i] as number) + 1);
            cells.push(
              trace.timeMs.slice(from, to),
              trace.keyId.slice(from, to),
              to - from,
              trace.keys.slice(0, seen),
              originMs,
            );
          }
          const prep = prepareSweep({
            timeMs: trace.timeMs,
            keyId: trace.keyId,
            keyCount: trace.keys.length,
            keys: trace.keys,
            emptyKey: empty === null ? null : { id: emptyId, outcome: empty[1] },
            originMs,
          });
          const got = cells.finish();
          configs.forEach((c, i) => {
            expect(got[i]).toEqual({ ok: true, result: fastSweepCell(prep, c, w) });
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a cell whose config is invalid says why; the others are computed', () => {
    const cells = new SweepCells(
      [
        { kind: 'fixed-window', limit: -1, windowMs: 1000 },
        { kind: 'fixed-window', limit: 1, windowMs: 1000 },
      ],
      1000,
      () => 1,
    );
    cells.push(Int32Array.of(0, 5), Uint32Array.of(0, 0), 2, ['a']);
    const [bad, good] = cells.finish();
    expect(bad?.ok).toBe(false);
    expect(bad?.ok === false && bad.message).toMatch(/limit/);
    expect(good).toEqual({
      ok: true,
      result: {
        offered: 2,
        rejected: 1,
        delayed: 0,
        rejectedShare: 0.5,
        rejectedShareP99: 0.5,
        peakBackend: 1,
        p95DelayMs: 0,
      },
    });
  });

  it('splits the cells into passes by the state they hold', () => {
    const c: AlgorithmConfig[] = Array.from({ length: 400 }, () => ({
      kind: 'gcra',
      count: 1,
      periodMs: 1000,
      burst: 1,
    }));
    // GCRA holds 17 bytes a key (a seen flag, the TAT's ms and its fraction).
    expect(stateBytesPerKey(c[0] as AlgorithmConfig)).toBe(17);
    expect(sweepCellsPerPass(c, 100_000, 64e6)).toBe(37);
    // Keys that appear during the pass: arrays that double may hold twice that.
    expect(sweepCellsPerPass(c, 100_000, 64e6, 2)).toBe(18);
    expect(sweepCellsPerPass(c, 500, 64e6)).toBe(400);
    expect(sweepCellsPerPass(c, 10e6, 64e6)).toBe(1);
    expect(sweepPasses(c, 100_000, 64e6)).toEqual([37, 37, 37, 37, 37, 37, 37, 37, 37, 37, 30]);
  });

  it("decides Kong's and Envoy's 20 × 20 grids over 5,000 keys in one pass per worker", () => {
    // The streamed sweep's cell workers (two on two cores) each take every other cell with half of
    // the 64 MB budget; a second pass would make new per-key arrays while the first pass's still
    // wait for a collection.
    for (const id of ['kong', 'envoy-global'] as const) {
      const system = systemById(id)!;
      const plan = sweepPlan(system.defaultConfig, 20, system.params)!;
      const grid: AlgorithmConfig[] = [];
      for (let x = 0; x < plan.x.values.length; x += 1)
        for (let y = 0; y < plan.y.values.length; y += 1) grid.push(plan.configAt(x, y));
      const half = grid.filter((_, i) => i % 2 === 0);
      expect(sweepPasses(half, 5000, 32 * 1024 * 1024)).toEqual([half.length]);
    }
  });

  it('counts the bytes each kernel really holds per key', () => {
    const bytes = (c: AlgorithmConfig) => stateBytesPerKey(c);
    expect(bytes({ kind: 'fixed-window', limit: 1, windowMs: 1000 })).toBe(12);
    expect(bytes({ kind: 'sliding-window-counter', limit: 1, windowMs: 1000 })).toBe(24);
    expect(
      bytes({ kind: 'sliding-window-counter', limit: 1, windowMs: 1000, anchor: 'entry' }),
    ).toBe(33);
    expect(bytes({ kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 1, delay: 0 })).toBe(25);
    expect(
      bytes({ kind: 'token-bucket', maxTokens: 1, tokensPerFill: 1, fillIntervalMs: 1000 }),
    ).toBe(25);
    // Calendar windows: a period number and a count (Int32) a unit, with or without Kong's TTL.
    expect(bytes({ kind: 'calendar-windows', minute: 10 })).toBe(8);
    expect(bytes({ kind: 'calendar-windows', minute: 5, hour: 100, counterTtl: true })).toBe(16);
    expect(bytes({ kind: 'calendar-windows', second: 1, minute: 2, hour: 3, year: 4 })).toBe(32);
    // The chunked sliding log, Caddy's too: a ring's offset, size, oldest entry and length (Int32)
    // a key; its rings are counted by stateBytes.
    expect(bytes({ kind: 'sliding-log', limit: 1, windowMs: 1000 })).toBe(16);
    expect(bytes({ kind: 'sliding-log', limit: 5, windowMs: 1001, lastMsPasses: true })).toBe(16);
    expect(bytes({ kind: 'fixed-window', limit: -1, windowMs: 1000 })).toBe(0);
  });

  it('budgets the sliding log’s rings exactly from the keys’ requests', () => {
    const log = (limit: number): AlgorithmConfig => ({
      kind: 'sliding-log',
      limit,
      windowMs: 1000,
    });
    // Three keys of 1, 7 and 100 requests: rings of min(limit, requests) Int32 entries, and the
    // 16 bytes a key of per-key arrays.
    const counts = Float64Array.of(1, 7, 100);
    expect(stateBytes(log(5), counts)).toBe(3 * 16 + 4 * (1 + 5 + 5));
    expect(stateBytes(log(50), counts)).toBe(3 * 16 + 4 * (1 + 7 + 50));
    // Caddy's ring (the last-millisecond pass) is the same kernel: the same exact count.
    const caddy: AlgorithmConfig = {
      kind: 'sliding-log',
      limit: 5,
      windowMs: 1001,
      lastMsPasses: true,
    };
    expect(stateBytes(caddy, counts)).toBe(3 * 16 + 4 * (1 + 5 + 5));
    expect(stateBytes(caddy, 3)).toBe(3 * 16 + 2 * 3 * 4 * (4 + 5));
    // Only how many keys: every size a ring grows through (4, 8, …, the limit), in an arena that
    // doubles; the per-key arrays × growth as every kernel's.
    expect(stateBytes(log(50), 3)).toBe(3 * 16 + 2 * 3 * 4 * (4 + 8 + 16 + 32 + 50));
    expect(stateBytes(log(50), 3, 2)).toBe(3 * 16 * 2 + 2 * 3 * 4 * (4 + 8 + 16 + 32 + 50));
    // Other kernels: their per-key arrays, counts or not (the counts only say how many keys).
    const gcra: AlgorithmConfig = { kind: 'gcra', count: 1, periodMs: 1000, burst: 1 };
    expect(stateBytes(gcra, counts)).toBe(3 * 17);
    expect(stateBytes(gcra, 3)).toBe(3 * 17);
    // 5,000 keys, 4,000 of them with 2 requests and 1,000 with 10,000: a grid of limits 1..20
    // planned by the counts takes the passes the exact sum allows.
    const many = new Float64Array(5000).fill(2);
    many.fill(10_000, 4000);
    const grid = Array.from({ length: 20 }, (_, i) => log(i + 1));
    const each = grid.map((c) => stateBytes(c, many));
    expect(each[19]).toBe(5000 * 16 + 4 * (4000 * 2 + 1000 * 20));
    const budget = 200_000;
    const groups = sweepPasses(grid, many, budget);
    expect(groups.reduce((a, b) => a + b, 0)).toBe(20);
    let at = 0;
    for (const n of groups) {
      const used = each.slice(at, at + n).reduce((a, b) => a + b, 0);
      // Each pass within the budget, and one more cell would not have been.
      expect(used).toBeLessThanOrEqual(budget);
      if (at + n < 20) expect(used + (each[at + n] as number)).toBeGreaterThan(budget);
      at += n;
    }
  });

  it('the kernel holds exactly the bytes stateBytes counts, given the counts', () => {
    fc.assert(
      fc.property(
        traceArb,
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 97 }),
        fc.boolean(),
        (trace, limit, chunk, caddy) => {
          // Every request logged (logRejected), or Caddy's ring of passed ones.
          const config: AlgorithmConfig = caddy
            ? { kind: 'sliding-log', limit, windowMs: 1000, lastMsPasses: true }
            : { kind: 'sliding-log', limit, windowMs: 1000, logRejected: true };
          const counts = new Float64Array(trace.keys.length);
          for (const k of trace.keyId) counts[k] = (counts[k] as number) + 1;
          const state = kernelState();
          const n = trace.timeMs.length;
          for (let from = 0; from < n; from += chunk) {
            const to = Math.min(n, from + chunk);
            runKernel(
              chunkInput(
                trace.timeMs.slice(from, to),
                trace.keyId.slice(from, to),
                trace.keys.length,
                { state, keyRequests: counts },
              ),
              config,
            );
          }
          let held = 0;
          for (const a of state.arrays.values()) held += a.byteLength;
          expect(held).toBe(stateBytes(config, counts));
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('a streamed sliding-log sweep equals the held sweep cell by cell', () => {
  it('on random traces, limits 1–50, logRejected on and off, Caddy’s ring, keys counted before the first chunk', () => {
    fc.assert(
      fc.property(
        traceArb,
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.constantFrom('plain', 'logRejected', 'caddy'),
        fc.integer({ min: 1, max: 50 }),
        fc.boolean(),
        (trace, limit, windowMs, mode, chunk, counted) => {
          const base: AlgorithmConfig =
            mode === 'caddy'
              ? { kind: 'sliding-log', limit, windowMs, lastMsPasses: true }
              : { kind: 'sliding-log', limit, windowMs, logRejected: mode === 'logRejected' };
          const grid = gridOf(base);
          // Caddy's grid keeps its last-millisecond pass in every cell.
          if (mode === 'caddy') {
            expect(grid.every((c) => c.kind === 'sliding-log' && c.lastMsPasses === true)).toBe(
              true,
            );
          }
          const configs = grid.filter((_, i) => i % 37 === 0);
          const n = trace.timeMs.length;
          const counts = new Float64Array(trace.keys.length);
          for (const k of trace.keyId) counts[k] = (counts[k] as number) + 1;
          const below = belowP99OfCounts(Array.from(counts));
          const cells = new SweepCells(configs, 1000, below, null, null, counted ? counts : null);
          for (let from = 0; from < n; from += chunk) {
            const to = Math.min(n, from + chunk);
            cells.push(
              trace.timeMs.slice(from, to),
              trace.keyId.slice(from, to),
              to - from,
              trace.keys,
            );
          }
          const prep = prepareSweep({
            timeMs: trace.timeMs,
            keyId: trace.keyId,
            keyCount: trace.keys.length,
            keys: trace.keys,
          });
          expect(cells.finish()).toEqual(
            configs.map((c) => ({ ok: true, result: fastSweepCell(prep, c, 1000) })),
          );
          // And core's own sweep of the held trace (the held kernel is checked against it in
          // tests/trace/kernels.test.ts; here the streamed cells meet core directly).
          const below99 = belowP99(trace);
          expect(cells.finish()).toEqual(
            configs.map((c) => ({ ok: true, result: sweepCell(trace, c, 1000, below99) })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** A combined-like log ($msec at the end): bursts over 30 keys, one heavy. */
function log(n: number): string {
  const out: string[] = [];
  let ms = 1_767_571_200_000;
  for (let i = 0; i < n; i += 1) {
    ms += i % 50 < 10 ? 3 : 61;
    const key = i % 3 === 0 ? 0 : (i * 7) % 30;
    out.push(
      `10.0.1.${key} - - [05/Jan/2026:00:00:00 +0000] "GET /p HTTP/1.1" 200 1 "-" "UA" "-" 0.001 ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n') + '\n';
}

function source(bytes: Uint8Array): StreamSource {
  const blob = new Blob([bytes as Uint8Array<ArrayBuffer>]);
  return {
    name: 'big.log',
    size: blob.size,
    slice: (a, b) => blob.slice(a, b),
    stream: () => blob.stream(),
  };
}

const rangeReader =
  (file: StreamSource): RangeReader =>
  async (start, end, options) => {
    const s = new TraceStream({ ...options, rangeStart: start });
    s.push(new Uint8Array(await file.slice(start, end).arrayBuffer()));
    return s.finishPart();
  };

describe('a 20 × 20 sweep streamed from a log equals the held sweep cell by cell', () => {
  const bytes = enc(log(6_000));
  const spec = [{ kind: 'client' as const }];
  const trace = parseTrace(bytes, { name: 'big.log', keySpec: spec });
  const base: AlgorithmConfig[] = [
    { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 4, delay: 2 },
    { kind: 'token-bucket', maxTokens: 4, tokensPerFill: 2, fillIntervalMs: 1000, maxDelayMs: 300 },
    { kind: 'sliding-log', limit: 5, windowMs: 1000 },
  ];

  it.each(base.map((c) => [c.kind, c] as const))('%s', async (_kind, config) => {
    const plan = sweepPlan(config, 20);
    if (plan === null) throw new Error('no plan');
    const configs: AlgorithmConfig[] = [];
    for (let xi = 0; xi < plan.x.values.length; xi += 1)
      for (let yi = 0; yi < plan.y.values.length; yi += 1) configs.push(plan.configAt(xi, yi));
    const file = source(bytes);
    const hooks = (segments: number) => ({
      parallel: 2,
      readRange: rangeReader(file),
      progress: () => {},
      segmentBytes: Math.ceil(bytes.length / segments),
    });
    // The counting pass first (the one that opened the log), then the sweep's.
    const counting = new StreamPass(file.name, spec, []);
    await streamRead(file, counting, { keySpec: spec }, hooks(3));
    const below = counting.keyVolumes();
    const pass = new StreamSweepPass(
      file.name,
      spec,
      configs,
      1000,
      belowByName(below.keys, below.counts),
    );
    const r = await streamRead(file, pass, { keySpec: spec }, hooks(5));
    expect(r.exact).toBe(true);
    expect(r.requests).toBe(trace.count);
    const prep = prepareSweep({
      timeMs: virtualTimes(trace),
      keyId: trace.keyId,
      keyCount: trace.keys.length,
      keys: trace.keys,
      originMs: Math.floor(trace.arrivalMs[0] as number),
    });
    const want = configs.map((c) => ({ ok: true, result: fastSweepCell(prep, c, 1000) }));
    expect(r.cells).toEqual(want);
    // Some cells reject and some delay: the comparison is not over trivial numbers.
    expect(want.some((c) => c.result.rejected > 0)).toBe(true);
    expect(want.some((c) => c.result.rejected === 0)).toBe(true);
  });
});

/** Every cell of the 20 × 20 grid around `config`. */
/** An ArrayRecycler that counts the arrays it hands out again and the ones it makes. */
class CountingRecycler extends ArrayRecycler {
  private readonly given = new WeakSet<object>();
  reused = 0;
  made = 0;
  override put(arrays: Iterable<Float64Array | Int32Array | Uint8Array>): void {
    const all = [...arrays];
    for (const a of all) this.given.add(a);
    super.put(all);
  }
  override take<T extends Float64Array | Int32Array | Uint8Array>(
    make: (n: number) => T,
    n: number,
  ): T {
    const a = super.take(make, n);
    if (n > 0 && this.given.has(a)) this.reused += 1;
    else if (n > 0) this.made += 1;
    return a;
  }
}

/** Arrays of every kind a kernel keeps, `keys` long and longer, full of junk. */
function junkArrays(keys: number): (Float64Array | Int32Array | Uint8Array)[] {
  const out: (Float64Array | Int32Array | Uint8Array)[] = [];
  for (let i = 0; i < 4; i += 1) {
    out.push(new Float64Array(keys).fill(7.5), new Float64Array(keys).fill(-3));
    out.push(new Int32Array(keys).fill(12_345), new Int32Array(keys).fill(-1));
    out.push(new Uint8Array(keys).fill(1), new Int32Array(keys * 16).fill(99));
  }
  return out;
}

function gridOf(config: AlgorithmConfig): AlgorithmConfig[] {
  const plan = sweepPlan(config, 20);
  if (plan === null) throw new Error('no plan');
  const configs: AlgorithmConfig[] = [];
  for (let xi = 0; xi < plan.x.values.length; xi += 1)
    for (let yi = 0; yi < plan.y.values.length; yi += 1) configs.push(plan.configAt(xi, yi));
  return configs;
}

/**
 * A log of `keys` addresses behind a proxy (X-Forwarded-For), a heavy few and a long tail; every
 * `emptyEvery`-th line has no X-Forwarded-For (its key is empty).
 */
function manyKeysLog(n: number, keys: number, emptyEvery: number): string {
  const out: string[] = [];
  let ms = 1_767_571_200_000;
  let x = 44;
  for (let i = 0; i < n; i += 1) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    const r = Math.floor(x / 65_536); // the high bits: an LCG's low bits repeat quickly
    ms += r % 7 === 0 ? 90 : r % 5;
    const key = r % 4 === 0 ? r % 5 : r % keys;
    const xff = emptyEvery > 0 && i % emptyEvery === 0 ? '-' : `203.0.${key >> 8}.${key & 255}`;
    out.push(
      `10.0.0.1 - - [05/Jan/2026:00:00:00 +0000] "GET /p HTTP/1.1" 200 1 "-" "UA" "${xff}" 0.001 ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n') + '\n';
}

/** The log as a file, and hooks that read it in `segments` segments, two at once. */
function segmented(bytes: Uint8Array, segments: number) {
  const file = source(bytes);
  const hooks = {
    parallel: 2,
    readRange: rangeReader(file),
    progress: () => {},
    segmentBytes: Math.ceil(bytes.length / segments),
  };
  return { file, hooks };
}

describe('the sweep over the recorded requests equals the held sweep cell by cell', () => {
  const spec = [{ kind: 'xff-first' as const }];
  const bytes = enc(manyKeysLog(20_000, 3_000, 23));
  const trace = parseTrace(bytes, { name: 'many.log', keySpec: spec });
  const emptyId = trace.keys.indexOf(emptyKeyName(spec) as string);
  const { file, hooks } = segmented(bytes, 4);
  const held = (configs: AlgorithmConfig[], outcome: 'admit' | 'reject' | null) => {
    const prep = prepareSweep({
      timeMs: virtualTimes(trace),
      keyId: trace.keyId,
      keyCount: trace.keys.length,
      keys: trace.keys,
      emptyKey: outcome === null ? null : { id: emptyId, outcome },
      // Time 0 is the first request's whole-ms arrival (not on a second's edge in this log).
      originMs: Math.floor(trace.arrivalMs[0] as number),
    });
    return configs.map((c) => ({ ok: true, result: fastSweepCell(prep, c, 1000) }));
  };

  it('records once, then decides the cells in several passes over the copy', async () => {
    expect(trace.keys.length).toBeGreaterThan(2_000);
    expect(emptyId).toBeGreaterThanOrEqual(0);
    const sink = new BlobSink();
    const pass = new StreamSweepPass(file.name, spec, [], 1000, () => 0, { sink });
    const r = await streamRead(file, pass, { keySpec: spec }, hooks);
    expect(r.exact).toBe(true);
    expect(r.requests).toBe(trace.count);
    const v = pass.keyVolumes();
    // Lines without X-Forwarded-For carry their address in the copy: under the empty key here.
    const addressing = { emptyName: emptyKeyName(spec) as string, byAddress: null };
    expect(pass.originMs).toBe(Math.floor(trace.arrivalMs[0] as number));
    expect(pass.originMs % 1000).not.toBe(0);
    const rec = {
      blob: sink.blob(),
      count: r.requests,
      keys: v.keys,
      addressing,
      originMs: pass.originMs,
      counts: v.counts,
    };
    expect(rec.blob.size).toBe(8 * trace.count);
    const below = belowP99OfCounts(Array.from(v.counts));
    for (const base of [
      { kind: 'fixed-window', limit: 3, windowMs: 1000 },
      { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 4, delay: 2 },
      { kind: 'gcra', count: 5, periodMs: 1000, burst: 3 },
      { kind: 'sliding-log', limit: 5, windowMs: 1000 },
      { kind: 'sliding-log', limit: 8, windowMs: 2000, logRejected: true },
    ] as AlgorithmConfig[]) {
      const configs = gridOf(base);
      // A budget that holds about 30 cells' state (GCRA's): the grid takes many passes, planned by
      // the keys' requests as the cells are given them.
      const groups = sweepPasses(configs, v.counts, 30 * 25 * v.keys.length);
      expect(groups.length).toBeGreaterThan(base.kind === 'fixed-window' ? 1 : 5);
      for (const outcome of [null, 'admit', 'reject'] as const) {
        const emptyKey = outcome === null ? null : { name: trace.keys[emptyId] as string, outcome };
        // Each pass takes the arrays of the pass before (the first, arrays full of junk, as a
        // pass before would leave them): a kernel must set every slot it reads.
        const recycler = new CountingRecycler();
        recycler.put(junkArrays(v.keys.length));
        const got = [];
        let at = 0;
        for (const n of groups) {
          got.push(
            ...(await sweepRecorded(
              rec,
              configs.slice(at, at + n),
              1000,
              below,
              emptyKey,
              undefined,
              undefined,
              recycler,
            )),
          );
          at += n;
          // This pass's arrays wait for the next one; what the pass did not take is forgotten.
          expect(recycler.waiting).toBeGreaterThan(0);
        }
        const want = held(configs, outcome);
        expect(got).toEqual(want);
        expect(want.some((c) => c.result.rejected > 0)).toBe(true);
        // Most arrays after the first pass were taken again, not made.
        expect(recycler.reused).toBeGreaterThan(recycler.made);
      }
    }
  });

  it.each(['admit', 'reject'] as const)(
    'a pass over the text applies the empty-key rule (%s) as the held sweep does',
    async (outcome) => {
      const configs = gridOf({ kind: 'fixed-window', limit: 3, windowMs: 1000 });
      const counting = new StreamPass(file.name, spec, []);
      await streamRead(file, counting, { keySpec: spec }, hooks);
      const v = counting.keyVolumes();
      const pass = new StreamSweepPass(
        file.name,
        spec,
        configs,
        1000,
        belowByName(v.keys, v.counts),
        {
          emptyKey: { name: emptyKeyName(spec) as string, outcome },
        },
      );
      const r = await streamRead(file, pass, { keySpec: spec }, hooks);
      const want = held(configs, outcome);
      expect(r.cells).toEqual(want);
      // The rule changes the numbers: without it the empty key's requests meet the limiter.
      expect(held(configs, null)).not.toEqual(want);
    },
  );
});

describe('the statistics pass records the copy the sweep reads', () => {
  const spec = [{ kind: 'xff-first' as const }];
  const dry: AlgorithmConfig[] = [{ kind: 'fixed-window', limit: 3, windowMs: 1000 }];

  const bytesOf = async (b: Blob): Promise<Uint8Array> => new Uint8Array(await b.arrayBuffer());
  /** The first request's arrival as the held trace reads it, floored: the copy's time 0. */
  const own0 = (text: string): number =>
    Math.floor(parseTrace(enc(text), { name: 'many.log', keySpec: spec }).arrivalMs[0] as number);

  it('the same bytes as the sweep’s own read, in order or not, and the same cells', async () => {
    // A log in order, and one whose every 5000th line is 10 minutes late (outside the window).
    const lines = manyKeysLog(80_000, 2_000, 31).split('\n');
    const late = lines
      .map((l, i) =>
        i % 500 === 499
          ? l.replace(/ (\d+)\.(\d{3})$/, (_, s: string, ms: string) => ` ${Number(s) - 600}.${ms}`)
          : l,
      )
      .join('\n');
    for (const text of [lines.join('\n'), late]) {
      const { file, hooks } = segmented(enc(text), 3);
      const statsSink = new BlobSink();
      const stats = new StreamPass(file.name, spec, dry, 'recorded', statsSink);
      const r = await streamRead(file, stats, { keySpec: spec }, hooks);
      const copy = stats.recorded();
      expect(copy).toEqual({ ok: true, count: r.requests, originMs: own0(text) });
      const sweepSink = new BlobSink();
      const own = new StreamSweepPass(file.name, spec, [], 1000, () => 0, { sink: sweepSink });
      const o = await streamRead(file, own, { keySpec: spec }, hooks);
      expect(o.requests).toBe(r.requests);
      expect(own.originMs).toBe(own0(text));
      expect(r.outsideWindow > 0).toBe(text === late);
      expect(o.outsideWindow).toBe(r.outsideWindow);
      expect(await bytesOf(statsSink.blob())).toEqual(await bytesOf(sweepSink.blob()));
      expect(stats.keyVolumes().counts).toEqual(own.keyVolumes().counts);
      const v = stats.keyVolumes();
      const below = belowP99OfCounts(Array.from(v.counts));
      const configs = [
        ...gridOf({ kind: 'gcra', count: 5, periodMs: 1000, burst: 3 }),
        ...gridOf({ kind: 'sliding-window-counter', limit: 3, windowMs: 1000 }),
      ];
      const rec = {
        blob: statsSink.blob(),
        count: copy.ok ? copy.count : 0,
        originMs: copy.ok ? copy.originMs : 0,
        keys: v.keys,
        addressing: { emptyName: emptyKeyName(spec) as string, byAddress: null },
      };
      const overCopy = await sweepRecorded(rec, configs, 1000, below, null);
      const overText = new StreamSweepPass(
        file.name,
        spec,
        configs,
        1000,
        belowByName(v.keys, v.counts),
      );
      expect(overCopy).toEqual((await streamRead(file, overText, { keySpec: spec }, hooks)).cells);
      expect(overCopy.some((c) => c.ok && c.result.rejected > 0)).toBe(true);
    }
    // A bound on a hang, not a speed check: four reads and two 20 × 20 grids over 80,000 requests
    // take seconds on a quiet machine and passed 60 s at load ~30.
  }, 240_000);

  it('a log longer than the sweep’s time range: the figures stand, the copy is given up and says why', async () => {
    const line = (ms: number) =>
      `10.0.0.1 - - [05/Jan/2026:00:00:00 +0000] "GET /p HTTP/1.1" 200 1 "-" "UA" "203.0.0.1" 0.001 ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
    const t = 1_767_571_200_000;
    const file = source(
      enc([line(t), line(t + 1000), line(t + 30 * 86_400_000)].join('\n') + '\n'),
    );
    const pass = new StreamPass(file.name, spec, dry, 'recorded', new BlobSink());
    const r = await streamRead(
      file,
      pass,
      { keySpec: spec },
      {
        parallel: 1,
        readRange: null,
        progress: () => {},
      },
    );
    expect(r.requests).toBe(3);
    expect(r.exact).toBe(true);
    const copy = pass.recorded();
    expect(copy.ok).toBe(false);
    if (!copy.ok) expect(copy.message).toMatch(/at most 24 days from the first request.*request 3/);
  });
});

describe('ArrayRecycler', () => {
  it('hands out the shortest array let go of the type asked for that holds enough', () => {
    const r = new ArrayRecycler();
    const short = new Int32Array(10);
    const long = new Int32Array(100);
    const wide = new Float64Array(50);
    r.put([long, short, wide]);
    const i32 = (n: number) => new Int32Array(n);
    const f64 = (n: number) => new Float64Array(n);
    expect(r.take(i32, 8)).toBe(short);
    expect(r.take(i32, 8)).toBe(long);
    // None left of the type: a new one of the size asked for.
    const made = r.take(i32, 8);
    expect(made).not.toBe(short);
    expect(made.length).toBe(8);
    // Too short for what is asked: a new one, and the short one stays.
    expect(r.take(f64, 60).length).toBe(60);
    expect(r.waiting).toBe(1);
    expect(r.take(f64, 50)).toBe(wide);
    // Nothing is handed out for an empty request.
    r.put([short]);
    expect(r.take(i32, 0).length).toBe(0);
    r.drop();
    expect(r.waiting).toBe(0);
    expect(r.take(i32, 10)).not.toBe(short);
  });

  it('a chunked kernel sets what it takes: the same decisions as with new arrays', () => {
    const config = assertAlgorithmConfig({ kind: 'fixed-window', limit: 3, windowMs: 100_000 });
    const timeMs = Int32Array.from({ length: 400 }, (_, i) => i * 37);
    const keyId = Uint32Array.from({ length: 400 }, (_, i) => (i * 7) % 5);
    const run = (recycler?: ArrayRecycler) => {
      const outcome = new Uint8Array(400);
      runKernel(chunkInput(timeMs, keyId, 5, { state: kernelState(recycler), outcome }), config);
      return Array.from(outcome);
    };
    // Left as they are, these would say every key is in window 0 with 1,000 requests counted.
    const recycler = new ArrayRecycler();
    recycler.put([new Float64Array(64).fill(0), new Int32Array(64).fill(1000)]);
    const fresh = run();
    expect(fresh.filter((o) => o === 0)).toHaveLength(15);
    expect(run(recycler)).toEqual(fresh);
    expect(recycler.waiting).toBe(0);
  });
});
