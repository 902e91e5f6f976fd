// @vitest-environment jsdom
/**
 * the timeline panel's colour accessor carries each fleet request's replica colour into
 * the timeline's dense columns (the same colours as the fleet view).
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultScenario, simulate } from '../../src/sim';
import { replicaMarks } from '../../src/ui/clock/replica-marks';
import { Timeline } from '../../src/viz';
import { replicaColor } from '../../src/viz/replicaColors';

afterEach(cleanup);

function fleetRun() {
  return simulate(
    [{ kind: 'fixed-window', limit: 20, windowMs: 1000 }],
    {
      ...defaultScenario(),
      sources: [{ kind: 'poisson', ratePerSec: 60, startMs: 0, endMs: 30_000 }],
      deployment: {
        instances: 3,
        balancer: 'weighted',
        state: 'local-divided',
        roundTripMs: 5,
        fleet: { weights: [3, 1, 1] },
      },
    },
    30_000,
  );
}

describe('replica colours in dense timeline columns', () => {
  it("splits each outcome's columns by replica, in the fleet view's colours, counts matching the fleet metrics", () => {
    const result = fleetRun();
    const markColor = replicaMarks(result);
    expect(markColor).toBeDefined();
    render(
      <Timeline
        result={result}
        tMs={0}
        width={640}
        onSeek={() => {}}
        {...(markColor === undefined ? {} : { markColor })}
      />,
    );
    const lane = screen.getByTestId('timeline-lane');
    expect(lane).toHaveAttribute('data-mode', 'columns');
    const perReplica = result.lanes[0]?.fleet?.metrics.perReplica;
    for (const [outcome, want] of [
      ['reject', perReplica?.rejected],
      ['admit', perReplica?.passed],
    ] as const) {
      const byFill = new Map<string, number>();
      for (const p of within(lane).getAllByTestId('timeline-bars')) {
        if (p.getAttribute('data-outcome') !== outcome) continue;
        const fill = p.style.getPropertyValue('fill');
        byFill.set(fill, (byFill.get(fill) ?? 0) + Number(p.getAttribute('data-count')));
      }
      for (let slot = 0; slot < 3; slot += 1) {
        const n = want?.[slot] ?? 0;
        const probe = document.createElement('div');
        probe.style.fill = replicaColor(slot);
        expect(byFill.get(probe.style.getPropertyValue('fill')) ?? 0).toBe(n);
      }
    }
    // The weighted replica takes 3/5 of the traffic and rejects most: the colours carry that.
    expect(perReplica?.rejected[0]).toBeGreaterThan(0);
  });

  it('no accessor when no lane is a fleet', () => {
    const plain = simulate(
      [{ kind: 'fixed-window', limit: 20, windowMs: 1000 }],
      defaultScenario(),
      5000,
    );
    expect(replicaMarks(plain)).toBeUndefined();
  });
});
