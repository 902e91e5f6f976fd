/**
 * The sweep's fast path (src/trace/kernels.ts, src/trace/fastSweep.ts) against core: every cell the
 * kernels compute equals `sweepCell` (core's limiter, string keys) field for field, and every
 * request's outcome equals `replayTrace`'s, on random traces and random configs of every kind and
 * option the kernels cover. Then fixed cases with answers worked out by hand from each system's
 * rule, so a broken rule fails by name even where random traces would rarely reach it.
 * Long file on purpose: one known-answer case per system rule, each trace written out one request
 * a line (as the formatter lays them), reads best next to the generators it complements.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import {
  belowP99,
  fastOutcomes,
  fastSweepCell,
  prepareSweep,
  replayTrace,
  sweepCell,
} from '../../src/trace';

import { configArb, traceArb, traceOf } from './sweepArbs';

describe('sweep kernels equal core', () => {
  it('every cell equals sweepCell, and every outcome equals replayTrace', () => {
    fc.assert(
      fc.property(traceArb, configArb, fc.constantFrom(1, 7, 1000), (trace, config, w) => {
        const prep = prepareSweep({
          timeMs: trace.timeMs,
          keyId: trace.keyId,
          keyCount: trace.keys.length,
        });
        expect(prep.io).not.toBeNull();
        const want = sweepCell(trace, config, w, belowP99(trace));
        expect(fastSweepCell(prep, config, w)).toEqual(want);
        const fast = fastOutcomes(prep, config);
        expect(fast).not.toBeNull();
        if (fast === null) return;
        const n = trace.timeMs.length;
        const replay = replayTrace(
          {
            count: n,
            arrivalMs: Float64Array.from(trace.timeMs),
            keyId: trace.keyId,
            keys: [...trace.keys],
          },
          config,
          trace.timeMs,
        );
        expect(Array.from(fast.outcome)).toEqual(Array.from(replay.outcome));
        expect(Array.from(fast.delayMs)).toEqual(Array.from(replay.delayMs));
      }),
      { numRuns: 1500 },
    );
  });

  it('a prepared trace serves many cells (scratch reused) with the same answers as fresh ones', () => {
    fc.assert(
      fc.property(
        traceArb,
        fc.array(configArb, { minLength: 2, maxLength: 6 }),
        (trace, configs) => {
          const input = { timeMs: trace.timeMs, keyId: trace.keyId, keyCount: trace.keys.length };
          const shared = prepareSweep(input);
          for (const c of configs) {
            expect(fastSweepCell(shared, c, 1000)).toEqual(
              fastSweepCell(prepareSweep(input), c, 1000),
            );
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('falls back to core where the times go down', () => {
    const back = prepareSweep({
      timeMs: Int32Array.from([5, 0, 7]),
      keyId: Uint32Array.from([0, 0, 0]),
      keyCount: 1,
    });
    expect(back.io).toBeNull();
    const fw: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 10 };
    expect(fastSweepCell(back, fw, 1000).rejected).toBe(2);
    expect(fastOutcomes(back, fw)).toBeNull();
  });

  it('rejects an invalid config with core’s message', () => {
    const prep = prepareSweep({ timeMs: Int32Array.of(0), keyId: Uint32Array.of(0), keyCount: 1 });
    expect(() =>
      fastSweepCell(prep, { kind: 'gcra', count: 0, periodMs: 1000, burst: 1 }, 1000),
    ).toThrow(/count/);
  });
});

/** Outcomes (A admit, D delay, R reject) of each request through the kernels. */
function fates(rows: ReadonlyArray<readonly [number, number]>, config: AlgorithmConfig): string {
  const keyCount = Math.max(...rows.map((r) => r[1])) + 1;
  const trace = traceOf(rows, keyCount);
  const prep = prepareSweep({ timeMs: trace.timeMs, keyId: trace.keyId, keyCount });
  const out = fastOutcomes(prep, config);
  if (out === null) throw new Error('the trace does not go through the kernels');
  return Array.from(out.outcome, (o) => 'ADR'[o]).join('');
}

describe('each kernel keeps its system’s rules (known answers)', () => {
  it('nginx: burst=5 passes 6 simultaneous requests; delay=1 holds the ones past the first two', () => {
    const six = Array.from({ length: 8 }, () => [0, 0] as const);
    expect(
      fates(six, { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 5, delay: 'nodelay' }),
    ).toBe('AAAAAARR');
    expect(fates(six, { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/s', burst: 5, delay: 1 })).toBe(
      'AADDDDRR',
    );
  });

  it('nginx: a node drained and idle for a minute is forgotten when another key makes a node', () => {
    // 1r/m drains 16 milli-requests a second: after 60 s the node of key 0 holds −960 (≤ 0).
    const cfg: AlgorithmConfig = {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/m',
      burst: 0,
      delay: 'nodelay',
    };
    // Alone, key 0's node stays: excess max(0, −960 + 1000) = 40 > 0 → rejected.
    expect(
      fates(
        [
          [0, 0],
          [60_000, 0],
        ],
        cfg,
      ),
    ).toBe('AR');
    // Key 1's first request expires key 0's node first; key 0 then starts afresh.
    expect(
      fates(
        [
          [0, 0],
          [60_000, 1],
          [60_000, 0],
        ],
        cfg,
      ),
    ).toBe('AAA');
    // Up to two nodes go, least recently used first: keys 0 and 1, not key 2 (rejected, held);
    // key 1 then starts afresh.
    expect(
      fates(
        [
          [0, 0],
          [0, 1],
          [0, 2],
          [60_000, 3],
          [60_000, 2],
          [60_000, 1],
        ],
        cfg,
      ),
    ).toBe('AAAARA');
    // A request (even a rejected one) moves its key's node to the head of the queue: key 0 is then
    // the newest, and keys 1 and 2 go instead.
    expect(
      fates(
        [
          [0, 0],
          [0, 1],
          [0, 2],
          [0, 0],
          [60_000, 3],
          [60_000, 0],
        ],
        cfg,
      ),
    ).toBe('AAARAR');
    // 59,999 ms is not idle long enough to be expired.
    expect(
      fates(
        [
          [0, 0],
          [59_999, 1],
          [59_999, 0],
        ],
        cfg,
      ),
    ).toBe('AAR');
  });

  it('Envoy: continuous refill is exact on the boundary; interval refill waits for the tick', () => {
    const cont: AlgorithmConfig = {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
    };
    // The token comes back 1000 ms after it was taken, not a ms earlier.
    expect(
      fates(
        [
          [0, 0],
          [999, 0],
          [1000, 0],
        ],
        cont,
      ),
    ).toBe('ARA');
    expect(
      fates(
        [
          [500, 0],
          [1400, 0],
        ],
        cont,
      ),
    ).toBe('AR');
    // The older timer adds the token at t = 1000, whenever the last one was taken.
    expect(
      fates(
        [
          [500, 0],
          [999, 0],
          [1000, 0],
        ],
        { ...cont, refill: 'interval' },
      ),
    ).toBe('ARA');
    expect(
      fates(
        [
          [500, 0],
          [1400, 0],
        ],
        { ...cont, refill: 'interval' },
      ),
    ).toBe('AA');
  });

  it('x/time/rate: a request without a token waits for the next one when that is within maxDelayMs', () => {
    const cfg: AlgorithmConfig = {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 1,
      fillIntervalMs: 100,
      maxDelayMs: 150,
    };
    // Second waits 100 ms, third 200 ms > 150 → rejected.
    expect(
      fates(
        [
          [0, 0],
          [0, 0],
          [0, 0],
        ],
        cfg,
      ),
    ).toBe('ADR');
  });

  it('Traefik: a key idle for idleResetS whole seconds starts full; a rejected request keeps it alive', () => {
    const cfg: AlgorithmConfig = {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: 1,
      fillIntervalMs: 10_000,
      idleResetS: 2,
    };
    // Second 2 ≥ second 0 + 2: the key expired and starts full.
    expect(
      fates(
        [
          [0, 0],
          [2000, 0],
        ],
        cfg,
      ),
    ).toBe('AA');
    expect(
      fates(
        [
          [0, 0],
          [1999, 0],
        ],
        cfg,
      ),
    ).toBe('AR');
    // The rejected request at 1500 touched the key in second 1: at 2000 it is still held.
    expect(
      fates(
        [
          [0, 0],
          [1500, 0],
          [2000, 0],
        ],
        cfg,
      ),
    ).toBe('ARR');
  });

  it('redis-cell: T = 1000/3 ms, so 333 ms after an admit is too early and 334 is not', () => {
    const cfg: AlgorithmConfig = { kind: 'gcra', count: 3, periodMs: 1000, burst: 0 };
    expect(
      fates(
        [
          [0, 0],
          [333, 0],
        ],
        cfg,
      ),
    ).toBe('AR');
    expect(
      fates(
        [
          [0, 0],
          [334, 0],
        ],
        cfg,
      ),
    ).toBe('AA');
  });

  it('windows: fixed resets at the boundary, sliding log slides, logRejected keeps a hammering key out', () => {
    expect(
      fates(
        [
          [0, 0],
          [999, 0],
          [1000, 0],
        ],
        { kind: 'fixed-window', limit: 1, windowMs: 1000 },
      ),
    ).toBe('ARA');
    expect(
      fates(
        [
          [0, 0],
          [999, 0],
          [1000, 0],
        ],
        { kind: 'sliding-log', limit: 1, windowMs: 1000 },
      ),
    ).toBe('ARA');
    expect(
      fates(
        [
          [0, 0],
          [999, 0],
          [1000, 0],
        ],
        { kind: 'sliding-log', limit: 1, windowMs: 1000, logRejected: true },
      ),
    ).toBe('ARR');
  });

  it('Caddy: a full ring whose oldest is window − 1 ms old lets the request pass, unrecorded', () => {
    const caddy: AlgorithmConfig = {
      kind: 'sliding-log',
      limit: 1,
      windowMs: 1000,
      lastMsPasses: true,
    };
    // 999 ms after the one recorded event: passes (twice: it was not recorded); 1000 ms after:
    // the event expired, a new one is recorded; 500 ms after that: refused.
    expect(
      fates(
        [0, 999, 999, 1000, 1500].map((t) => [t, 0] as const),
        caddy,
      ),
    ).toBe('AAAAR');
    // The pass at 999 is not in the ring: at 1998 the oldest recorded is 1000 (998 ms old,
    // refused), at 1999 it is 999 ms old (passes).
    expect(
      fates(
        [0, 999, 1000, 1998, 1999].map((t) => [t, 0] as const),
        caddy,
      ),
    ).toBe('AAARA');
  });

  it('Cloudflare: the previous window weighs by its overlap; HAProxy counts denied requests', () => {
    // Previous window held 2 (limit 2): at e = 500 the estimate is 2·0.5 + 0 = 1 < 2 → admit,
    // then 1 + 1 = 2 → reject.
    const swc: AlgorithmConfig = { kind: 'sliding-window-counter', limit: 2, windowMs: 1000 };
    expect(
      fates(
        [
          [0, 0],
          [0, 0],
          [1500, 0],
          [1500, 0],
        ],
        swc,
      ),
    ).toBe('AAAR');
    // HAProxy: every request is counted, so a third at the same ms over limit 2 is denied and so
    // is a fourth, and the rate read at 1000 still sees them.
    const haproxy: AlgorithmConfig = {
      kind: 'sliding-window-counter',
      limit: 2,
      windowMs: 1000,
      anchor: 'entry',
    };
    expect(
      fates(
        [
          [0, 0],
          [0, 0],
          [0, 0],
          [0, 0],
          [1000, 0],
        ],
        haproxy,
      ),
    ).toBe('AARRR');
    // The stick-table's expire: an entry untouched for expireMs ms is gone (a fresh one counts 1).
    const expiring: AlgorithmConfig = { ...haproxy, limit: 1, expireMs: 500 };
    expect(
      fates(
        [
          [0, 0],
          [500, 0],
        ],
        expiring,
      ),
    ).toBe('AA');
    expect(
      fates(
        [
          [0, 0],
          [499, 0],
        ],
        expiring,
      ),
    ).toBe('AR');
  });
});
