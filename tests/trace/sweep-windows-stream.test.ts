/**
 * The streamed sweep for anchored windows (express-rate-limit, rate-limiter-flexible) and calendar
 * windows (Kong, Envoy's rate limit service): over a log too large to hold, each cell, over the
 * compact copy and over the text, equals the held sweep's cell on the same log, read as one stream
 * and in segments, each under its system's rule for requests with an empty key (Kong: by address;
 * Envoy: not limited; the two libraries: one shared key).
 */
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { emptyKeyOutcome } from '../../src/core';
import { systemById } from '../../src/systems';
import {
  BlobSink,
  StreamPass,
  StreamSweepPass,
  belowByName,
  belowP99OfCounts,
  emptyKeyId,
  emptyKeyName,
  fastSweepCell,
  holdTrace,
  keyEmptyByClient,
  keysByAddress,
  parseTrace,
  prepareSweep,
  streamRead,
  sweepRecorded,
} from '../../src/trace';
import type { KeySpec } from '../../src/trace';
import { emptyKeyJsonLog, readModes, streamSource, sweepGrid } from './emptyKeyStream';

const SPEC: KeySpec = [{ kind: 'field', name: 'user' }];
const EMPTY = emptyKeyName(SPEC) as string;
const BYTES = new TextEncoder().encode(
  emptyKeyJsonLog(12_000, 5, ['10.0.0.1', '10.0.0.2', 'bob', '10.0.0.3']),
);
const source = () => streamSource(BYTES);
const { modes: MODES, rangesRead } = readModes(BYTES);

const { held } = holdTrace(parseTrace(BYTES, { name: 'big.jsonl', keySpec: SPEC }));
const EMPTY_ID = emptyKeyId(held);
const MOVED = keyEmptyByClient(held, held.emptyClients)!;

/** Each system's limiter (its own derive applied, as the page holds it) and its empty-key rule. */
const CASES = (
  [
    ['kong', { kind: 'calendar-windows', second: 3, minute: 40 }],
    ['kong', { kind: 'calendar-windows', minute: 30, hour: 500, month: 2000, year: 3000 }],
    ['envoy-global', { kind: 'calendar-windows', second: 4, shadowMode: false }],
    ['express-rate-limit', { kind: 'anchored-window', limit: 6, windowMs: 2000 }],
    [
      'rate-limiter-flexible',
      {
        kind: 'anchored-window',
        limit: 8,
        windowMs: 1000,
        blockMs: 3000,
        execEvenly: true,
        cost: 2,
      },
    ],
  ] as const
).map(([id, c]) => {
  const system = systemById(id)!;
  const config = system.derive!(c);
  const rule: 'client' | 'admit' | 'reject' | null =
    system.emptyKey === 'client' ? 'client' : emptyKeyOutcome(system.emptyKey);
  return { id, config, rule };
});

/**
 * The held sweep's cells, as src/store/sweep.ts runSweep computes them under `rule`, time 0
 * standing for `originMs` (the log's first request's arrival, as the page gives it).
 */
function heldCells(
  configs: AlgorithmConfig[],
  rule: 'client' | 'admit' | 'reject' | null,
  originMs = held.baseMs,
) {
  const keyId = rule === 'client' ? MOVED.keyId : held.keyId;
  const keys = rule === 'client' ? MOVED.keys : held.keys;
  const prep = prepareSweep({
    timeMs: held.times as Int32Array,
    keyId,
    keyCount: keys.length,
    keys,
    emptyKey: rule === 'admit' || rule === 'reject' ? { id: EMPTY_ID, outcome: rule } : null,
    originMs,
  });
  return configs.map((c) => ({ ok: true, result: fastSweepCell(prep, c, 1000) }));
}

describe('the streamed sweep of anchored and calendar windows equals the held sweep', () => {
  it('the rules are the systems’ own, and Kong’s moves requests', () => {
    expect(CASES.map((c) => [c.id, c.rule])).toEqual([
      ['kong', 'client'],
      ['kong', 'client'],
      ['envoy-global', 'admit'],
      ['express-rate-limit', null],
      ['rate-limiter-flexible', null],
    ]);
    expect(MOVED.moved).toBeGreaterThan(1000);
    expect(CASES[0]!.config).toMatchObject({ counterTtl: true });
    expect(CASES[2]!.config).toMatchObject({ align: 'epoch', countRejected: true });
  });

  it('the log’s first request is not on a second: Kong’s and Envoy’s seconds start on the clock', () => {
    expect(held.baseMs % 1000).not.toBe(0);
    for (const { config, rule } of [CASES[0]!, CASES[2]!]) {
      const configs = sweepGrid(config, 5);
      // Windows counted from the first request would give other numbers: the origin is used.
      expect(heldCells(configs, rule, 0)).not.toEqual(heldCells(configs, rule));
    }
  });

  for (const [mode, hooks] of MODES) {
    describe(mode, () => {
      for (const { id, config, rule } of CASES) {
        it(`${id} ${JSON.stringify(config)}: over the compact copy and over the text`, async () => {
          const configs = sweepGrid(config, 5);
          const want = heldCells(configs, rule);
          // Not trivial numbers: cells reject, and the grid's fields change how many.
          expect(want.some((c) => c.result.rejected > 0)).toBe(true);
          expect(new Set(want.map((c) => c.result.rejected)).size).toBeGreaterThan(3);
          const file = source();
          const sink = new BlobSink();
          const outcome = rule === 'client' ? null : rule;
          const stats = new StreamPass(file.name, SPEC, [config], 'recorded', sink, rule);
          const before = rangesRead();
          const r = await streamRead(file, stats, { keySpec: SPEC }, hooks);
          expect(rangesRead() - before).toBe(hooks.readRange === null ? 0 : 5);
          expect(r.exact).toBe(true);
          const v = stats.keyVolumes();
          const byAddress = rule === 'client' ? keysByAddress(v, EMPTY) : null;
          const emptyKey = outcome === null ? null : { name: EMPTY, outcome };
          const copy = stats.recorded();
          expect(copy).toEqual({ ok: true, count: r.requests, originMs: held.baseMs });
          const rec = {
            blob: sink.blob(),
            count: r.requests,
            originMs: copy.ok ? copy.originMs : Number.NaN,
            keys: v.keys,
            addressing: { emptyName: EMPTY, byAddress },
          };
          const mask = byAddress?.below ?? belowP99OfCounts(Array.from(v.counts));
          expect(await sweepRecorded(rec, configs, 1000, mask, emptyKey)).toEqual(want);
          const text = new StreamSweepPass(
            file.name,
            SPEC,
            configs,
            1000,
            belowByName(v.keys, v.counts),
            { emptyKey, byAddress },
          );
          expect((await streamRead(file, text, { keySpec: SPEC }, hooks)).cells).toEqual(want);
        });
      }
    });
  }
});
