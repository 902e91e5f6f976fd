import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { toGo } from '../../src/export';

function text(config: AlgorithmConfig): string {
  const out = toGo(config);
  if (!out.ok) throw new Error(out.reason);
  return out.text;
}

describe('toGo (golang.org/x/time/rate)', () => {
  it('maps a token bucket to rate.NewLimiter(tokens per second, max_tokens) with Allow', () => {
    const src = text({
      kind: 'token-bucket',
      maxTokens: 10,
      tokensPerFill: 1,
      fillIntervalMs: 200,
    });
    expect(src).toContain('limit = rate.Every(200 * time.Millisecond)');
    expect(src).toContain('burst = 10');
    expect(src).toContain('rate.NewLimiter(limit, burst)');
    expect(src).toContain('.Allow()');
    expect(src).not.toContain('context');
  });

  it('maps maxDelayMs to Wait with a deadline', () => {
    const src = text({
      kind: 'token-bucket',
      maxTokens: 5,
      tokensPerFill: 3,
      fillIntervalMs: 2000,
      maxDelayMs: 1500,
    });
    expect(src).toContain('limit = rate.Limit(3 / (2 * time.Second).Seconds())');
    expect(src).toContain('maxDelay = 1500 * time.Millisecond');
    expect(src).toContain('context.WithTimeout(ctx, maxDelay)');
    expect(src).toContain('.Wait(ctx)');
  });

  it('maps GCRA to a bucket of burst + 1 refilled count per period', () => {
    const src = text({ kind: 'gcra', count: 1, periodMs: 60_000, burst: 4 });
    expect(src).toContain('limit = rate.Every(1 * time.Minute)');
    expect(src).toContain('burst = 5');
  });

  it('says where x/time/rate does not map', () => {
    const cases: AlgorithmConfig[] = [
      {
        kind: 'token-bucket',
        maxTokens: 5,
        tokensPerFill: 1,
        fillIntervalMs: 1000,
        refill: 'interval',
      },
      { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 1, delay: 0 },
      { kind: 'fixed-window', limit: 5, windowMs: 1000 },
      { kind: 'sliding-log', limit: 5, windowMs: 1000 },
      { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
    ];
    for (const c of cases) {
      const out = toGo(c);
      expect(out).toMatchObject({ ok: false, target: 'go', kind: c.kind });
      expect(!out.ok && out.reason.length).toBeGreaterThan(40);
    }
  });
});
