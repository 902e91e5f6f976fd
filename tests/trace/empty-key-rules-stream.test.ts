/**
 * A log too large to hold (read by streaming passes) applies each system's rule for requests with
 * an empty key exactly as the held log does (src/trace/emptyKeys.ts): nginx and HAProxy do not
 * limit them (admitted, no state), Spring Cloud Gateway denies them (rejected, no state), Caddy
 * counts them under one shared key. The one-limiter dry run (totals, flips against the recorded
 * statuses, rejections per key), a pass of several limiters each with its own system's rule, and
 * the sweep's cells (over the compact copy and over the text) agree with the held read, read as
 * one stream or in segments. The log mixes keyed lines, empty-key lines with an address and empty-
 * key lines without one, some of each recorded as 429.
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
  holdTrace,
  parseTrace,
  replayWithEmptyKey,
  streamRead,
  sweepRecorded,
} from '../../src/trace';
import type { HeldTrace, KeySpec, StreamEmptyOutcome, StreamResult } from '../../src/trace';
import {
  emptyKeyJsonLog,
  heldFigures,
  heldSweepCells,
  readModes,
  recordedOrigin,
  streamSource,
  sweepGrid,
} from './emptyKeyStream';

const SPEC: KeySpec = [{ kind: 'field', name: 'user' }];
const EMPTY = emptyKeyName(SPEC) as string;
const BYTES = new TextEncoder().encode(
  emptyKeyJsonLog(12_000, 11, ['10.0.0.1', '10.0.0.2', '10.0.0.3']),
);
const source = () => streamSource(BYTES);
const { modes: MODES, rangesRead } = readModes(BYTES);

const CONFIG: AlgorithmConfig = { kind: 'fixed-window', limit: 4, windowMs: 1000 };
const OTHER: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 500 };

/** Each system's rule as the page takes it (TraceDryRun, TraceStreamed). */
const SYSTEMS = ['nginx', 'haproxy', 'spring-gateway', 'caddy'].map((id) => {
  const system = systemById(id);
  if (system === undefined) throw new Error(`no system ${id}`);
  return { id, outcome: emptyKeyOutcome(system.emptyKey) };
});

const { held } = holdTrace(parseTrace(BYTES, { name: 'big.jsonl', keySpec: SPEC }));
const EMPTY_ID = emptyKeyId(held);

/** The held dry run of `config` under a rule, as TraceDryRun runs it, named as the stream's. */
function heldDryRun(h: HeldTrace, config: AlgorithmConfig, outcome: StreamEmptyOutcome) {
  const exempt =
    outcome === 'admit' || outcome === 'reject' ? { id: emptyKeyId(h), outcome } : null;
  const columns = {
    timeMs: h.times as Int32Array,
    keyId: h.keyId,
    keys: h.keys,
    originMs: h.baseMs,
  };
  return heldFigures(h, replayWithEmptyKey(columns, config, exempt));
}

/** The sweep's configs around CONFIG. */
const CONFIGS = sweepGrid(CONFIG, 5);

/** The held sweep's cells under a rule (src/store/sweep.ts runSweep, without workers). */
function heldCells(outcome: 'admit' | 'reject' | null) {
  return heldSweepCells(
    held,
    CONFIGS,
    held.keyId,
    held.keys,
    outcome === null ? null : { id: EMPTY_ID, outcome },
  );
}

describe('a streamed log’s empty-key requests follow each system’s rule, as the held log', () => {
  it('the log has keyed lines, empty-key lines with and without an address, and recorded 429s', () => {
    expect(EMPTY_ID).toBeGreaterThanOrEqual(0);
    expect(held.emptyRequests).toBeGreaterThan(3000);
    let recorded = 0;
    for (let i = 0; i < held.count; i += 1)
      if (held.keyId[i] === EMPTY_ID && held.status[i] === 429) recorded += 1;
    expect(recorded).toBeGreaterThan(50);
    expect(SYSTEMS.map((s) => [s.id, s.outcome])).toEqual([
      ['nginx', 'admit'],
      ['haproxy', 'admit'],
      ['spring-gateway', 'reject'],
      ['caddy', null],
    ]);
  });

  it('the rule changes the held figures (so equal figures below are the rule’s)', () => {
    const admit = heldDryRun(held, CONFIG, 'admit').decisions;
    const reject = heldDryRun(held, CONFIG, 'reject').decisions;
    const shared = heldDryRun(held, CONFIG, null).decisions;
    expect(new Set([admit.rejected, reject.rejected, shared.rejected]).size).toBe(3);
    expect(new Set([admit.toAllowed, reject.toAllowed, shared.toAllowed]).size).toBe(3);
    expect(heldCells('admit')).not.toEqual(heldCells(null));
    expect(heldCells('reject')).not.toEqual(heldCells(null));
  });

  for (const [mode, hooks] of MODES) {
    describe(mode, () => {
      const run = async (
        configs: AlgorithmConfig[],
        empty: StreamEmptyOutcome | StreamEmptyOutcome[],
      ): Promise<StreamResult> => {
        const file = source();
        const pass = new StreamPass(file.name, SPEC, configs, 'recorded', new BlobSink(), empty);
        const before = rangesRead();
        const r = await streamRead(file, pass, { keySpec: SPEC }, hooks);
        expect(rangesRead() - before).toBe(hooks.readRange === null ? 0 : 5);
        expect(r.exact).toBe(true);
        return r;
      };

      for (const { id, outcome } of SYSTEMS) {
        it(`${id}: the dry run’s totals, flips and rejections per key equal the held dry run’s`, async () => {
          const r = await run([CONFIG], outcome);
          const want = heldDryRun(held, CONFIG, outcome);
          expect(r.decisions[0]).toEqual(want.decisions);
          const got = new Map([...r.top, r.empty!].map((k) => [k.key, k.rejected]));
          expect(got.get(EMPTY)).toBe(want.rejected.get(EMPTY) ?? 0);
          for (const [k, n] of got) expect(n, k).toBe(want.rejected.get(k) ?? 0);
          expect(r.topRejected.map((k) => [k.key, k.rejected])).toEqual(
            r.topRejected.map((k) => [k.key, want.rejected.get(k.key) ?? 0]),
          );
        });
      }

      it('several limiters, each under its own system’s rule, in one pass', async () => {
        const rules: StreamEmptyOutcome[] = ['admit', 'reject', null];
        const configs = [CONFIG, OTHER, CONFIG];
        const r = await run(configs, rules);
        expect(r.decisions).toEqual(
          configs.map((c, j) => heldDryRun(held, c, rules[j] as StreamEmptyOutcome).decisions),
        );
      });

      for (const { id, outcome } of SYSTEMS) {
        it(`${id}: the sweep’s cells, over the compact copy and over the text, equal the held sweep’s`, async () => {
          const file = source();
          const sink = new BlobSink();
          const stats = new StreamPass(file.name, SPEC, [CONFIG], 'recorded', sink, outcome);
          const r = await streamRead(file, stats, { keySpec: SPEC }, hooks);
          const v = stats.keyVolumes();
          // As the stream worker asks the cells (src/store/stream.worker.ts sweep).
          const emptyKey = outcome === null ? null : { name: EMPTY, outcome };
          const rec = {
            blob: sink.blob(),
            count: r.requests,
            originMs: recordedOrigin(stats),
            keys: v.keys,
            addressing: { emptyName: EMPTY, byAddress: null },
          };
          const want = heldCells(outcome);
          const mask = belowP99OfCounts(Array.from(v.counts));
          expect(await sweepRecorded(rec, CONFIGS, 1000, mask, emptyKey)).toEqual(want);
          const text = new StreamSweepPass(
            file.name,
            SPEC,
            CONFIGS,
            1000,
            belowByName(v.keys, v.counts),
            { emptyKey, byAddress: null },
          );
          expect((await streamRead(file, text, { keySpec: SPEC }, hooks)).cells).toEqual(want);
        });
      }
    });
  }
});
