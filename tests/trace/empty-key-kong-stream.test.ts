/**
 * Under Kong, a log too large to hold (read by streaming passes) keys an empty-key request by its
 * client address exactly as the held log does: the per-key statistics, the one-limiter dry run, the
 * sweep's cells (over the compact copy and over the text) and the span the stage replays agree with
 * the held read, read as one stream or in segments. The log mixes keyed lines, lines without a key
 * but with an address (one of them an address that is also a key), and lines with neither, which
 * stay under the one empty key in both.
 */
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { systemById } from '../../src/systems';
import {
  BUDGET_REQUESTS,
  BlobSink,
  StreamPass,
  StreamSpanPass,
  StreamSweepPass,
  belowByName,
  belowP99OfCounts,
  emptyKeyId,
  emptyKeyName,
  holdTrace,
  keyEmptyByClient,
  keysByAddress,
  parseTrace,
  replayColumns,
  streamRead,
  sweepRecorded,
} from '../../src/trace';
import type { HeldTrace, KeySpec, StreamResult } from '../../src/trace';
import { addressed } from '../../src/ui/traffic/EmptyKeyRow';
import {
  T0,
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
/** Six addresses, one of which, `bob`, is also a user's name: Kong counts both under one key. */
const BYTES = new TextEncoder().encode(
  emptyKeyJsonLog(12_000, 7, ['10.0.0.1', '10.0.0.2', 'bob', '10.0.0.3', '10.0.0.4', '10.0.0.5']),
);
const source = () => streamSource(BYTES);
const { modes: MODES, rangesRead } = readModes(BYTES);

const KONG = systemById('kong')!;
const CONFIG: AlgorithmConfig = { kind: 'fixed-window', limit: 4, windowMs: 1000 };

/** The held read, and its key column as Kong keys it (keyEmptyByClient). */
function heldRead() {
  const { held } = holdTrace(parseTrace(BYTES, { name: 'big.jsonl', keySpec: SPEC }));
  const moved = keyEmptyByClient(held, held.emptyClients)!;
  return { held, moved };
}

/** Requests per key name of a key column. */
function volumes(keyId: Uint32Array, keys: readonly string[], n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i < n; i += 1) {
    const k = keys[keyId[i] as number] as string;
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/** The held dry run of one limiter over a key column, as the stream's figures name it. */
function heldDecisions(held: HeldTrace, keyId: Uint32Array, keys: string[]) {
  const r = replayColumns(
    { timeMs: held.times as Int32Array, keyId, keys, originMs: held.baseMs },
    CONFIG,
  );
  return heldFigures(held, r, keyId, keys);
}

describe('Kong keys a streamed log’s empty-key requests by address, as the held log', () => {
  const { held, moved } = heldRead();
  const emptyId = emptyKeyId(held);
  const empties = held.emptyRequests;
  const withAddress = addressed(held.emptyClients);

  it('the log has keyed lines, empty-key lines with an address, and lines with neither', () => {
    expect(emptyId).toBeGreaterThanOrEqual(0);
    expect(withAddress).toBeGreaterThan(1000);
    // Lines with neither stay under the empty key in the held read.
    expect(empties - withAddress).toBeGreaterThan(1000);
    expect(moved.moved).toBe(withAddress);
    expect(moved.keyId.filter((k) => k === emptyId).length).toBe(empties - withAddress);
    // The address `bob` is a user's key: Kong counts both under one key.
    expect(moved.keys.filter((k) => k === 'bob')).toHaveLength(1);
  });

  for (const [mode, hooks] of MODES) {
    describe(mode, () => {
      const run = async (byAddress: boolean): Promise<{ r: StreamResult; pass: StreamPass }> => {
        const file = source();
        const pass = new StreamPass(
          file.name,
          SPEC,
          [CONFIG],
          'recorded',
          new BlobSink(),
          byAddress ? 'client' : null,
        );
        const before = rangesRead();
        const r = await streamRead(file, pass, { keySpec: SPEC }, hooks);
        expect(rangesRead() - before).toBe(hooks.readRange === null ? 0 : 5);
        return { r, pass };
      };

      it('per-key statistics: the same keys and volumes, the empty key and its addresses', async () => {
        const { r, pass } = await run(true);
        expect(r.exact).toBe(true);
        expect(r.requests).toBe(held.count);
        expect(r.keys).toBe(held.keys.length);
        const v = pass.keyVolumes();
        const streamed = new Map(v.keys.map((k, i) => [k, v.counts[i] as number]));
        expect(streamed).toEqual(volumes(held.keyId, held.keys, held.count));
        expect(r.empty).toMatchObject({ key: EMPTY, requests: empties, withAddress });
        expect(r.top.map((k) => [k.key, k.requests])).toEqual(
          held.top.map((k) => [k.key, k.requests]),
        );
      });

      it('the dry run under Kong: each with its address’s other requests', async () => {
        const { r } = await run(true);
        const want = heldDecisions(held, moved.keyId, moved.keys);
        expect(r.decisions[0]).toEqual(want.decisions);
        const got = new Map([...r.top, r.empty!].map((k) => [k.key, k.rejected]));
        for (const [k, n] of got) expect(n).toBe(want.rejected.get(k) ?? 0);
        // A system with one shared empty key gets the held figures without the move, and they
        // differ: the rule is what changes them.
        const shared = heldDecisions(held, held.keyId, held.keys);
        const { r: sharedRun } = await run(false);
        expect(sharedRun.decisions[0]).toEqual(shared.decisions);
        expect(shared.decisions.rejected).not.toBe(want.decisions.rejected);
      });

      it('the sweep’s cells, over the compact copy and over the text, equal the held sweep', async () => {
        const file = source();
        const sink = new BlobSink();
        const stats = new StreamPass(file.name, SPEC, [CONFIG], 'recorded', sink);
        const r = await streamRead(file, stats, { keySpec: SPEC }, hooks);
        const v = stats.keyVolumes();
        const byAddress = keysByAddress(v, EMPTY);
        const configs = sweepGrid(CONFIG, 6);
        const want = heldSweepCells(held, configs, moved.keyId, moved.keys);
        const rec = {
          blob: sink.blob(),
          count: r.requests,
          originMs: recordedOrigin(stats),
          keys: v.keys,
          addressing: { emptyName: EMPTY, byAddress },
        };
        expect(await sweepRecorded(rec, configs, 1000, byAddress.below, null)).toEqual(want);
        const text = new StreamSweepPass(
          file.name,
          SPEC,
          configs,
          1000,
          belowByName(v.keys, v.counts),
          { byAddress },
        );
        expect((await streamRead(file, text, { keySpec: SPEC }, hooks)).cells).toEqual(want);
        // Under one shared key the cells differ.
        const shared = heldSweepCells(held, configs);
        expect(
          await sweepRecorded(
            { ...rec, addressing: { emptyName: EMPTY, byAddress: null } },
            configs,
            1000,
            belowP99OfCounts(Array.from(v.counts)),
            null,
          ),
        ).toEqual(shared);
        expect(shared).not.toEqual(want);
      });

      it('the span read for the stage keeps each empty-key request’s address, request by request', async () => {
        const file = source();
        const pass = new StreamSpanPass(file.name, SPEC, T0, T0 + 86_400_000, BUDGET_REQUESTS);
        const r = await streamRead(file, pass, { keySpec: SPEC }, hooks);
        const { held: span } = holdTrace(r.trace);
        expect(span.count).toBe(held.count);
        expect(span.emptyClients?.client.length).toBe(empties);
        const spanMoved = keyEmptyByClient(span, span.emptyClients)!;
        for (let i = 0; i < held.count; i += 1) {
          const want = moved.keys[moved.keyId[i] as number];
          const got = spanMoved.keys[spanMoved.keyId[i] as number];
          if (got !== want) throw new Error(`request ${i + 1}: span key ${got}, held key ${want}`);
        }
      });
    });
  }

  it('Kong’s rule is to key by address', () => {
    expect(KONG.emptyKey).toBe('client');
  });
});
