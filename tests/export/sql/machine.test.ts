/**
 * The machines the SQL dialects render (src/export/sql/machine.ts), run in TypeScript, against
 * core on random configs and traces: every request's outcome and delay, key by key. The SQL
 * renderings of the same machines are checked on real DuckDB and PostgreSQL elsewhere; this test
 * covers far more configs than a database round trip can.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig, AlgorithmKind } from '../../../src/core';
import { evaluate, machineFor, nginxExpiryMatters } from '../../../src/export/sql/machine';
import { FC_SEED, configArb, runs } from '../../core/arbitraries';
import { traceArb } from './traces';
import type { Row } from './traces';
import { coreDecisions } from './proof';

/** The machine's decisions, in row order (each key run on its own). */
function machineDecisions(config: AlgorithmConfig, rows: readonly Row[]) {
  const m = machineFor(config);
  const out = Array.from({ length: rows.length }, () => ({ outcome: -1, delay: 0 }));
  const keys = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const l = keys.get(r.key);
    if (l === undefined) keys.set(r.key, [i]);
    else l.push(i);
  });
  for (const idx of keys.values()) {
    const r = evaluate(
      m,
      idx.map((i) => (rows[i] as Row).t),
    );
    idx.forEach((i, j) => {
      out[i] = { outcome: r.outcome[j] as number, delay: r.delay[j] as number };
    });
  }
  return out;
}

const KINDS: AlgorithmKind[] = [
  'token-bucket',
  'gcra',
  'leaky-bucket',
  'sliding-window-counter',
  'anchored-window',
  'calendar-windows',
];

describe('SQL machines equal core', () => {
  for (const kind of KINDS) {
    it(`${kind}: every decision`, () => {
      const arb = configArb[kind].filter(
        (c) => c.kind !== 'leaky-bucket' || !nginxExpiryMatters(c),
      );
      fc.assert(
        fc.property(arb, traceArb, (config, rows) => {
          expect(machineDecisions(config, rows)).toEqual(coreDecisions(config, rows));
        }),
        { seed: FC_SEED, numRuns: runs(300) },
      );
    });
  }

  it('nginx configs whose zone expiry can change a decision are refused, with the reason', () => {
    const oneAMinute: AlgorithmConfig = {
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/m',
      burst: 0,
      delay: 'nodelay',
    };
    expect(() => machineFor(oneAMinute)).toThrow(/idle for 60 s/);
    // And that refusal is needed: a key back after a minute is decided differently once nginx
    // deleted its node (another key arrived) than when it kept it.
    const alone = coreDecisions(oneAMinute, [
      { t: 0, key: 'a', status: 200, seq: 0 },
      { t: 60_000, key: 'a', status: 200, seq: 1 },
    ]);
    const withOther = coreDecisions(oneAMinute, [
      { t: 0, key: 'a', status: 200, seq: 0 },
      { t: 60_000, key: 'b', status: 200, seq: 1 },
      { t: 60_000, key: 'a', status: 200, seq: 2 },
    ]);
    expect(alone[1]?.outcome).toBe(2);
    expect(withOther[2]?.outcome).toBe(0);
  });
});
