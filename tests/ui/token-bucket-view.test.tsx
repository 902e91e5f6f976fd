// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { TokenBucketView } from '../../src/viz';
import type { TokenBucketConfig, TokenBucketInspection } from '../../src/core';
import { burst, frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function draw(f: Frame<TokenBucketConfig>) {
  return render(
    <TokenBucketView
      config={f.config}
      inspection={f.inspection as TokenBucketInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
    />,
  );
}

describe('TokenBucketView', () => {
  it('continuous refill: whole coins, the next coin filling, the countdown', () => {
    // 8 of 10 tokens taken at t = 1000; 1 token per 100 ms: 2.5 tokens at t = 1050.
    const f = frame(
      { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 1, fillIntervalMs: 100 },
      burst(1000, 8),
      1050,
    );
    expect((f.inspection as TokenBucketInspection).tokens).toBe(2.5);
    draw(f);
    expect(screen.getByTestId('token-count')).toHaveTextContent('2.5 / 10 tokens');
    expect(screen.getAllByTestId('token')).toHaveLength(2);
    expect(screen.getByTestId('token-partial')).toBeInTheDocument();
    expect(screen.getByTestId('token-countdown')).toHaveTextContent('next token in 50 ms');
    expect(screen.getByTestId('capacity-line')).toBeInTheDocument();
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Token bucket: 2.5 of 10 tokens; next token in 50 ms.',
    );
  });

  it('a full bucket says so and has no partial coin', () => {
    const f = frame(
      { kind: 'token-bucket', maxTokens: 4, tokensPerFill: 1, fillIntervalMs: 100 },
      [],
      0,
    );
    draw(f);
    expect(screen.getAllByTestId('token')).toHaveLength(4);
    expect(screen.queryByTestId('token-partial')).toBeNull();
    expect(screen.getByTestId('token-countdown')).toHaveTextContent('bucket full');
  });

  it('interval refill: whole steps, the next fill outlined', () => {
    // 5 tokens, +2 every 500 ms at k·500: 4 taken at t = 1000 leave 1; the fill at 1500 brings 2.
    const f = frame(
      {
        kind: 'token-bucket',
        maxTokens: 5,
        tokensPerFill: 2,
        fillIntervalMs: 500,
        refill: 'interval',
      },
      burst(1000, 4),
      1100,
    );
    draw(f);
    expect(screen.getAllByTestId('token')).toHaveLength(1);
    expect(screen.queryByTestId('token-partial')).toBeNull();
    expect(screen.getAllByTestId('next-fill-slot')).toHaveLength(2);
    expect(screen.getByTestId('token-countdown')).toHaveTextContent('next fill (+2) in 400 ms');
  });

  it('maxDelayMs: reserved tokens below zero and the requests waiting for them', () => {
    // 9 requests at t = 1000: 5 take tokens, 2 wait for the fill at 1500, 2 for the one at 2000,
    // the 9th would wait 1500 ms > maxDelayMs and is rejected.
    const f = frame(
      {
        kind: 'token-bucket',
        maxTokens: 5,
        tokensPerFill: 2,
        fillIntervalMs: 500,
        refill: 'interval',
        maxDelayMs: 1000,
      },
      burst(1000, 9),
      1100,
    );
    const i = f.inspection as TokenBucketInspection;
    expect(i.debt).toBe(4);
    expect(i.releases).toEqual([1500, 1500, 2000, 2000]);
    draw(f);
    expect(screen.getByTestId('token-count')).toHaveTextContent('0 / 5 tokens');
    expect(screen.queryAllByTestId('token')).toHaveLength(0);
    // The next fill only pays back reserved tokens: no coin is outlined.
    expect(screen.queryAllByTestId('next-fill-slot')).toHaveLength(0);
    expect(screen.getByTestId('debt')).toHaveTextContent('−4 reserved');
    expect(screen.getByTestId('waiting-count')).toHaveTextContent('4 requests waiting');
    const waiting = screen.getAllByTestId('waiting-request');
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting[0]).toHaveTextContent('in 400 ms');
    // Waiting marks are the delayed requests themselves, by id.
    expect(waiting[0]?.querySelector('[data-testid="request-6"]')).not.toBeNull();
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Token bucket: 0 of 5 tokens, 4 reserved; next fill in 400 ms; 4 requests waiting.',
    );
  });

  it('a large bucket draws a level instead of a million coins', () => {
    const f = frame(
      { kind: 'token-bucket', maxTokens: 1_000_000, tokensPerFill: 1000, fillIntervalMs: 1000 },
      burst(0, 100),
      0,
    );
    const { container } = draw(f);
    expect(screen.queryAllByTestId('token')).toHaveLength(0);
    expect(screen.getByTestId('token-level')).toBeInTheDocument();
    expect(screen.getByTestId('token-count')).toHaveTextContent('999,900 / 1,000,000 tokens');
    expect(container.querySelectorAll('circle').length).toBeLessThan(50);
  });
});
