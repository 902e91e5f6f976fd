/**
 * The dry run as the worker computes it (src/trace/dryrunGroups.ts, through the kernels) against
 * a log whose changes are known by construction (fixtures/generate.ts `dryRunTruth`), and against
 * `dryRun` (the whole-list version) on random traces.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import {
  DryRunGrouper,
  dryRun,
  parseTrace,
  replayColumns,
  replayTrace,
  virtualOrigin,
  virtualTimes,
} from '../../src/trace';
import type { Baseline, Trace } from '../../src/trace';

const dir = join(import.meta.dirname, 'fixtures');
const known = JSON.parse(readFileSync(join(dir, 'dryrun.json'), 'utf8')) as {
  link: string;
  flips: { client: string; offsetMs: number; flip: string; delayMs: number }[];
};
/** The fixture's candidate, `nginx:rate=1r/s,burst=2,delay=1`. */
const NGINX: AlgorithmConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 2,
  delay: 1,
};

function groupsOf(trace: Trace, config: AlgorithmConfig, baseline: Baseline) {
  const timeMs = virtualTimes(trace);
  // On the log's clock, as the worker replays it (the kernels where they take the origin).
  const fast = replayColumns(
    { timeMs, keyId: trace.keyId, keys: trace.keys, originMs: virtualOrigin(trace) },
    config,
  );
  const g = new DryRunGrouper(
    {
      timeMs,
      keyId: trace.keyId,
      keyCount: trace.keys.length,
      status: trace.status,
      keys: trace.keys,
    },
    fast.outcome,
    fast.delayMs,
    baseline,
    4,
    100,
    1000,
  );
  // Small steps: the streamed groups add up to the whole.
  let steps = 0;
  while (g.step(3)) steps += 1;
  return { groups: g.snapshot(), steps };
}

describe('dry run groups', () => {
  it('finds exactly the changes the constructed log was built to have', () => {
    expect(known.link).toBe('nginx:rate=1r/s,burst=2,delay=1');
    const trace = parseTrace(new Uint8Array(readFileSync(join(dir, 'dryrun.log'))), {
      name: 'dryrun.log',
    });
    const { groups, steps } = groupsOf(trace, NGINX, 'recorded');
    expect(steps).toBeGreaterThan(3);
    const t0 = trace.arrivalMs[0] as number;
    const got = groups.first.map((c) => ({
      client: trace.keys[trace.keyId[c.index] as number],
      offsetMs: (trace.arrivalMs[c.index] as number) - t0,
      flip: c.flip,
      delayMs: c.delayMs,
    }));
    expect(got).toEqual(known.flips);
    const count = (f: string) => known.flips.filter((x) => x.flip === f).length;
    expect(groups.toRejected).toBe(count('allowed→rejected'));
    expect(groups.toAllowed).toBe(count('rejected→allowed'));
    expect(groups.toDelayed).toBe(count('allowed→delayed'));
    expect(groups.toRejected + groups.toAllowed + groups.toDelayed).toBe(known.flips.length);
    // By time: 4 slices of the 50 s span; the per-slice counts add up to the totals.
    const sum = groups.byTime.reduce((a, s) => a + s.toRejected + s.toAllowed + s.toDelayed, 0);
    expect(sum).toBe(known.flips.length);
    // By key: each address's changes, as built.
    for (const k of groups.byKey) {
      const client = trace.keys[k.keyId];
      const mine = known.flips.filter((x) => x.client === client);
      expect(k.toRejected + k.toAllowed + k.toDelayed).toBe(mine.length);
    }
  });

  it('equals dryRun on random traces, both baselines', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 3000 }),
            fc.integer({ min: 0, max: 5 }),
            fc.constantFrom(200, 200, 429, 503, 0),
          ),
          { minLength: 1, maxLength: 120 },
        ),
        fc.constantFrom<Baseline>('recorded', 'no-limit'),
        fc.constantFrom<AlgorithmConfig>(
          NGINX,
          {
            kind: 'token-bucket',
            maxTokens: 2,
            tokensPerFill: 1,
            fillIntervalMs: 300,
            maxDelayMs: 500,
          },
          { kind: 'fixed-window', limit: 2, windowMs: 500 },
        ),
        (rows, baseline, config) => {
          const sorted = [...rows].sort((a, b) => a[0] - b[0]);
          const trace = {
            count: sorted.length,
            arrivalMs: Float64Array.from(sorted, (r) => 1_700_000_000_000 + r[0]),
            keyId: Uint32Array.from(sorted, (r) => r[1]),
            keys: ['a', 'b', 'c', 'd', 'e', 'f'],
            status: Uint16Array.from(sorted, (r) => r[2]),
          } as unknown as Trace;
          const whole = dryRun(trace, replayTrace(trace, config), baseline);
          const { groups } = groupsOf(trace, config, baseline);
          expect(groups.toRejected).toBe(whole.toRejected);
          expect(groups.toAllowed).toBe(whole.toAllowed);
          expect(groups.toDelayed).toBe(whole.toDelayed);
          expect(groups.first).toEqual(whole.changes);
          // The same keys in the same order with the same counts.
          expect(
            groups.byKey.map((k) => ({
              key: trace.keys[k.keyId],
              toRejected: k.toRejected,
              toAllowed: k.toAllowed,
              toDelayed: k.toDelayed,
            })),
          ).toEqual(whole.byKey);
        },
      ),
      { numRuns: 300 },
    );
  });
});
