// @vitest-environment jsdom
/**
 * Serialised-SVG snapshots of each view at a fixed state (Observable Plot style): a change to a
 * drawing shows up as a readable diff in __snapshots__/viz/*.svg.snap. Update with `vitest -u`
 * after looking at the drawing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from '@testing-library/react';
import { LimiterView, RequestFlow } from '../../src/viz';
import type { AlgorithmConfig } from '../../src/core';
import { burst, every, frame } from './fixtures';
import type { Arrival } from './fixtures';
import { serialize } from './serialize';

afterEach(cleanup);

const cases: Array<[string, AlgorithmConfig, Arrival[], number]> = [
  [
    'token-bucket',
    { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 1, fillIntervalMs: 100 },
    every(1000, 20, 8),
    1180,
  ],
  [
    'token-bucket-interval-delay',
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
  ],
  [
    'leaky-bucket',
    { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 2 },
    burst(1000, 9),
    1050,
  ],
  ['fixed-window', { kind: 'fixed-window', limit: 10, windowMs: 1000 }, every(200, 60, 40), 2350],
  [
    'sliding-log',
    { kind: 'sliding-log', limit: 10, windowMs: 1000, logRejected: true },
    every(0, 45, 50),
    2000,
  ],
  [
    'sliding-window-counter',
    { kind: 'sliding-window-counter', limit: 50, windowMs: 60_000 },
    [...every(1000, 1000, 42), ...every(74_000, 50, 18)],
    75_000,
  ],
  ['gcra', { kind: 'gcra', count: 10, periodMs: 1000, burst: 4 }, burst(1000, 7), 1050],
];

describe('view snapshots', () => {
  it.each(cases)('%s', async (name, config, arrivals, nowMs) => {
    const f = frame(config, arrivals, nowMs);
    const { container } = render(
      <LimiterView
        config={f.config}
        inspection={f.inspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={false}
        stateSize={f.stateSize}
        showFlow={false}
      />,
    );
    const svg = container.querySelector('svg') as SVGSVGElement;
    await expect(serialize(svg)).toMatchFileSnapshot(`./__snapshots__/viz/${name}.svg.snap`);
  });

  it.each([false, true])('request flow, reduced motion %s', async (reducedMotion) => {
    const f = frame(
      { kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 3, delay: 1 },
      [...burst(1000, 6), 1150, 1300],
      1100,
    );
    const { container } = render(
      <RequestFlow nowMs={f.nowMs} requests={f.requests} reducedMotion={reducedMotion} />,
    );
    const svg = container.querySelector('svg') as SVGSVGElement;
    await expect(serialize(svg)).toMatchFileSnapshot(
      `./__snapshots__/viz/request-flow${reducedMotion ? '-reduced' : ''}.svg.snap`,
    );
  });
});
