/**
 * The inspector's words for Traefik with a shared store are its Redis limiter's (lua.go,
 * redis_limiter.go, rate_limiter.go @ traefik v3.7.9): the script takes a token only when its wait
 * is at most max_delay in whole µs, Traefik waits any delay up to maxDelay in ns, so a wait between
 * the two passes without a token: nothing is "reserved". Its numbers are the script's floats as a
 * person should read them: cut, never rounded up to a whole token the bucket has not reached.
 */
import { describe, expect, it } from 'vitest';
import { createSharedLimiter } from '../../src/core';
import type { TokenBucketConfig } from '../../src/core';
import { describeTokenBucket } from '../../src/viz/TokenBucketView';
import { explainDecision } from '../../src/core/explain';
import type { Explanation } from '../../src/core/explain';
import { Seeker, decisionAt, requestAt, simulate } from '../../src/sim';
import type { SimResult, TrafficSource } from '../../src/sim';
import { scenario } from '../sim/helpers';
import { SHARED, traefikConfig } from './traefikRedisFixtures';

function run(config: TokenBucketConfig, source: TrafficSource, keys = 1): SimResult {
  return simulate(
    [config],
    scenario({
      seed: 7,
      sources: [source],
      clients: { count: keys, keying: 'per-client', assign: 'round-robin' },
      deployment: SHARED,
    }),
    4000,
  );
}

/** What the inspector explains for a row: core's explainDecision on the state the row met. */
function explainRow(result: SimResult, row: number) {
  const info = requestAt(result, 0, row);
  const { stores, store, wallMs } = new Seeker(result).storesBefore(0, row);
  const before = stores[store]?.inspect(wallMs, info.key);
  if (before?.kind !== 'token-bucket') throw new Error('a token bucket');
  return {
    before,
    decision: decisionAt(result, 0, row),
    e: explainDecision(before, info.decision),
  };
}

const text = (e: Explanation) => [e.rule, ...e.steps].join('\n');

describe("Traefik's Redis limiter in the inspector", () => {
  // 3/s, burst 2: maxDelay = 166,666,666 ns, the script's max_delay 166,666 µs.
  const result = run(traefikConfig(3, 2), { kind: 'manual', timesMs: [0, 0, 500, 500, 600, 600] });

  it('a wait between ⌊maxDelay⌋ µs and maxDelay: passed without a token, nothing reserved', () => {
    // At 500 ms: 0.5 token, a wait of 166,666.67 µs > 166,666 µs: the script gives it back;
    // Traefik reads 166,666,666 ns ≤ maxDelay and passes the request after that wait.
    const { e, decision } = explainRow(result, 3);
    expect(decision.outcome).toBe('delay');
    expect(e.rule).toBe(
      'tokens 0.5 < 1, wait 166666.666… µs > max_delay 166666 µs → delay without a token',
    );
    expect(text(e)).toContain('the script gives the token back: stores tokens 0.5');
    expect(text(e)).toContain(
      'Traefik reads the wait as 166666666 ns ≤ maxDelay 166666666 ns: it waits that long, then passes the request, which took no token',
    );
    expect(text(e)).not.toMatch(/reserve/);
  });

  it('a wait within max_delay: the script takes the token ahead and stores the debt', () => {
    // At 600 ms: 0.5 + 0.3 = 0.8 token; the wait 66,666.67 µs; tokens stored −0.2 (as a double).
    const { e, decision } = explainRow(result, 4);
    expect(decision.outcome).toBe('delay');
    expect(e.rule).toBe('tokens 0.8 < 1, wait 66666.666… µs ≤ max_delay 166666 µs → delay');
    expect(text(e)).toContain('Redis holds tokens 0.5, last 500 ms');
    expect(text(e)).toContain('the script takes the token ahead');
    expect(text(e)).toMatch(/stores tokens -0\.199999…, last = now, and the key expires in 2 s/);
    expect(text(e)).toContain('Traefik reads the wait as 66666666 ns ≤ maxDelay 166666666 ns');
    expect(text(e)).not.toMatch(/reserve/);
  });

  it('a wait beyond maxDelay: 429, the token given back, last and expiry still moved', () => {
    const { e, decision } = explainRow(result, 5);
    expect(decision.outcome).toBe('reject');
    expect(e.rule).toBe('tokens -0.199999… < 1, wait 400000 µs > max delay → reject');
    expect(text(e)).toContain('the script gives the token back: stores tokens -0.199999…');
    expect(text(e)).toContain(
      'Traefik reads the wait as 400000000 ns > maxDelay 166666666 ns: 429',
    );
  });

  it('a key Redis does not hold: the script starts from 0 and its first refill fills it', () => {
    const { e } = explainRow(result, 0);
    expect(e.rule).toBe('tokens 2 ≥ 1 → admit');
    expect(text(e)).toContain(
      'no key in Redis (never set, or expired 2 s after its last request): the script starts from tokens 0, last 0, and its refill fills it to 2',
    );
    expect(text(e)).toContain('the script takes one: stores tokens 1');
  });

  it("every row: the tokens said are the script's, cut with … when not exact, and the rule is the decision", () => {
    // 7/s, burst 3, 40 r/s of Poisson traffic over 3 keys: tokens that are not whole or short
    // decimals (7 · 10⁻⁶ per µs is no exact double), waits within and beyond max_delay.
    const r = run(
      traefikConfig(7, 3),
      { kind: 'poisson', ratePerSec: 40, startMs: 0, endMs: 4000 },
      3,
    );
    const rows = r.lanes[0]?.columns.rows ?? 0;
    expect(rows).toBeGreaterThan(100);
    const seen = { cut: 0, without: 0, delay: 0, reject: 0 };
    for (let row = 0; row < rows; row += 1) {
      const { before, decision, e } = explainRow(r, row);
      const m = /^tokens (\S+) (≥|<) 1[ ,]/.exec(e.rule);
      if (m === null) throw new Error(`row ${row}: ${e.rule}`);
      const shown = m[1] as string;
      const x = before.tokens;
      if (shown.endsWith('…')) {
        // Cut toward 0: what is shown is not the value, and it is on the value's side of 0 … 1.
        seen.cut += 1;
        const v = Number(shown.slice(0, -1));
        expect(v, `row ${row}`).not.toBe(x);
        expect(Math.abs(v) <= Math.abs(x), `row ${row}: ${shown} for ${x}`).toBe(true);
        expect(Math.abs(x - v) < (Math.abs(x) < 1 ? 1e-6 : 1e-3), `row ${row}`).toBe(true);
      } else expect(Number(shown), `row ${row}`).toBe(x);
      expect(m[2], `row ${row}: ${shown} for ${x}`).toBe(x >= 1 ? '≥' : '<');
      expect(e.rule.endsWith(`→ ${decision.outcome}`) || e.rule.endsWith('without a token')).toBe(
        true,
      );
      if (e.rule.endsWith('without a token')) seen.without += 1;
      if (decision.outcome === 'delay') seen.delay += 1;
      if (decision.outcome === 'reject') seen.reject += 1;
      expect(text(e), `row ${row}`).not.toMatch(/reserve/);
    }
    // The run meets every case.
    expect(seen.cut).toBeGreaterThan(10);
    expect(seen.delay).toBeGreaterThan(5);
    expect(seen.reject).toBeGreaterThan(5);
  });
});

describe("Traefik's Redis limiter in the bucket drawing", () => {
  it('a debt the script stores as −0.19999999999999996 reads "0.2 reserved", not 0.1', () => {
    const limiter = createSharedLimiter(traefikConfig(3, 2));
    for (const t of [0, 0, 500, 500, 600]) limiter.decide(t, 'k');
    const i = limiter.inspect(600, 'k');
    if (i.kind !== 'token-bucket') throw new Error('a token bucket');
    expect(i.tokens).toBe(-0.19999999999999996);
    expect(describeTokenBucket(i, 600)).toMatch(/^Token bucket: 0 of 2 tokens, 0\.2 reserved; /);
  });
});
