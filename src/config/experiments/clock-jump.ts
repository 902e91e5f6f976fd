/** Experiment 11. A wall-clock jump vs a monotonic clock (the library: ./library.ts). */
import type { LaneResult } from '../../sim';
import { n, rejectTimes, secs, status } from '../measure';
import type { ExperimentVariant, Experiment, Axis } from './define';
import { scenario, inputs, variantsOf, runAxes } from './define';
import { bucket } from './page-load';

// The clock is one setting per run; the jump is kept in both variants (a monotonic clock ignores it).
const CLOCK_AXES: readonly Axis[] = [
  {
    id: 'monotonic',
    label: 'Monotonic clock',
    apply: (s) => ({ ...s, clock: { ...s.clock, mode: 'monotonic' } }),
  },
  {
    id: 'wall',
    label: 'Wall clock',
    apply: (s) => ({ ...s, clock: { ...s.clock, mode: 'wall' } }),
  },
];

const clockVariants = variantsOf(
  inputs(
    [{ name: 'token bucket 5/s', config: bucket(5, 5) }],
    scenario({
      sources: [{ kind: 'constant', ratePerSec: 5, startMs: 0, endMs: 20_000 }],
      clock: { mode: 'monotonic', jumps: [{ atMs: 8000, byMs: -5000 }] },
      metrics: { windowMs: 1000, binMs: 200 },
    }),
    20_000,
  ),
  CLOCK_AXES,
);

export const clockJump: Experiment = {
  id: 'clock-jump',
  title: 'The clock steps back',
  question:
    'Clients send exactly the refill rate, 5 a second, and at 8 s NTP sets the wall clock back 5 s: what happens to a token bucket that reads the wall clock, and one that reads a monotonic clock?',
  lookAt:
    'Switch to the wall clock: after the jump the bucket sees time standing still before its last update, so it stops refilling until the clock catches up.',
  inputs: (clockVariants[0] as ExperimentVariant).inputs,
  variants: clockVariants,
  startAtMs: 10_000,
  measure(result) {
    const jumps = result.scenario.clock.jumps;
    const runs = runAxes(result, CLOCK_AXES).map(({ axis, run }) => {
      const lane = run.lanes[0] as LaneResult;
      const rejects = rejectTimes(lane);
      return { axis, lane, rejects };
    });
    const parts = runs.map(({ axis, lane, rejects }) => {
      const first = rejects[0];
      const last = rejects.at(-1);
      if (first === undefined || last === undefined)
        return `${axis.label}: none of ${n(lane.metrics.total.offered)} rejected`;
      return `${axis.label}: ${n(rejects.length)} get ${status(lane)}, from ${secs(first)} to ${secs(last)}`;
    });
    const jump = jumps.length === 1 ? jumps[0] : undefined;
    const when =
      jump === undefined
        ? ''
        : `The wall clock ${jump.byMs < 0 ? 'steps back' : 'jumps ahead'} ${secs(Math.abs(jump.byMs))} at ${secs(jump.atMs)}. `;
    return {
      headline: `${when}${parts.join('; ')}.`,
      facts: runs.flatMap(({ axis, lane, rejects }) => [
        {
          label: `${axis.label}: rejected`,
          value: `${n(rejects.length)} of ${n(lane.metrics.total.offered)}`,
        },
        {
          label: `${axis.label}: refill stalled`,
          value:
            rejects.length > 0
              ? `${secs((rejects.at(-1) as number) - (rejects[0] as number))}, from ${secs(rejects[0] as number)}`
              : 'never',
        },
      ]),
    };
  },
};
