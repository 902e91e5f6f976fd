import { describe, expect, it } from 'vitest';
import { createLimiter } from '../../src/core';

describe('stateSize', () => {
  it('counts an nginx node for as long as the zone holds it, drained or not', () => {
    const nginx = createLimiter({
      kind: 'leaky-bucket',
      rate: 1,
      rateUnit: 'r/s',
      burst: 0,
      delay: 'nodelay',
    });
    expect(nginx.stateSize(0, 'a')).toEqual({ entries: 0, bytes: 0 });
    nginx.decide(0, 'a');
    // Drained after 1 s, but nginx frees a node only through its own expiry, so the 64 bytes stay.
    expect(nginx.stateSize(3_600_000, 'a')).toEqual({ entries: 1, bytes: 64 });
  });

  it('drops an idle token bucket to nothing: a full bucket is the same as no state', () => {
    const envoy = createLimiter({
      kind: 'token-bucket',
      maxTokens: 2,
      tokensPerFill: 1,
      fillIntervalMs: 1000,
    });
    envoy.decide(0, 'a');
    expect(envoy.stateSize(500, 'a')).toEqual({ entries: 1, bytes: 16 });
    expect(envoy.stateSize(1000, 'a')).toEqual({ entries: 0, bytes: 0 });
  });
});
