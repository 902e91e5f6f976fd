/**
 * Limiter.rejectsUntil: after a rejection, every request of the same key before the
 * time it gives is rejected alike and changes nothing. Checked by replay: a copy of the limiter
 * decides that request, and its decision and state are compared with the promise.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createLimiter } from '../../src/core';
import type { AlgorithmConfig, Limiter } from '../../src/core';
import { configArb, FC_SEED, KINDS, runs, traceArb } from './arbitraries';
import type { TraceEvent } from './arbitraries';

vi.setConfig({ testTimeout: 120_000 });

/** The first broken promise of `config` over `trace`, or null; counts the promises checked. */
function brokenPromise(
  config: AlgorithmConfig,
  trace: readonly TraceEvent[],
  pick: number,
  seen: { promises: number },
): string | null {
  const limiter: Limiter = createLimiter(config);
  for (const [i, { nowMs, key }] of trace.entries()) {
    const d = limiter.decide(nowMs, key);
    if (d.outcome !== 'reject') continue;
    const until = limiter.rejectsUntil();
    if (!(until > nowMs)) continue;
    seen.promises += 1;
    // Some time in [nowMs, until): the first, the last, and one in between.
    const span = Math.min(until - nowMs, 2 ** 40);
    const times = [nowMs, nowMs + span - 1, nowMs + Math.floor((span - 1) * pick)];
    for (const t of times) {
      const copy = limiter.clone();
      const got = copy.decide(t, key);
      const want = {
        outcome: 'reject',
        delayMs: 0,
        retryAfterMs: d.retryAfterMs - (t - nowMs),
        remaining: 0,
        limit: d.limit,
        resetMs: d.resetMs - (t - nowMs),
      };
      if (JSON.stringify(got) !== JSON.stringify(want) || !copy.sameStateAs(limiter, t)) {
        return `request #${i} (t=${nowMs}, key=${key}) rejected until ${until}; at ${t}: ${JSON.stringify(got)}, promised ${JSON.stringify(want)}`;
      }
    }
  }
  return null;
}

describe('rejectsUntil: rejected alike until then, nothing changed', () => {
  it.each(KINDS)('%s', (kind) => {
    const seen = { promises: 0 };
    fc.assert(
      fc.property(
        configArb[kind],
        traceArb({ keys: 3 }),
        fc.double({ min: 0, max: 1 }),
        (c, t, p) => {
          expect(brokenPromise(c, t, p, seen)).toBeNull();
        },
      ),
      { seed: FC_SEED, numRuns: runs(300) },
    );
    // The token bucket promises (continuous refill); the others say nothing yet.
    if (kind === 'token-bucket') expect(seen.promises).toBeGreaterThan(50);
    else expect(seen.promises).toBe(0);
  });

  it('an overloaded token bucket: the promise reaches the next token', () => {
    const tb = createLimiter({
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 100,
      fillIntervalMs: 1000,
    });
    tb.decide(0);
    tb.decide(0);
    const d = tb.decide(3);
    // 100 tokens a second: the next whole token is there at 10 ms.
    expect(d).toMatchObject({ outcome: 'reject', retryAfterMs: 7, resetMs: 17 });
    expect(tb.rejectsUntil()).toBe(10);
    expect(tb.decide(9)).toMatchObject({ outcome: 'reject', retryAfterMs: 1, resetMs: 11 });
    expect(tb.decide(10).outcome).toBe('admit');
  });
});
