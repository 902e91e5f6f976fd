/**
 * Replays on the log's clock: virtual time 0 stands for the first request's whole epoch ms
 * (virtualOrigin), so windows on the clock — a Redis INCR key per ⌊now / window⌋, Kong's UTC
 * minutes (kong/tools/timestamp.lua get_timestamps) — fall where the system's fall, whatever
 * instant the log starts at. The held dry run (as its worker replays it), the streamed pass and a
 * count worked out by hand from the raw arrivals agree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import {
  ADMIT,
  StreamPass,
  holdTrace,
  parseTrace,
  replayColumns,
  replayTrace,
  spanColumns,
  streamRead,
  virtualOrigin,
  virtualTimes,
} from '../../src/trace';
import type { StreamSource, Trace } from '../../src/trace';

const BYTES = new Uint8Array(
  readFileSync(join(import.meta.dirname, 'fixtures', 'clock-minute.log')),
);
const SPEC = [{ kind: 'client' as const }];

/** Kong's rate-limiting with `minute` per client address (the Kong system's counter TTL on). */
const kong = (minute: number): AlgorithmConfig => ({
  kind: 'calendar-windows',
  minute,
  counterTtl: true,
});

/**
 * Kong's rejections worked out from the arrivals alone: per key and UTC minute ⌊epoch ms / 60,000⌋,
 * the first `limit` requests pass and count, the rest are stopped and not counted (handler.lua).
 */
function kongByHand(trace: Trace, limit: number): number {
  const used = new Map<string, number>();
  let rejected = 0;
  for (let i = 0; i < trace.count; i += 1) {
    const minute = Math.floor(Math.floor(trace.arrivalMs[i] as number) / 60_000);
    const k = `${trace.keyId[i] as number} ${minute}`;
    const n = used.get(k) ?? 0;
    if (n >= limit) rejected += 1;
    else used.set(k, n + 1);
  }
  return rejected;
}

describe('windows on the log’s clock', () => {
  it('two requests in two clock seconds, 500 ms apart, are two windows (Redis ⌊now / 1 s⌋)', () => {
    const first = Date.UTC(2026, 10, 29, 13, 55, 36, 600);
    const arrivals = [first, first + 500]; // 13:55:36.600 and 13:55:37.100
    const trace = {
      count: 2,
      arrivalMs: Float64Array.from(arrivals),
      keyId: Uint32Array.from([0, 0]),
      keys: ['a'],
    };
    const fixed: AlgorithmConfig = { kind: 'fixed-window', limit: 1, windowMs: 1000 };
    expect(new Set(arrivals.map((a) => Math.floor(a / 1000))).size).toBe(2);
    expect(virtualOrigin(trace)).toBe(first);
    expect(Array.from(replayTrace(trace, fixed).outcome)).toEqual([ADMIT, ADMIT]);
    // Both in one clock second: the second is rejected, as Redis rejects it.
    const one = { ...trace, arrivalMs: Float64Array.from([first - 600, first - 100]) };
    expect(Array.from(replayTrace(one, fixed).outcome)).toEqual([ADMIT, 2]);
  });

  it('virtual time + origin is each arrival’s whole ms, fractional arrivals included', () => {
    const arrivals = [1_795_953_600_859.4, 1_795_953_600_860.2, 1_795_953_601_051.9];
    const trace = { count: 3, arrivalMs: Float64Array.from(arrivals) };
    const o = virtualOrigin(trace);
    expect(Array.from(virtualTimes(trace), (t) => t + o)).toEqual(arrivals.map(Math.floor));
  });

  const trace = parseTrace(BYTES, { name: 'clock-minute.log', keySpec: SPEC });
  const { held } = holdTrace(parseTrace(BYTES, { name: 'clock-minute.log', keySpec: SPEC }));
  const whole = {
    timeMs: held.times as Int32Array,
    keyId: held.keyId,
    keys: held.keys,
    originMs: held.baseMs,
  };

  it('the held dry run of a log starting at 12:00:00.201 equals Kong worked out by hand', () => {
    // The log's first request is not on a minute: a replay from its time 0 would count other
    // minutes than Kong's.
    expect(new Date(held.baseMs).toISOString()).toBe('2026-11-29T12:00:00.201Z');
    let differs = 0;
    for (const limit of [1, 2, 3, 4, 5]) {
      const want = kongByHand(trace, limit);
      expect(replayColumns(whole, kong(limit)).rejected, `minute=${limit}`).toBe(want);
      // The same columns with virtual 0 at 1970 (origin 0): windows from the first request.
      const fromFirst = replayColumns({ ...whole, originMs: 0 }, kong(limit)).rejected;
      if (fromFirst !== want) differs += 1;
    }
    // The fixture is one where that matters.
    expect(differs).toBeGreaterThan(0);
  });

  it('a span replays on the clock from its start (the span’s time 0 is fromMs after the log’s)', () => {
    const fromMs = 5_000;
    const { columns, first } = spanColumns(whole, { fromMs, lengthMs: 60_000 });
    expect(columns.originMs).toBe(held.baseMs + fromMs);
    const inSpan = trace.arrivalMs.subarray(first, first + columns.timeMs.length);
    const spanTrace = {
      ...trace,
      count: inSpan.length,
      arrivalMs: inSpan,
      keyId: trace.keyId.subarray(first, first + inSpan.length),
    };
    expect(replayColumns(columns, kong(2)).rejected).toBe(kongByHand(spanTrace, 2));
  });

  it('the streamed dry run equals the held one', async () => {
    const blob = new Blob([BYTES]);
    const file: StreamSource = {
      name: 'clock-minute.log',
      size: blob.size,
      slice: (a, b) => blob.slice(a, b),
      stream: () => blob.stream(),
    };
    const configs = [1, 2, 3, 4, 5].map(kong);
    const pass = new StreamPass(file.name, SPEC, configs);
    const result = await streamRead(
      file,
      pass,
      { keySpec: SPEC },
      { parallel: 0, readRange: null, progress: () => {} },
    );
    expect(result.exact).toBe(true);
    configs.forEach((c, j) => {
      const h = replayColumns(whole, c);
      expect(result.decisions[j]?.rejected, `minute=${j + 1}`).toBe(h.rejected);
      expect(result.decisions[j]?.admitted).toBe(h.admitted);
      expect(h.rejected).toBe(kongByHand(trace, j + 1));
    });
  });
});
