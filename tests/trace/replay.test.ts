import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { defaultScenario, simulate } from '../../src/sim';
import { DELAY, REJECT, dryRun, dryRunCsv, replayTrace, virtualTimes } from '../../src/trace';

/** A hand-built trace (epoch ms, key, recorded status). */
function trace(rows: [number, string, number][]) {
  const keys: string[] = [];
  const keyId = rows.map(([, k]) => {
    if (!keys.includes(k)) keys.push(k);
    return keys.indexOf(k);
  });
  return {
    count: rows.length,
    arrivalMs: Float64Array.from(rows.map((r) => r[0])),
    keyId: Uint32Array.from(keyId),
    keys,
    status: Uint16Array.from(rows.map((r) => r[2])),
    cost: new Uint16Array(rows.length).fill(1),
  };
}

const T = 1_700_000_000_000;

describe('replay and dry run', () => {
  it('virtual times are whole ms from the first request’s whole ms (⌊arrival⌋ − ⌊first⌋)', () => {
    // So that virtual time + origin (⌊first⌋) is each arrival's whole ms, where the system counts
    // it: T + 10.2 is ms T + 10, 10 after ms T (⌊10.2 − 0.7⌋ = 9 would put it in ms T + 9).
    expect([
      ...virtualTimes(
        trace([
          [T + 0.7, 'a', 0],
          [T + 10.2, 'a', 0],
          [T + 999.9, 'a', 0],
        ]),
      ),
    ]).toEqual([0, 10, 999]);
  });

  it('known flips against the recorded statuses: fixed window of 2 per second', () => {
    // a: four requests in one window, the log rejected the third; b: one request the log rejected.
    const t = trace([
      [T, 'a', 200],
      [T + 10, 'a', 200],
      [T + 20, 'a', 429],
      [T + 30, 'a', 200],
      [T + 40, 'b', 503],
    ]);
    const r = replayTrace(t, { kind: 'fixed-window', limit: 2, windowMs: 1000 });
    expect([...r.outcome]).toEqual([0, 0, REJECT, REJECT, 0]);
    const d = dryRun(t, r, 'recorded');
    expect(d.changes).toEqual([
      { index: 3, flip: 'allowed→rejected', delayMs: 0 },
      { index: 4, flip: 'rejected→allowed', delayMs: 0 },
    ]);
    expect([d.toRejected, d.toAllowed, d.toDelayed]).toEqual([1, 1, 0]);
    expect(d.byKey).toEqual([
      { key: 'a', toRejected: 1, toAllowed: 0, toDelayed: 0 },
      { key: 'b', toRejected: 0, toAllowed: 1, toDelayed: 0 },
    ]);
    // Against "no limit" the recorded 429 is an allowed request the candidate rejects.
    const n = dryRun(t, r, 'no-limit');
    expect(n.changes.map((c) => [c.index, c.flip])).toEqual([
      [2, 'allowed→rejected'],
      [3, 'allowed→rejected'],
    ]);
    expect(dryRunCsv(t, d)).toBe(
      'arrival_ms,offset_ms,key,change,delay_ms,recorded_status\n' +
        `${T + 30},30,a,allowed→rejected,0,200\n` +
        `${T + 40},40,b,rejected→allowed,0,503\n`,
    );
  });

  it('the changes CSV writes keys a spreadsheet would run as formulas neutralised', () => {
    const keys = ['=HYPERLINK("http://x.test","y")', '+cmd', '@SUM(A1)'];
    const rows = keys.flatMap((k, i): Array<[number, string, number]> => [
      [T + i, k, 200],
      [T + 10 + i, k, 200],
    ]);
    const t = trace(rows.sort((a, b) => a[0] - b[0]));
    const r = replayTrace(t, { kind: 'fixed-window', limit: 1, windowMs: 1000 });
    const csv = dryRunCsv(t, dryRun(t, r, 'recorded'));
    expect(
      csv
        .split('\n')
        .slice(1, 4)
        .map((line) => line.split(',')[2]),
    ).toEqual([`"'=HYPERLINK(""http://x.test""`, "'+cmd", "'@SUM(A1)"]);
  });

  it('allowed→delayed with the delay nginx computes (rate=1r/s burst=5 delay=1)', () => {
    // Three at once: excess 0, 1000 (≤ delay·1000: admit), 2000 → wait (2000 − 1000)·1000/1000 ms.
    const t = trace([
      [T, 'a', 200],
      [T, 'a', 200],
      [T, 'a', 200],
    ]);
    const r = replayTrace(t, {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/s',
      burst: 5,
      delay: 1,
    });
    expect([...r.outcome]).toEqual([0, 0, DELAY]);
    expect(dryRun(t, r, 'recorded').changes).toEqual([
      { index: 2, flip: 'allowed→delayed', delayMs: 1000 },
    ]);
  });

  it('a one-key replay decides as the simulator does for the same arrivals', () => {
    const configs: AlgorithmConfig[] = [
      { kind: 'fixed-window', limit: 3, windowMs: 500 },
      { kind: 'sliding-log', limit: 3, windowMs: 500 },
      { kind: 'sliding-window-counter', limit: 3, windowMs: 500 },
      { kind: 'token-bucket', maxTokens: 3, tokensPerFill: 2, fillIntervalMs: 300 },
      { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 2, delay: 1 },
      { kind: 'gcra', count: 4, periodMs: 1000, burst: 2 },
    ];
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5000 }), { minLength: 1, maxLength: 80 }),
        (ts) => {
          const times = [...ts].sort((a, b) => a - b);
          const first = times[0] as number;
          // The log starts at T, on a window edge of every config here: the replay's windows on
          // the clock then fall where the simulator's (from its time 0) fall.
          const t = trace(times.map((x) => [T + x - first, 'k', 0] as [number, string, number]));
          const sim = simulate(
            configs,
            {
              ...defaultScenario(),
              sources: [{ kind: 'manual', timesMs: times.map((x) => x - first) }],
            },
            5001,
          );
          configs.forEach((c, lane) => {
            const r = replayTrace(t, c);
            const cols = sim.lanes[lane]?.columns;
            expect(cols?.rows).toBe(times.length);
            expect([...r.outcome]).toEqual([...(cols?.outcome.slice(0, times.length) ?? [])]);
          });
        },
      ),
      { numRuns: 40 },
    );
  });
});
