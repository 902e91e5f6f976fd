// @vitest-environment jsdom
/**
 * The fleet's small multiples: the store's cell says DOWN while the store is in an outage window,
 * instead of the allowance it cannot be asked for (it showed "100% left" before).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { createLimiter } from '../../src/core';
import type { FixedWindowConfig } from '../../src/core';
import { ReplicaMultiples } from '../../src/viz/ReplicaMultiples';

afterEach(cleanup);

const config: FixedWindowConfig = { kind: 'fixed-window', limit: 4, windowMs: 1000 };

function storeAfter(n: number) {
  const limiter = createLimiter(config);
  for (let i = 0; i < n; i += 1) limiter.decide(10 * i, 'k');
  return {
    instance: null,
    inspection: limiter.inspect(100, 'k'),
    stateSize: limiter.stateSize(100, 'k'),
    keysHeld: 1,
  };
}

describe('ReplicaMultiples', () => {
  it("the store's cell shows its allowance while it is up", () => {
    render(<ReplicaMultiples cells={[]} store={storeAfter(1)} />);
    expect(screen.getByRole('img', { name: /^store:/ })).toHaveAccessibleName(
      'store: 75% of its allowance left, global limit',
    );
  });

  it('says DOWN, and no allowance, while the store is in an outage', () => {
    render(<ReplicaMultiples cells={[]} store={storeAfter(1)} storeDown />);
    const cell = screen.getByRole('img', { name: /^store:/ });
    expect(cell).toHaveAccessibleName('store: down, unreachable, global limit');
    expect(cell).toHaveTextContent('DOWN');
    expect(cell).not.toHaveTextContent('%');
  });
});
