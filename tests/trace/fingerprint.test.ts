import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  arrivalsOf,
  compactTrace,
  costsOf,
  holdTrace,
  parseTrace,
  simTraceOf,
  traceHash,
} from '../../src/trace';
import { keysInTimeOrder, traceHashInTimeOrder } from '../../src/trace/fingerprint';

const apache = gunzipSync(readFileSync(join(import.meta.dirname, 'fixtures', 'apache.log.gz')));

describe('a trace keeps its fingerprint', () => {
  it('through its compact file, for a log written out of time order (the 83-hour Apache log)', () => {
    const read = parseTrace(new Uint8Array(apache), { name: 'apache.log' });
    // The premise: Apache writes lines out of time order, so the parser meets keys in another
    // order than the requests'.
    expect(read.report.outOfOrder).toBeGreaterThan(1000);
    const { held, replay } = holdTrace(read);
    expect(replay.ok).toBe(true);
    const compact = compactTrace({ ...held, arrivalMs: arrivalsOf(held), cost: costsOf(held) });
    const again = holdTrace(parseTrace(compact, { name: 'apache.trace.csv.gz' }));
    expect(again.replay).toEqual(replay);
    // The same key list, in the same order: the same clients on the stage.
    expect(again.held.keys).toEqual(held.keys);
    expect([...again.held.keyId]).toEqual([...held.keyId]);
    expect([...again.held.times]).toEqual([...held.times]);
  });

  it('whatever numbering the keys have', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 7 })), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.integer({ min: 1, max: 7 }),
        (rows, shift) => {
          rows.sort((a, b) => a[0] - b[0]);
          // Every key has a request, as every key a parser lists does.
          for (let k = 0; k < 8; k += 1) rows.push([5001 + k, k]);
          const names = Array.from({ length: 8 }, (_, k) => `10.0.0.${k}`);
          const trace = (perm: (k: number) => number) => {
            const keys: string[] = [];
            names.forEach((name, k) => (keys[perm(k)] = name));
            return {
              count: rows.length,
              arrivalMs: Float64Array.from(rows, (r) => 1_700_000_000_000 + r[0]),
              keyId: Uint32Array.from(rows, (r) => perm(r[1])),
              keys,
            };
          };
          const a = simTraceOf(trace((k) => k));
          const b = simTraceOf(trace((k) => (k + shift) % 8));
          expect(b.hash).toBe(a.hash);
          // Another key name, or a request moved to another key, is another trace.
          const renamed = [...a.keys];
          renamed[a.keyId[0] as number] = 'elsewhere';
          expect(traceHash(a.timeMs, a.keyId, renamed)).not.toBe(a.hash);
          // Keys numbered in the order of their first request (as the page holds them): the same
          // hash without ranking them again.
          const t = trace((k) => (k + shift) % 8);
          const inOrder = keysInTimeOrder(t.keyId, t.keys, t.count);
          expect(traceHashInTimeOrder(a.timeMs, t.keyId, inOrder)).toBe(a.hash);
          const other = [...inOrder];
          other[t.keyId[0] as number] = 'elsewhere';
          expect(traceHashInTimeOrder(a.timeMs, t.keyId, other)).not.toBe(a.hash);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('the fingerprint is stable', () => {
  it('a fixed trace hashes as it did before the request loop kept its lanes in locals', () => {
    // Times over much of the Int32 range, key ids past 16 bits; the hashes were computed by the
    // loop that mixed each word through Hash64.word.
    const n = 5000;
    const t = new Int32Array(n);
    const k = new Uint32Array(n);
    for (let i = 0; i < n; i += 1) {
      t[i] = (i * 2_654_435) % 2_000_000_000;
      k[i] = (i * 7919) % 70_001;
    }
    const keys = Array.from({ length: 70_001 }, (_, i) => `10.${i >> 8}.${i & 255}.x`);
    expect(traceHash(t, k, keys)).toBe('2dde5ee25437796d');
    expect(traceHashInTimeOrder(t, k, keys)).toBe('570f4a0297c8a629');
  });
});
