/**
 * A span read out of a log too large to hold (src/trace/streamSpan.ts): the requests of
 * [from, to) as a held read of the whole log gives them, cut with a stated bound, and the stage's
 * replay of that trace decides each request as the dry run over the span does.
 */
import { describe, expect, it } from 'vitest';
import {
  ADMIT,
  DELAY,
  REJECT,
  StreamSpanPass,
  holdTrace,
  parseTrace,
  replayWithEmptyKey,
  streamRead,
  traceSourceOf,
} from '../../src/trace';
import type { StreamSource } from '../../src/trace';
import type { AlgorithmConfig } from '../../src/core';
import { simLimiters } from '../../src/config/keys';
import {
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  defaultScenario,
  simulate,
} from '../../src/sim';
import type { SimTrace } from '../../src/sim';

const T0 = 1_767_571_200_000;

/** A combined-like log ($msec at the end): `n` requests 37 ms apart over 40 keys, some late. */
function log(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const ms = T0 + i * 37 - (i % 7 === 0 ? 900 : 0);
    const key = i % 5 === 0 ? 0 : i % 40;
    out.push(
      `10.0.0.${key} - - [05/Jan/2026:00:00:00 +0000] "GET / HTTP/1.1" ${i % 13 === 0 ? 429 : 200} 1 "-" "UA" "-" 0.001 ${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`,
    );
  }
  return out.join('\n') + '\n';
}

function source(text: string): StreamSource {
  const blob = new Blob([text]);
  return {
    name: 'big.log',
    size: blob.size,
    slice: (a, b) => blob.slice(a, b),
    stream: () => blob.stream(),
  };
}

async function span(text: string, fromMs: number, toMs: number, max = 1_000_000) {
  const file = source(text);
  const pass = new StreamSpanPass(file.name, [{ kind: 'client' }], fromMs, toMs, max);
  return streamRead(
    file,
    pass,
    { keySpec: [{ kind: 'client' }] },
    { parallel: 0, readRange: null, progress: () => {} },
  );
}

const LEAKY: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 2,
  rateUnit: 'r/s',
  burst: 5,
  delay: 'nodelay',
};

describe('a span of a streamed log', () => {
  const text = log(4000);
  const whole = parseTrace(new TextEncoder().encode(text), {
    name: 'big.log',
    keySpec: [{ kind: 'client' }],
  });

  it('holds exactly the requests of [from, to) a held read of the whole log gives', async () => {
    const from = T0 + 30_000;
    const to = T0 + 90_000;
    const r = await span(text, from, to);
    const want: [number, string, number][] = [];
    for (let i = 0; i < whole.count; i += 1) {
      const t = whole.arrivalMs[i] as number;
      if (t >= from && t < to)
        want.push([t, whole.keys[whole.keyId[i] as number] as string, whole.status[i] as number]);
    }
    const got = Array.from({ length: r.trace.count }, (_, i) => [
      r.trace.arrivalMs[i] as number,
      r.trace.keys[r.trace.keyId[i] as number] as string,
      r.trace.status[i] as number,
    ]);
    expect(want.length).toBeGreaterThan(1000);
    expect(got).toEqual(want);
    expect(r.fileRequests).toBe(4000);
    expect(r.cutAtMs).toBeNull();
  });

  it('a span larger than the bound is cut at a stated time, its first requests kept', async () => {
    const r = await span(text, T0, T0 + 200_000, 500);
    expect(r.trace.count).toBe(500);
    expect(r.cutAtMs).not.toBeNull();
    expect(r.trace.arrivalMs[499]).toBeLessThan(r.cutAtMs as number);
    const all = await span(text, T0, T0 + 200_000);
    expect(Array.from(r.trace.arrivalMs)).toEqual(Array.from(all.trace.arrivalMs.subarray(0, 500)));
  });

  it('the stage replays the span as the dry run over it decides', async () => {
    const r = await span(text, T0 + 30_000, T0 + 90_000);
    const { held, replay } = holdTrace(r.trace);
    if (!replay.ok || !(held.times instanceof Int32Array)) throw new Error('not replayable');
    const sim: SimTrace = {
      hash: replay.hash,
      timeMs: held.times,
      keyId: held.keyId,
      keys: held.keys,
    };
    const columns = { timeMs: sim.timeMs, keyId: sim.keyId, keys: sim.keys };
    // The dry run over the span's requests (the held dry run's replay, no empty key here).
    const dry = replayWithEmptyKey(columns, LEAKY, null);
    // The stage: the simulator replaying the span as the scenario's trace source.
    const scenario = { ...defaultScenario(), sources: [traceSourceOf(sim, 'big.log', 1)] };
    const limiters = simLimiters({ limiters: [{ config: LEAKY }] });
    const untilMs = (sim.timeMs[sim.timeMs.length - 1] as number) + 1;
    const lane = simulate(limiters, scenario, untilMs, { traces: [sim] }).lanes[0]!;
    expect(lane.columns.rows).toBe(held.count);
    const CODE = { [OUTCOME_ADMIT]: ADMIT, [OUTCOME_DELAY]: DELAY, [OUTCOME_REJECT]: REJECT };
    for (let i = 0; i < lane.columns.rows; i += 1) {
      expect(CODE[lane.columns.outcome[i] as 0 | 1 | 2]).toBe(dry.outcome[i]);
    }
    expect(lane.metrics.first.rejected).toBe(dry.rejected);
    expect(dry.rejected).toBeGreaterThan(0);
  });
});
