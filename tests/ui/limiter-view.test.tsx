// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { LimiterView } from '../../src/viz';
import type { AlgorithmConfig } from '../../src/core';
import { MAX_DURATION_MS, MAX_COUNT, MAX_TIME_MS } from '../../src/core';
import { burst, every, frame } from './fixtures';

afterEach(cleanup);

const configs: Array<[AlgorithmConfig, string]> = [
  [
    { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 1, fillIntervalMs: 100 },
    'token-bucket-view',
  ],
  [{ kind: 'leaky-bucket', rate: 10, rateUnit: 'r/s', burst: 5, delay: 2 }, 'leaky-bucket-view'],
  [{ kind: 'fixed-window', limit: 10, windowMs: 1000 }, 'fixed-window-view'],
  [{ kind: 'sliding-log', limit: 10, windowMs: 1000 }, 'sliding-log-view'],
  [{ kind: 'sliding-window-counter', limit: 10, windowMs: 1000 }, 'sliding-window-counter-view'],
  [{ kind: 'gcra', count: 10, periodMs: 1000, burst: 4 }, 'gcra-view'],
];

describe('LimiterView', () => {
  it.each(configs)('draws the view for %o and the request flow', (config, testId) => {
    const f = frame(config, burst(1000, 12), 1050);
    render(
      <LimiterView
        config={f.config}
        inspection={f.inspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={false}
      />,
    );
    expect(screen.getByTestId(testId)).toBeInTheDocument();
    expect(screen.getByTestId('request-flow')).toBeInTheDocument();
    expect(screen.getAllByRole('img')).toHaveLength(2);
  });

  it('draws no flow strip when asked not to', () => {
    const [config] = configs[0] as [AlgorithmConfig, string];
    const f = frame(config, [], 0);
    render(
      <LimiterView
        config={f.config}
        inspection={f.inspection}
        nowMs={0}
        requests={[]}
        reducedMotion
        showFlow={false}
      />,
    );
    expect(screen.queryByTestId('request-flow')).toBeNull();
  });

  it('an inspection of another kind draws a notice, not a broken view', () => {
    const f = frame({ kind: 'gcra', count: 1, periodMs: 1000, burst: 0 }, [], 0);
    render(
      <LimiterView
        config={{ kind: 'fixed-window', limit: 1, windowMs: 1000 }}
        inspection={f.inspection}
        nowMs={0}
        requests={[]}
        reducedMotion={false}
      />,
    );
    expect(screen.getByRole('alert')).toHaveTextContent(
      'gcra inspection with a fixed-window config',
    );
  });

  // Extreme but valid configs and times: whatever the numbers, no NaN or Infinity reaches the DOM.
  const extremes: AlgorithmConfig[] = [
    {
      kind: 'token-bucket',
      maxTokens: MAX_COUNT,
      tokensPerFill: 1,
      fillIntervalMs: MAX_DURATION_MS,
      maxDelayMs: MAX_DURATION_MS,
    },
    {
      kind: 'token-bucket',
      maxTokens: 1,
      tokensPerFill: MAX_COUNT,
      fillIntervalMs: 1,
      refill: 'interval',
    },
    { kind: 'leaky-bucket', rate: 1, rateUnit: 'r/m', burst: MAX_COUNT, delay: 0 },
    { kind: 'leaky-bucket', rate: MAX_COUNT, rateUnit: 'r/s', burst: 0, delay: 'nodelay' },
    { kind: 'fixed-window', limit: MAX_COUNT, windowMs: MAX_DURATION_MS },
    { kind: 'fixed-window', limit: 1, windowMs: 1 },
    { kind: 'sliding-log', limit: 1, windowMs: 1, logRejected: true },
    { kind: 'sliding-log', limit: MAX_COUNT, windowMs: MAX_DURATION_MS },
    { kind: 'sliding-window-counter', limit: MAX_COUNT, windowMs: MAX_DURATION_MS },
    { kind: 'sliding-window-counter', limit: 1, windowMs: 1 },
    { kind: 'gcra', count: MAX_COUNT, periodMs: 1, burst: MAX_COUNT },
    { kind: 'gcra', count: 1, periodMs: MAX_DURATION_MS, burst: 0 },
  ];
  const times = [0, 1, MAX_TIME_MS - 10_000, -MAX_TIME_MS + 10];

  it.each(extremes)('no NaN for %o', (config) => {
    for (const t of times) {
      const f = frame(config, [...every(t, 1, 5), ...burst(t + 5, 5)], t + 6);
      for (const reducedMotion of [false, true]) {
        const { container, unmount } = render(
          <LimiterView
            config={f.config}
            inspection={f.inspection}
            nowMs={f.nowMs}
            requests={f.requests}
            reducedMotion={reducedMotion}
            stateSize={f.stateSize}
            width={360}
          />,
        );
        expect(container.innerHTML).not.toMatch(/NaN|Infinity|undefined/);
        expect(container.querySelectorAll('*').length).toBeLessThan(800);
        unmount();
      }
    }
  });
});

describe('marks at the playhead', () => {
  // A burst decided exactly at the instant drawn: its marks sit on the now line (and on the sliding
  // log's window edge). SVG paints in document order, so every such line must come before every mark.
  const LINES = '.rl-now, .rl-bracket-line, .rl-bracket-band, .rl-tat';
  it.each(configs)('%o draws its now line under the marks decided at now', (config, testId) => {
    const f = frame(config, [...every(200, 100, 5), ...burst(1000, 6)], 1000);
    render(
      <LimiterView
        config={f.config}
        inspection={f.inspection}
        nowMs={f.nowMs}
        requests={f.requests}
        reducedMotion={false}
        showFlow={false}
      />,
    );
    const view = screen.getByTestId(testId);
    const lines = [...view.querySelectorAll(LINES)];
    const marks = [...view.querySelectorAll('.rl-request, .rl-dense-marks')];
    for (const line of lines) {
      for (const mark of marks) {
        expect(line.compareDocumentPosition(mark) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
      }
    }
    // The views that draw arrivals on a time axis do have both, so the check above is not empty.
    if (['fixed-window-view', 'sliding-log-view', 'gcra-view'].includes(testId)) {
      expect(lines.length).toBeGreaterThan(0);
      expect(marks.length).toBeGreaterThan(0);
    }
  });
});
