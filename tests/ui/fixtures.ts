/**
 * Real states for the view tests: run the real core on a list of arrivals and return what the store
 * will hand a view at `nowMs` — the inspection, the state size and every request with its decision.
 */
import { createLimiter, rejectStatus } from '../../src/core';
import type { AlgorithmConfig, Inspection, StateSize } from '../../src/core';
import type { VizRequest } from '../../src/viz';

export interface Frame<C extends AlgorithmConfig = AlgorithmConfig> {
  config: C;
  nowMs: number;
  inspection: Inspection;
  stateSize: StateSize;
  requests: VizRequest[];
}

/** Arrivals: a time (key 'default') or [time, key]. */
export type Arrival = number | readonly [number, string];

/**
 * Decides every arrival in time order and inspects `key` at `nowMs` before any later arrival is
 * decided, so requests after `nowMs` (on their way in) do not leak into the state drawn.
 */
export function frame<C extends AlgorithmConfig>(
  config: C,
  arrivals: readonly Arrival[],
  nowMs: number,
  key = 'default',
): Frame<C> {
  const limiter = createLimiter(config);
  const list = arrivals
    .map((a) => (typeof a === 'number' ? ([a, 'default'] as const) : a))
    .slice()
    .sort((a, b) => a[0] - b[0]);
  const requests: VizRequest[] = [];
  let inspection: Inspection | undefined;
  let stateSize: StateSize | undefined;
  const look = () => {
    inspection = limiter.inspect(nowMs, key);
    stateSize = limiter.stateSize(nowMs, key);
  };
  list.forEach(([arrivalMs, k], index) => {
    if (inspection === undefined && arrivalMs > nowMs) look();
    const d = limiter.decide(arrivalMs, k);
    requests.push({
      id: index + 1,
      arrivalMs,
      key: k,
      outcome: d.outcome,
      delayMs: d.delayMs,
      releaseMs: arrivalMs + d.delayMs,
      retryAfterMs: d.retryAfterMs,
      status: d.outcome === 'reject' ? rejectStatus(config) : 200,
      attempt: 1,
    });
  });
  if (inspection === undefined) look();
  return {
    config,
    nowMs,
    inspection: inspection as Inspection,
    stateSize: stateSize as StateSize,
    requests,
  };
}

/** `n` arrivals from `startMs`, `gapMs` apart. */
export function every(startMs: number, gapMs: number, n: number): number[] {
  return Array.from({ length: n }, (_, k) => startMs + k * gapMs);
}

/** `n` arrivals at the same instant. */
export function burst(atMs: number, n: number): number[] {
  return Array.from({ length: n }, () => atMs);
}

/** Gives jsdom (which has none) a ResizeObserver that never calls back, for parts that measure. */
export function stubResizeObserver(): void {
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
}
