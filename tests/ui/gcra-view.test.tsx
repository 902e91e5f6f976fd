// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import fc from 'fast-check';
import { GcraView, gcraAdmits } from '../../src/viz';
import { createLimiter } from '../../src/core';
import type { GcraConfig, GcraInspection } from '../../src/core';
import { burst, frame } from './fixtures';
import type { Frame } from './fixtures';

afterEach(cleanup);

function draw(f: Frame<GcraConfig>) {
  return render(
    <GcraView
      config={f.config}
      inspection={f.inspection as GcraInspection}
      nowMs={f.nowMs}
      requests={f.requests}
      reducedMotion={false}
    />,
  );
}

// CL.THROTTLE key 4 10 1: T = 100 ms, τ = 500 ms; five pass at once, the sixth waits for TAT − τ.
const config: GcraConfig = { kind: 'gcra', count: 10, periodMs: 1000, burst: 4 };

describe('GcraView', () => {
  it('draws TAT ahead of now, τ, T and allow-at', () => {
    const f = frame(config, burst(1000, 7), 1050);
    const i = f.inspection as GcraInspection;
    expect([i.tatMs, i.emissionIntervalMs, i.toleranceMs, i.allowAtMs]).toEqual([
      1500, 100, 500, 1100,
    ]);
    draw(f);
    expect(screen.getByTestId('tat-ahead')).toHaveTextContent('+450 ms TAT ahead of now');
    expect(screen.getByTestId('tolerance-band')).toHaveTextContent('tolerance τ = 500 ms');
    expect(screen.getByTestId('emission-interval')).toHaveTextContent('T = 100 ms');
    expect(screen.getByTestId('allow-at')).toHaveTextContent('allow at +50 ms');
    expect(screen.getByTestId('gcra-verdict')).toHaveTextContent('next request: reject');
    expect(screen.getByRole('img')).toHaveAccessibleName(
      'GCRA: TAT 450 ms ahead of now; tolerance τ 500 ms, emission interval T 100 ms; the next request is rejected until +50 ms.',
    );
  });

  it('an idle key: TAT at now, allow-at now, admit', () => {
    const f = frame(config, [], 1000);
    draw(f);
    expect(screen.getByTestId('tat-ahead')).toHaveTextContent('idle');
    expect(screen.getByTestId('allow-at')).toHaveTextContent('allow at now');
    expect(screen.getByTestId('gcra-verdict')).toHaveTextContent('next request: admit');
  });

  it('the verdict is what the limiter decides next, also with fractional T', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 6000 }),
        fc.constantFrom(0, 1_700_000_000_000, 2 ** 40),
        (count, periodMs, b, times, t0, base) => {
          // Also far from 0 (a Unix-epoch-like clock): the margin must not grow into whole ms.
          const t = t0 + base;
          const limiter = createLimiter({ kind: 'gcra', count, periodMs, burst: b });
          for (const a of times
            .map((x) => x + base)
            .filter((x) => x <= t)
            .sort((x, y) => x - y))
            limiter.decide(a);
          const i = limiter.inspect(t) as GcraInspection;
          expect(gcraAdmits(i)).toBe(limiter.clone().decide(t).outcome === 'admit');
        },
      ),
      { numRuns: 2000 },
    );
  });
});
