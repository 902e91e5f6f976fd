/** Experiment 12. Envoy's old interval refill vs continuous refill (the library: ./library.ts). */
import type { AlgorithmConfig } from '../../core';
import { peakWindow, rowRange } from '../../sim';
import { dec, n, passed, secs } from '../measure';
import type { Experiment } from './define';
import { scenario, inputs } from './define';

const envoy = (refill: 'interval' | 'continuous'): AlgorithmConfig => ({
  kind: 'token-bucket',
  maxTokens: 10,
  tokensPerFill: 10,
  fillIntervalMs: 1000,
  refill,
});

/** The longest time between consecutive ascending `timesMs`; 0 with fewer than two. */
function longestGapMs(timesMs: readonly number[]): number {
  let gap = 0;
  for (let i = 1; i < timesMs.length; i += 1)
    gap = Math.max(gap, (timesMs[i] as number) - (timesMs[i - 1] as number));
  return gap;
}

const STEP_WINDOW_MS = 250;
/** The first fill interval spends the bucket's initial 10 tokens: measure the steady state after. */
const STEADY_FROM_MS = 2000;

export const envoyRefill: Experiment = {
  id: 'envoy-refill',
  title: "Envoy's interval refill vs continuous",
  question:
    "An Envoy token bucket (max_tokens=10, tokens_per_fill=10, fill_interval=1s) faces 40 requests a second: how do the old interval timer and today's continuous refill hand out the same 10 a second?",
  lookAt:
    'Watch the token level: the interval bucket jumps back to 10 at every whole second and is empty in between; the continuous one gains a token every 100 ms.',
  inputs: inputs(
    [
      { name: 'interval refill', config: envoy('interval') },
      { name: 'continuous refill', config: envoy('continuous') },
    ],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 40, startMs: 0, endMs: 10_000 }],
      metrics: { windowMs: 1000, binMs: 100 },
    }),
    10_000,
  ),
  startAtMs: 2600,
  measure(result) {
    const fromMs = Math.min(STEADY_FROM_MS, result.untilMs - 1);
    const seconds = (result.untilMs - fromMs) / 1000;
    const per = result.lanes.map((lane) => {
      const c = lane.columns;
      const times: number[] = [];
      const [start, end] = rowRange(c, fromMs, result.untilMs);
      for (let r = start; r < end; r += 1)
        if (passed(c.outcome[r] as number)) times.push(c.arrivalMs[r] as number);
      return {
        lane,
        rate: times.length / seconds,
        gap: longestGapMs(times),
        peak: peakWindow(Float64Array.from(times), times.length, STEP_WINDOW_MS).count,
      };
    });
    const parts = per.map(
      ({ lane, rate, gap, peak }) =>
        `${lane.name} passes ${dec(rate, 1)}/s, up to ${n(peak)} within ${secs(STEP_WINDOW_MS)}, with gaps of up to ${secs(gap)}`,
    );
    return {
      headline: `From ${secs(fromMs)} on, ${parts.join('; ')}.`,
      facts: per.flatMap(({ lane, rate, gap, peak }) => [
        { label: `${lane.name}: passed per second from ${secs(fromMs)}`, value: dec(rate, 1) },
        { label: `${lane.name}: most passed in any ${secs(STEP_WINDOW_MS)}`, value: n(peak) },
        { label: `${lane.name}: longest gap between passes`, value: secs(gap) },
      ]),
    };
  },
};
