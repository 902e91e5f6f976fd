/**
 * HAProxy's entry-anchored counter (src/core/algorithms/entry-counter.ts) decides by key slot
 * without allocating: a streamed dry run decides millions of requests through it, and an object
 * or array per decision made its worker's heap twice the other systems' at 16M requests. Measured
 * with V8's sampling heap profiler (tests/trace/sampledGarbage.ts); the decisions themselves are
 * checked against HAProxy's rules in haproxy-freq-ctr.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';
import { leastGarbagePer } from '../trace/sampledGarbage';

describe('the entry-anchored counter’s garbage', () => {
  it('decides 200,000 requests over 300 known keys with under 4 bytes a request left over', async () => {
    const keys = Array.from({ length: 300 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const index = new Map(keys.map((k, i) => [k, i]));
    const requests = 200_000;
    const run = () => {
      const limiter = createLimiter({
        kind: 'sliding-window-counter',
        limit: 10,
        windowMs: 10_000,
        anchor: 'entry',
      });
      limiter.useKeyIndex(index);
      // Every key seen once first: a new key's entry is the one allocation a decision may make.
      for (let k = 0; k < keys.length; k += 1) limiter.decideKey(0, keys[k] as string, k);
      let rejected = 0;
      for (let i = 0; i < requests; i += 1) {
        const k = (i * 7919) % keys.length;
        if (limiter.decideKey(1 + i * 3, keys[k] as string, k).outcome === 'reject') rejected += 1;
      }
      return rejected;
    };
    // Hot first, as in a pass's later chunks.
    let rejected = 0;
    for (let i = 0; i < 3; i += 1) rejected = run();
    expect(rejected).toBeGreaterThan(0);
    expect(rejected).toBeLessThan(requests);
    const perRequest = await leastGarbagePer(() => void run(), requests, 4);
    expect(perRequest).toBeLessThan(4);
  });
});
