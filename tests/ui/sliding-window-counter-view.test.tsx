// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import fc from 'fast-check';
import { SlidingWindowCounterView, swcFormula } from '../../src/viz';
import { createLimiter } from '../../src/core';
import type { SlidingWindowCounterConfig, SlidingWindowCounterInspection } from '../../src/core';
import { burst, every, frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function draw(f: Frame<SlidingWindowCounterConfig>) {
  return render(
    <SlidingWindowCounterView
      config={f.config}
      inspection={f.inspection as SlidingWindowCounterInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
    />,
  );
}

const config: SlidingWindowCounterConfig = {
  kind: 'sliding-window-counter',
  limit: 50,
  windowMs: 60_000,
};

describe('SlidingWindowCounterView', () => {
  it("fills in Cloudflare's formula with live numbers", () => {
    // 42 requests in the previous minute, 18 in this one; 15 s into it the previous weighs 45/60.
    const f = frame(config, [...every(1000, 1000, 42), ...every(74_000, 50, 18)], 75_000);
    const i = f.inspection as SlidingWindowCounterInspection;
    expect([i.previousCount, i.currentCount, i.elapsedMs]).toEqual([42, 18, 15_000]);
    draw(f);
    expect(screen.getByTestId('formula')).toHaveTextContent('42 × 45/60 + 18 = 49.5 < 50 → admit');
    expect(screen.getByTestId('estimate')).toHaveTextContent('49.5 / 50 estimated');
    expect(screen.getByTestId('bar-previous')).toBeInTheDocument();
    expect(screen.getByTestId('bar-current')).toBeInTheDocument();
    // The covered share of the previous bar is the weight: 45 of 60 s of its width.
    const width = (id: string) => Number(screen.getByTestId(id).getAttribute('width'));
    expect(width('bar-previous-weighted') / (width('bar-previous') + 4)).toBeCloseTo(0.75, 1);
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'Sliding-window counter: previous 42 × weight 0.75 + current 18 = 49.5 of 50; the next request is admitted.',
    );
  });

  it('shows the rejecting side with ≥', () => {
    const f = frame(config, [...every(1000, 1000, 42), ...every(74_000, 50, 19)], 75_000);
    draw(f);
    expect(screen.getByTestId('formula')).toHaveTextContent('42 × 45/60 + 19 = 50.5 ≥ 50 → reject');
  });

  it('never rounds the estimate onto the limit when it is below it', () => {
    // p = 1, c = 4, 1 ms into a 1 s window: 1 × 999/1000 + 4 = 4.999, which two decimals print as 5.
    const near: SlidingWindowCounterConfig = {
      kind: 'sliding-window-counter',
      limit: 5,
      windowMs: 1000,
    };
    const f = frame(near, [0, ...burst(1000, 5)], 1001);
    expect(swcFormula(f.inspection as SlidingWindowCounterInspection).text).toBe(
      '1 × 999/1000 + 4 = 4.999 < 5 → admit',
    );
    // p = 10, 59,999 ms into a minute: 10 × 0.001/60 + 0 = 0.000166…, printed rounded, marked ≈.
    const minute: SlidingWindowCounterConfig = {
      kind: 'sliding-window-counter',
      limit: 10,
      windowMs: 60_000,
    };
    const g = frame(minute, every(0, 1000, 10), 119_999);
    expect(swcFormula(g.inspection as SlidingWindowCounterInspection).text).toBe(
      '10 × 0.001/60 + 0 ≈ 0 < 10 → admit',
    );
  });

  it('the verdict is what the limiter decides next, for any traffic and time', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 25_000 }),
        (limit, windowMs, times, t) => {
          const limiter = createLimiter({ kind: 'sliding-window-counter', limit, windowMs });
          for (const a of times.filter((x) => x <= t).sort((x, y) => x - y)) limiter.decide(a);
          const i = limiter.inspect(t) as SlidingWindowCounterInspection;
          const f = swcFormula(i);
          expect(f.admit).toBe(limiter.clone().decide(t).outcome === 'admit');
          expect(f.text).toMatch(f.admit ? /< \S+ → admit$/ : /≥ \S+ → reject$/);
          expect(f.text).not.toMatch(/NaN|Infinity/);
        },
      ),
    );
  });
});
