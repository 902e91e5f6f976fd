import type { AlgorithmConfig, AlgorithmKind } from '../core';
import { defaultScenario } from '../sim';
import type { PlaygroundInputs } from './types';

/** Each algorithm's starting parameters: about 5 requests per second with a burst of 10. */
export const DEFAULT_LIMITERS: Readonly<Record<AlgorithmKind, AlgorithmConfig>> = {
  'token-bucket': {
    kind: 'token-bucket',
    maxTokens: 10,
    tokensPerFill: 5,
    fillIntervalMs: 1000,
    refill: 'continuous',
    maxDelayMs: 0,
  },
  'leaky-bucket': { kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 9, delay: 'nodelay' },
  'fixed-window': { kind: 'fixed-window', limit: 10, windowMs: 2000 },
  'sliding-log': { kind: 'sliding-log', limit: 10, windowMs: 2000, logRejected: false },
  'sliding-window-counter': { kind: 'sliding-window-counter', limit: 10, windowMs: 2000 },
  gcra: { kind: 'gcra', count: 5, periodMs: 1000, burst: 9 },
};

/** Playback speeds offered, virtual ms per real ms (log steps). */
export const SPEEDS: readonly number[] = [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100];

/**
 * What the playground opens with: an Envoy token bucket (10 tokens, 5/s) facing a page-load burst
 * of 12 at 2 s on top of steady Poisson traffic at 4/s, for 20 s.
 */
export function defaultInputs(): PlaygroundInputs {
  const scenario = defaultScenario();
  scenario.sources = [
    { kind: 'poisson', ratePerSec: 4, startMs: 0, endMs: 20_000 },
    { kind: 'burst', atMs: 2000, count: 12 },
  ];
  return {
    limiters: [{ config: DEFAULT_LIMITERS['token-bucket'] }],
    scenario,
    untilMs: 20_000,
    chartWindowMs: 1000,
    mode: 'single',
  };
}
