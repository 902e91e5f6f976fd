import type { Inspection } from '../core';

/**
 * The share of a limiter's allowance left for a key, 0 – 1, from its inspection: tokens over
 * max_tokens, the window's unused count, 1 − nginx's excess over burst + 1, GCRA's unused
 * tolerance. For drawing the replicas side by side on one scale.
 */
export function allowanceLeft(i: Inspection): number {
  const clamp = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);
  switch (i.kind) {
    case 'fixed-window':
      return clamp((i.limit - i.count) / i.limit);
    case 'sliding-log':
      return clamp((i.limit - i.entries.length) / i.limit);
    case 'sliding-window-counter':
      return clamp((i.limit - i.estimate) / i.limit);
    case 'token-bucket':
      return clamp(i.tokens / i.maxTokens);
    case 'leaky-bucket':
      return clamp(1 - i.excessNowMilli / ((i.burst + 1) * 1000));
    case 'gcra':
      return clamp(1 - Math.max(0, i.tatMs - i.nowMs) / (i.toleranceMs + i.emissionIntervalMs));
    case 'anchored-window':
      return i.blocked ? 0 : clamp((i.limit - i.count) / i.limit);
    case 'calendar-windows':
      // The tightest window decides.
      return Math.min(1, ...i.windows.map((w) => clamp((w.limit - w.count) / w.limit)));
  }
}
