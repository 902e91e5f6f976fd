// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { EXPERIMENTS, experimentById } from '../../src/config/experiments';
import type { Experiment } from '../../src/config/experiments';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ExperimentsMenu } from '../../src/ui/experiments/ExperimentsMenu';

afterEach(cleanup);

function get(id: string): Experiment {
  const e = experimentById(id);
  if (e === undefined) throw new Error(id);
  return e;
}

function setup() {
  const store = createPlaygroundStore();
  render(
    <PlaygroundProvider store={store}>
      <ExperimentsMenu />
    </PlaygroundProvider>,
  );
  return store;
}

describe('ExperimentsMenu', () => {
  it('loads the chosen experiment, paused at its moment, and shows the measured answer', async () => {
    const store = setup();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: `Browse ${EXPERIMENTS.length}` }));
    await user.click(screen.getByRole('button', { name: /^The boundary burst/ }));

    const e = get('boundary-burst');
    const s = store.getState();
    expect({
      limiters: s.limiters,
      scenario: s.scenario,
      untilMs: s.untilMs,
      mode: s.mode,
    }).toEqual(e.inputs);
    expect([s.tMs, s.playing]).toEqual([e.startAtMs, false]);

    const card = screen.getByTestId('experiment-card');
    expect(within(card).getByRole('heading', { name: 'The boundary burst' })).toHaveFocus();
    expect(card).toHaveTextContent(e.question);
    expect(screen.getByTestId('experiment-headline')).toHaveTextContent(
      'In the 2 s around the boundary, fixed window passes 20 — 2× its limit of 10, sliding log passes 10 (1×) and sliding-window counter passes 15 (1.5×).',
    );
    // The list closes once a choice is made.
    expect(screen.getByRole('button', { name: `Browse ${EXPERIMENTS.length}` })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
  });

  it('switches variants, and re-measures when the person edits the preset', async () => {
    const store = setup();
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: `Browse ${EXPERIMENTS.length}` }));
    await user.click(screen.getByRole('button', { name: /^Four instances, one limit/ }));
    const shared = screen.getByRole('button', { name: 'Shared store' });
    expect(shared).toHaveAttribute('aria-pressed', 'false');
    expect(screen.getByRole('button', { name: 'Local state' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    const before = screen.getByTestId('experiment-headline').textContent;
    expect(before).toContain('Racy read-then-write: 20/s (2×)');

    await user.click(shared);
    expect(store.getState().scenario.deployment.state).toBe('shared-atomic');
    expect(shared).toHaveAttribute('aria-pressed', 'true');
    // The answer compares every variant, so it does not change with the one shown.
    expect(screen.getByTestId('experiment-headline')).toHaveTextContent(before ?? '');

    // An edit: a limit of 20 a second. The answer follows the edited run.
    store.getState().setLimiterConfig(0, { kind: 'fixed-window', limit: 20, windowMs: 1000 });
    expect(await screen.findByText(/Measured on your changed settings/)).toBeInTheDocument();
    expect(screen.getByTestId('experiment-headline')).toHaveTextContent(
      'Local state: 80/s (4×); Shared store: 20/s (1×)',
    );
    expect(shared).toHaveAttribute('aria-pressed', 'false');
    await user.click(screen.getByRole('button', { name: 'Back to the preset' }));
    expect(store.getState().limiters).toEqual(get('instances').inputs.limiters);
    expect(store.getState().scenario.deployment.state).toBe('shared-atomic');
    expect(screen.queryByText(/Measured on your changed settings/)).not.toBeInTheDocument();
  });

  it('works from the keyboard alone', async () => {
    const store = setup();
    const user = userEvent.setup();
    await user.tab();
    expect(screen.getByRole('button', { name: `Browse ${EXPERIMENTS.length}` })).toHaveFocus();
    await user.keyboard('{Enter}');
    await user.tab();
    await user.tab(); // the second experiment
    await user.keyboard('{Enter}');
    expect(store.getState().scenario).toEqual(get('steady-overload').inputs.scenario);
    expect(screen.getByTestId('experiment-headline')).toHaveTextContent(
      'none until 9.09 s, then 9% (about 1 in 11)',
    );
    await user.click(screen.getByRole('button', { name: 'Close' }));
    expect(screen.queryByTestId('experiment-card')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: `Browse ${EXPERIMENTS.length}` })).toHaveFocus();
  });
});
