// @vitest-environment jsdom
/**
 * The fleet's own controls: labelled, keyboard-operable, each message naming the field's
 * label and the accepted range; an invalid value never reaches the run.
 */
import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultScenario } from '../../src/sim';
import type { Deployment, Scenario } from '../../src/sim';
import { FleetControls } from '../../src/ui/traffic/FleetControls';

afterEach(cleanup);

const LIMITERS = [{ kind: 'fixed-window' as const, limit: 10, windowMs: 1000 }];

function Harness({
  deployment,
  onChange,
  untilMs = 20_000,
}: {
  deployment: Partial<Deployment>;
  onChange: (s: Scenario) => void;
  untilMs?: number;
}) {
  const [scenario, setScenario] = useState<Scenario>(() => ({
    ...defaultScenario(),
    deployment: { ...defaultScenario().deployment, instances: 4, ...deployment },
  }));
  return (
    <FleetControls
      scenario={scenario}
      limiters={LIMITERS}
      untilMs={untilMs}
      onChange={(s) => {
        onChange(s);
        setScenario(s);
      }}
    />
  );
}

describe('FleetControls', () => {
  it('an outage longer than the run names "outage 1 until" and its range, and is not committed', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(
      <Harness
        deployment={{
          state: 'shared-atomic',
          fleet: {
            store: {
              rttMs: 1,
              jitterMs: 0,
              outages: [{ fromMs: 8000, toMs: 14_000 }],
              onDown: 'closed',
            },
          },
        }}
        onChange={onChange}
      />,
    );
    const until = screen.getByLabelText('outage 1 until');
    await user.clear(until);
    await user.type(until, '90000');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'outage 1 until must be from 8001 to 28000: an outage cannot be longer than the run (20000 ms), got 90000',
    );
    // Intermediate valid values (9, 900 …) were committed as typed; 90000 was not.
    const last = onChange.mock.calls.at(-1)?.[0] as Scenario | undefined;
    expect(last?.deployment.fleet?.store?.outages[0]?.toMs).not.toBe(90_000);
    await user.clear(until);
    await user.type(until, '16000');
    expect(screen.queryByRole('alert')).toBeNull();
    expect((onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.store?.outages).toEqual([
      { fromMs: 8000, toMs: 16_000 },
    ]);
  });

  it('weights that sum to 0 are named with the replicas in use; valid weights commit', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness deployment={{ balancer: 'weighted', instances: 2 }} onChange={onChange} />);
    const weights = screen.getByLabelText('weights');
    await user.type(weights, '0 0');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'weights must give the 2 replicas in use a total weight of at least 1 (each 0 – 1000), got a sum of 0',
    );
    expect(
      onChange.mock.calls.some(([s]) => (s as Scenario).deployment.fleet?.weights?.[1] === 0),
    ).toBe(false);
    await user.clear(weights);
    await user.type(weights, '3 1');
    expect(screen.queryByRole('alert')).toBeNull();
    expect((onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.weights).toEqual([3, 1]);
    await user.clear(weights);
    await user.type(weights, '3 x');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'weights must be whole numbers from 0 to 1000, one per replica, got "x"',
    );
  });

  it('a scale event to 0 replicas names the field and says a fleet keeps one replica', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness deployment={{}} onChange={onChange} />);
    await user.click(screen.getByRole('button', { name: '+ Add a scale event' }));
    expect((onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.scale).toEqual([
      { atMs: 10_000, instances: 8 },
    ]);
    const replicas = screen.getByLabelText('scale event 1 replicas');
    await user.clear(replicas);
    await user.type(replicas, '0');
    expect(screen.getByRole('alert')).toHaveTextContent(
      'scale event 1 replicas must be a whole number from 1 to 64 (a fleet cannot scale in below one replica), got 0',
    );
    await user.click(screen.getByRole('button', { name: 'Remove scale event 1' }));
    expect((onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet).toBeUndefined();
  });

  it('store controls by keyboard: fail policy, status, batching, cache; none shown without a store', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    const { unmount } = render(
      <Harness deployment={{ state: 'local-divided' }} onChange={onChange} />,
    );
    expect(screen.queryByLabelText('store round trip')).toBeNull();
    unmount();
    render(<Harness deployment={{ state: 'layered' }} onChange={onChange} />);
    await user.selectOptions(screen.getByLabelText('when the store is down'), 'closed');
    await user.selectOptions(screen.getByLabelText('status when down'), '429');
    screen.getByLabelText('batch increments (sync_rate)').focus();
    await user.keyboard(' ');
    screen.getByLabelText('cache over-limit keys').focus();
    await user.keyboard(' ');
    expect((onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.store).toEqual({
      rttMs: 1,
      jitterMs: 0,
      outages: [],
      onDown: 'closed',
      downStatus: 429,
      syncMs: 1000,
      cacheOverLimit: true,
    });
    // Kong's sync_rate batching is not modelled: a Kong policy drops it and hides the checkbox.
    await user.selectOptions(screen.getByLabelText('store policy'), 'cluster');
    const kongStore = (onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.store;
    expect(kongStore?.kong).toBe('cluster');
    expect(kongStore?.syncMs).toBeUndefined();
    expect(screen.queryByLabelText('batch increments (sync_rate)')).toBeNull();
    await user.selectOptions(screen.getByLabelText('store policy'), 'atomic');
    expect(
      (onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.store?.kong,
    ).toBeUndefined();
    const rtt = screen.getByLabelText('store round trip');
    await user.clear(rtt);
    await user.type(rtt, '-1');
    expect(screen.getByRole('alert')).toHaveTextContent(/^store round trip must be .*got -1/);
  });

  it('the autoscaler: max below min names "max replicas"', async () => {
    const user = userEvent.setup();
    const onChange = vi.fn();
    render(<Harness deployment={{}} onChange={onChange} />);
    await user.click(screen.getByLabelText('autoscaler'));
    expect((onChange.mock.calls.at(-1)?.[0] as Scenario).deployment.fleet?.autoscale).toEqual({
      perReplicaRps: 20,
      everyMs: 1000,
      min: 1,
      max: 8,
    });
    const max = screen.getByLabelText('max replicas');
    await user.clear(max);
    await user.type(max, '0');
    expect(screen.getByRole('alert')).toHaveTextContent(/^max replicas must be .*from 1 to 64/);
  });
});
