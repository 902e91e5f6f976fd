/**
 * The core against the naive BigInt reference model (reference.ts): the same configs and traces,
 * every decision compared — outcome, delayMs, retryAfterMs and remaining (not for Caddy's ring,
 * whose passes in an entry's last millisecond have no bound).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, AlgorithmKind } from '../../src/core';
import { coarseStepMs, configArb, FC_SEED, KINDS, runs, traceArb } from './arbitraries';
import type { TraceEvent } from './arbitraries';
import { RefLimiter } from './reference';

// Property runs take about a second each here; a loaded CI machine, or FC_RUNS_SCALE, needs more.
vi.setConfig({ testTimeout: 120_000 });

/** Configs whose `remaining` is not defined by replay (types.ts, lastMsPasses). */
function unboundedRemaining(config: AlgorithmConfig): boolean {
  return config.kind === 'sliding-log' && config.lastMsPasses === true;
}

/** The first decision where the core and the reference differ, or null. */
function firstDifference(config: AlgorithmConfig, trace: readonly TraceEvent[]): string | null {
  const core = createLimiter(config);
  const ref = new RefLimiter(config);
  for (const [i, { nowMs, key }] of trace.entries()) {
    const got = core.decide(nowMs, key);
    const want = ref.decide(nowMs, key);
    const same =
      got.outcome === want.outcome &&
      got.delayMs === want.delayMs &&
      got.retryAfterMs === want.retryAfterMs &&
      // Caddy's last-millisecond passes are unbounded: core's remaining counts logged passes only.
      (unboundedRemaining(config) ||
        (want.remainingCapped
          ? got.remaining >= want.remaining
          : got.remaining === want.remaining));
    if (!same) {
      return `request #${i} (t=${nowMs}, key=${key}): core ${JSON.stringify(got)}, reference ${JSON.stringify(want)}`;
    }
  }
  return null;
}

const RUNS: Record<AlgorithmKind, number> = {
  'fixed-window': 400,
  'sliding-log': 400,
  'sliding-window-counter': 400,
  'token-bucket': 600,
  'leaky-bucket': 600,
  gcra: 400,
  'anchored-window': 500,
  'calendar-windows': 500,
};

describe('core = reference model, decision by decision', () => {
  it.each(KINDS)('%s', (kind) => {
    fc.assert(
      fc.property(configArb[kind], traceArb({ keys: kind === 'leaky-bucket' ? 6 : 3 }), (c, t) => {
        expect(firstDifference(c, t)).toBeNull();
      }),
      { seed: FC_SEED, numRuns: runs(RUNS[kind]) },
    );
  });
});

describe('nginx node expiry (ngx_http_limit_req_expire) = reference model', () => {
  it('on a coarse clock with many keys, where nodes idle for exactly 60 s are common', () => {
    fc.assert(
      fc.property(
        configArb['leaky-bucket'],
        traceArb({ keys: 8, steps: coarseStepMs, maxLength: 40 }),
        (c, t) => {
          expect(firstDifference(c, t)).toBeNull();
        },
      ),
      { seed: FC_SEED, numRuns: runs(600) },
    );
  });
});
