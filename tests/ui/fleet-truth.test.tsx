// @vitest-environment jsdom
/**
 * One truth per number in a fleet: the inspector says the rule that really decided a row (the
 * store's failure policy, a replica's fallback, the store, a replica's batched copy) with that
 * moment's numbers, and the fleet panel's figures next to the playhead are the playhead's.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXPERIMENTS } from '../../src/config/experiments';
import type { Experiment } from '../../src/config/experiments';
import { createPlaygroundStore, simulationOf } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { Inspector } from '../../src/ui/inspector/Inspector';
import { FleetPanel } from '../../src/ui/stage/FleetPanel';
import { WHY_DOWN_CLOSED, WHY_DOWN_LOCAL, WHY_DOWN_OPEN, rowRange } from '../../src/sim';
import type { SimResult } from '../../src/sim';
import { stubResizeObserver } from './fixtures';

afterEach(cleanup);

beforeAll(() => {
  stubResizeObserver();
  globalThis.IntersectionObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
    takeRecords() {
      return [];
    }
  } as unknown as typeof IntersectionObserver;
});

const experiment = (id: string): Experiment => {
  const e = EXPERIMENTS.find((x) => x.id === id);
  if (e === undefined) throw new Error(id);
  return e;
};

function storeOf(e: Experiment, variant: number): PlaygroundStoreApi {
  const inputs = e.variants?.[variant]?.inputs ?? e.inputs;
  return createPlaygroundStore(structuredClone(inputs));
}

function resultOf(store: PlaygroundStoreApi): SimResult {
  const o = simulationOf(store.getState());
  if (!o.ok) throw new Error('the run failed');
  return o.result;
}

/** The first row at or after `fromMs` whose why code is `why`. */
function rowAt(result: SimResult, fromMs: number, why: number): number {
  const lane = result.lanes[0];
  const c = lane?.columns;
  if (c === undefined || lane?.fleet === undefined) throw new Error('no fleet lane');
  const [start, end] = rowRange(c, fromMs, Number.POSITIVE_INFINITY);
  for (let r = start; r < end; r += 1) if (lane.fleet.why[r] === why) return r;
  throw new Error(`no row with why ${why} from ${fromMs} ms`);
}

function inspect(store: PlaygroundStoreApi, row: number) {
  act(() => store.getState().select({ lane: 0, row }));
  const result = resultOf(store);
  render(
    <PlaygroundProvider store={store}>
      <Inspector result={result} />
    </PlaygroundProvider>,
  );
  return {
    rule: screen.getByTestId('rule').textContent ?? '',
    steps: screen
      .getByTestId('inspector')
      .querySelector('.inspector-rule ul')
      ?.textContent?.toString(),
  };
}

describe('the inspector of a fleet decision: "The store is down"', () => {
  const e = experiment('fleet-store-down');

  it('fail closed: the policy rejected it, no limiter count; the store is back when it is', () => {
    const store = storeOf(e, 0);
    const row = rowAt(resultOf(store), 8500, WHY_DOWN_CLOSED);
    const at = resultOf(store).lanes[0]?.columns.arrivalMs[row] as number;
    const { rule, steps } = inspect(store, row);
    expect(rule).toBe('store unreachable → fail closed → reject with 429');
    expect(rule).not.toMatch(/count \d+ < limit/);
    expect(steps).toContain('the store is down from 8 s to 14 s');
    // The store is back at 14 s: the wait said is the one from this request's time.
    expect(steps).toContain(`back in ${((14_000 - at) / 1000).toString()} s`);
    expect(steps).not.toContain('in 1000 ms');
  });

  it('fail open: every request passes, nothing "more fits"', () => {
    const store = storeOf(e, 1);
    const row = rowAt(resultOf(store), 8500, WHY_DOWN_OPEN);
    const { rule, steps } = inspect(store, row);
    expect(rule).toBe('store unreachable → fail open → admit');
    expect(steps).not.toMatch(/more fit/);
    expect(steps).toContain('no limit is checked');
  });

  it("local fallback: the replica's own limit of 100 ÷ 4 decided, with its own count", () => {
    const store = storeOf(e, 2);
    const row = rowAt(resultOf(store), 8500, WHY_DOWN_LOCAL);
    const { rule, steps } = inspect(store, row);
    expect(rule).toMatch(/^count \d+ [<≥] limit 25 → (admit|reject)$/);
    expect(steps).toContain('fallback limit (the global limit ÷ 4) decided');
  });

  it('up again: the store decided, with its round trip', () => {
    const store = storeOf(e, 0);
    const row = rowAt(resultOf(store), 15_000, 1);
    const { rule, steps } = inspect(store, row);
    expect(rule).toMatch(/limit 100 →/);
    expect(steps).toMatch(/the shared store decided \(round trip \d+ ms\)/);
  });
});

describe('the fleet panel: figures next to the playhead are at the playhead', () => {
  it('"Scaling out": the busiest replica\'s share is of the last second, the table says whole run', () => {
    const e = experiment('fleet-scale-out');
    const store = storeOf(e, 0);
    const result = resultOf(store);
    const lane = result.lanes[0];
    if (lane?.fleet === undefined) throw new Error('no fleet');
    // A moment after the scale-out: the whole run's shares differ from the last second's.
    const tMs = Math.min(result.untilMs - 1, lane.fleet.replicas.at(-1)?.atMs ?? 0) + 1500;
    act(() => store.getState().seek(tMs));
    render(
      <PlaygroundProvider store={store}>
        <FleetPanel result={result} />
      </PlaygroundProvider>,
    );
    const allows = screen.getByTestId('fleet-allows').textContent ?? '';
    // The share said is the last second's, computed here from the rows.
    const c = lane.columns;
    const [a, b] = rowRange(c, tMs - 999, tMs + 1);
    const per = new Map<number, number>();
    for (let r = a; r < b; r += 1)
      per.set(c.instance[r] as number, (per.get(c.instance[r] as number) ?? 0) + 1);
    const top = Math.max(...per.values());
    const share = top / (b - a);
    const said = Number(/took ([\d.]+)% of the/.exec(allows)?.[1]);
    expect(said).toBeCloseTo(100 * share, share < 0.1 ? 1 : 0);
    expect(allows).toMatch(/^.*In the 1 s up to [\d.]+ s the busiest replica/);
    // Whole-run figures say so.
    const panel = screen.getByTestId('fleet-panel');
    expect(panel.querySelector('caption')?.textContent).toMatch(/^Over the whole run/);
    expect(screen.getByTestId('fleet-metrics')).toHaveTextContent(
      'admitted beyond the global limit (whole run)',
    );
  });
});
