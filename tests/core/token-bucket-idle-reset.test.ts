/**
 * token-bucket `idleResetS`: Traefik's ttlmap drops a source's bucket after `ttl` whole Unix
 * seconds without a request (pkg/middlewares/ratelimiter/ttlmap/ttlmap.go, traefik v3.7.9), and
 * every request, rejected ones included, refreshes it (in_memory_limiter.go sets before it reserves).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import type { TokenBucketConfig } from '../../src/core';

const slow: TokenBucketConfig = {
  kind: 'token-bucket',
  maxTokens: 1,
  tokensPerFill: 1,
  fillIntervalMs: 10_000,
  idleResetS: 2,
};

describe('idleResetS', () => {
  it('starts a key afresh once no request touched it for idleResetS whole seconds', () => {
    const l = createLimiter(slow);
    expect(l.decide(0).outcome).toBe('admit');
    expect(l.decide(1999).outcome).toBe('reject'); // second 1 < 0 + 2; the reject touches it
    expect(l.decide(2999).outcome).toBe('reject'); // second 2 < 1 + 2
    expect(l.decide(5000).outcome).toBe('admit'); // second 5 ≥ 2 + 2: dropped, full again
  });

  it('counts whole Unix seconds, not elapsed ms: 1.001 s can be enough, 1.999 s not', () => {
    const l = createLimiter({ ...slow, idleResetS: 1 });
    l.decide(999);
    expect(l.decide(1000).outcome).toBe('admit'); // second 1 ≥ 0 + 1, after 1 ms
    const m = createLimiter({ ...slow, idleResetS: 1 });
    m.decide(1000);
    expect(m.decide(1999).outcome).toBe('reject'); // second 1 < 1 + 1, after 999 ms
  });

  it('without it the bucket only refills (the Envoy and x/time/rate behaviour)', () => {
    const plain: TokenBucketConfig = { ...slow };
    delete plain.idleResetS;
    const l = createLimiter(plain);
    l.decide(0);
    expect(l.decide(5000).outcome).toBe('reject');
    expect(l.decide(10_000).outcome).toBe('admit');
  });

  it('matches a naive replay: a key is fresh iff its last touch is ≥ idleResetS seconds back', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        (gaps, idleResetS, maxTokens) => {
          const config: TokenBucketConfig = {
            kind: 'token-bucket',
            maxTokens,
            tokensPerFill: 1,
            fillIntervalMs: 1000,
            idleResetS,
          };
          const l = createLimiter(config);
          // Naive model: tokens as rationals in ms-units, reset when the ttl rule says so.
          let t = 0;
          let tokens = maxTokens * 1000; // units of 1/1000 token
          let last = 0;
          let touched = -1;
          for (const gap of gaps) {
            t += gap * 10;
            if (touched >= 0 && Math.floor(t / 1000) >= Math.floor(touched / 1000) + idleResetS) {
              touched = -1;
            }
            if (touched < 0) {
              tokens = maxTokens * 1000;
              last = t;
            }
            tokens = Math.min(maxTokens * 1000, tokens + (t - last));
            last = t;
            touched = t;
            const want = tokens >= 1000 ? 'admit' : 'reject';
            if (want === 'admit') tokens -= 1000;
            expect(l.decide(t).outcome).toBe(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
