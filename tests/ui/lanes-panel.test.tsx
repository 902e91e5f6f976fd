// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlaygroundStore, defaultInputs, simulationOf } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { LanesPanel } from '../../src/ui/stage/LanesPanel';
import { preloadViews } from '../../src/ui/stage/views';
import { requestsCompleteFromMs, requestsNear } from '../../src/ui/stage/requests';
import { formatCount, formatDuration } from '../../src/viz/format';
import { run, stripCountsFromColumns } from './sim-fixtures';

afterEach(cleanup);

// The page fetches the views (chunks of their own) before its first render: so does this test.
beforeAll(() => preloadViews());

/** The IntersectionObservers the page made, so a test can move an element off or on screen. */
const observers: Array<{ callback: IntersectionObserverCallback; targets: Element[] }> = [];

function setOnScreen(target: Element, onScreen: boolean): void {
  for (const o of observers) {
    if (!o.targets.includes(target)) continue;
    const entry = { target, isIntersecting: onScreen } as IntersectionObserverEntry;
    act(() => o.callback([entry], {} as IntersectionObserver));
  }
}

beforeAll(() => {
  // jsdom measures nothing: every element is 600 px wide, and intersections come from the test.
  globalThis.ResizeObserver = class {
    constructor(private readonly callback: ResizeObserverCallback) {}
    observe(target: Element) {
      const entry = { target, contentRect: { width: 600 } } as ResizeObserverEntry;
      this.callback([entry], this);
    }
    unobserve() {}
    disconnect() {}
  };
  globalThis.IntersectionObserver = class {
    private readonly entry: { callback: IntersectionObserverCallback; targets: Element[] };
    constructor(callback: IntersectionObserverCallback) {
      this.entry = { callback, targets: [] };
      observers.push(this.entry);
    }
    observe(target: Element) {
      this.entry.targets.push(target);
    }
    unobserve() {}
    disconnect() {
      this.entry.targets = [];
    }
  } as unknown as typeof IntersectionObserver;
  if (typeof window.matchMedia !== 'function') {
    Object.defineProperty(window, 'matchMedia', {
      configurable: true,
      value: (query: string) => ({
        matches: false,
        media: query,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      }),
    });
  }
});

/** Two fixed windows (1 s and 3 s) side by side, 10 requests/s for 20 s. */
function compareStore(): PlaygroundStoreApi {
  const inputs = defaultInputs();
  inputs.limiters = [
    { config: { kind: 'fixed-window', limit: 5, windowMs: 1000 } },
    { config: { kind: 'fixed-window', limit: 5, windowMs: 3000 } },
  ];
  inputs.scenario = {
    ...inputs.scenario,
    sources: [{ kind: 'constant', ratePerSec: 10, startMs: 0, endMs: 20_000 }],
  };
  inputs.mode = 'compare';
  return createPlaygroundStore(inputs);
}

function renderLanes(store: PlaygroundStoreApi) {
  const sim = simulationOf(store.getState());
  if (!sim.ok) throw new Error('the test scenario must simulate');
  render(
    <PlaygroundProvider store={store}>
      <LanesPanel result={sim.result} />
    </PlaygroundProvider>,
  );
  const lanes = screen.getAllByRole('article');
  const resetText = (lane: number) =>
    within(lanes[lane] as HTMLElement).getByTestId('window-reset').textContent;
  return { lanes, resetText };
}

describe('LanesPanel while the clock plays', () => {
  it('lanes on screen draw every tick; one off screen waits, and catches up on pause', () => {
    const store = compareStore();
    act(() => store.getState().seek(1000));
    const { lanes, resetText } = renderLanes(store);
    expect(resetText(0)).toBe(`resets in ${formatDuration(1000)}`);
    expect(resetText(1)).toBe(`resets in ${formatDuration(2000)}`);

    setOnScreen(lanes[1] as HTMLElement, false);
    act(() => store.getState().play());
    act(() => store.getState().tick(50));
    act(() => store.getState().tick(50));
    expect(store.getState().tMs).toBe(1100);
    expect(resetText(0)).toBe(`resets in ${formatDuration(900)}`);
    // Off screen: still the frame from before it left.
    expect(resetText(1)).toBe(`resets in ${formatDuration(2000)}`);

    act(() => store.getState().pause());
    expect(resetText(1)).toBe(`resets in ${formatDuration(1900)}`);
  });

  it('a lane that comes back on screen draws the current time at once', () => {
    const store = compareStore();
    act(() => store.getState().seek(1000));
    const { lanes, resetText } = renderLanes(store);
    // Seen until the observer says otherwise; the lane says which, for a browser test to wait on.
    expect(lanes[1]).toHaveAttribute('data-on-screen', 'true');
    setOnScreen(lanes[1] as HTMLElement, false);
    expect(lanes[1]).toHaveAttribute('data-on-screen', 'false');
    expect(lanes[0]).toHaveAttribute('data-on-screen', 'true');
    act(() => store.getState().play());
    act(() => store.getState().tick(80));
    expect(resetText(1)).toBe(`resets in ${formatDuration(2000)}`);
    setOnScreen(lanes[1] as HTMLElement, true);
    expect(lanes[1]).toHaveAttribute('data-on-screen', 'true');
    expect(resetText(1)).toBe(`resets in ${formatDuration(1920)}`);
    act(() => store.getState().tick(80));
    expect(resetText(1)).toBe(`resets in ${formatDuration(1840)}`);
  });

  it('paused, an off-screen lane follows every seek', () => {
    const store = compareStore();
    const { lanes, resetText } = renderLanes(store);
    setOnScreen(lanes[1] as HTMLElement, false);
    act(() => store.getState().seek(2500));
    expect(resetText(1)).toBe(`resets in ${formatDuration(500)}`);
    act(() => store.getState().stepBy(100));
    expect(resetText(1)).toBe(`resets in ${formatDuration(400)}`);
  });
});

/** The six limiters of the frame bench's compare page, at `ratePerSec` for 20 s. */
function fastStore(ratePerSec: number, mode: 'compare' | 'single'): PlaygroundStoreApi {
  const inputs = defaultInputs();
  inputs.limiters = [
    { config: { kind: 'token-bucket', maxTokens: 100, tokensPerFill: 100, fillIntervalMs: 1000 } },
    { config: { kind: 'leaky-bucket', rate: 100, rateUnit: 'r/s', burst: 20, delay: 10 } },
    { config: { kind: 'fixed-window', limit: 100, windowMs: 1000 } },
    { config: { kind: 'sliding-log', limit: 100, windowMs: 1000 } },
    { config: { kind: 'sliding-window-counter', limit: 100, windowMs: 1000 } },
    { config: { kind: 'gcra', count: 100, periodMs: 1000, burst: 20 } },
  ];
  inputs.scenario = {
    ...inputs.scenario,
    sources: [{ kind: 'constant', ratePerSec, startMs: 0, endMs: 20_000 }],
  };
  inputs.untilMs = 20_000;
  inputs.mode = mode;
  return createPlaygroundStore(inputs);
}

describe('the request-flow strip at a high rate', () => {
  /** What each drawn strip says, and what the lane's columns say for the same moment. */
  function stripsAt(store: PlaygroundStoreApi, tMs: number) {
    act(() => store.getState().seek(tMs));
    const sim = simulationOf(store.getState());
    if (!sim.ok) throw new Error('the test scenario must simulate');
    renderLanes(store);
    return screen.getAllByTestId('request-flow').map((strip, k) => {
      const text = (key: string) => within(strip).queryByTestId(`flow-${key}`)?.textContent;
      const lane = store.getState().mode === 'compare' ? k : store.getState().activeLane;
      const expected = stripCountsFromColumns(sim.result, lane, tMs);
      return {
        shown: [text('passed'), text('waiting'), text('rejected'), text('incoming')],
        expected: [
          `${formatCount(expected.passed)} passed`,
          `${formatCount(expected.waiting)} waiting`,
          `${formatCount(expected.rejected)} rejected`,
          `${formatCount(expected.incoming)} on the way`,
        ],
        counts: expected,
      };
    });
  }

  it('six limiters at 1,000 r/s: every strip says what its lane’s columns say', () => {
    const strips = stripsAt(fastStore(1000, 'compare'), 10_333);
    expect(strips).toHaveLength(6);
    for (const { shown, expected, counts } of strips) {
      expect(shown).toEqual(expected);
      expect(counts.passed).toBeGreaterThan(0);
      expect(counts.rejected).toBeGreaterThan(0);
      // Each ms one request: 700 counted behind now (the delayed ones too), 400 ahead.
      expect(counts.incoming).toBe(400);
    }
  });

  it('at 1,000 r/s the views’ counts of cut requests are exact too, not lower bounds', () => {
    const store = fastStore(1000, 'compare');
    const tMs = 10_333;
    stripsAt(store, tMs);
    const sim = simulationOf(store.getState());
    if (!sim.ok) throw new Error('the scenario must simulate');
    /** Rows of `lane` by outcome code, arrival in [fromMs, toMs), straight from the columns. */
    const tally = (lane: number, fromMs: number, toMs: number) => {
      const c = sim.result.lanes[lane]?.columns;
      const n = [0, 0, 0];
      for (let r = 0; c !== undefined && r < c.rows; r += 1) {
        const a = c.arrivalMs[r] as number;
        if (a >= fromMs && a < toMs)
          n[c.outcome[r] as number] = (n[c.outcome[r] as number] ?? 0) + 1;
      }
      return n as [number, number, number];
    };
    const lanes = screen.getAllByRole('article');
    // Fixed window (lane 2): the window before now's holds rows the view was not handed.
    const labels = within(lanes[2] as HTMLElement)
      .getAllByTestId('window-label')
      .map((l) => l.textContent);
    expect(labels.join(' ')).not.toContain('≥');
    const [admitted, , rejected] = tally(2, 9000, 10_000);
    expect(labels).toContain(`${admitted}/100 · ✕${rejected}`);
    expect(rejected).toBeGreaterThan(384); // more than every row handed to the view
    // nginx (lane 1): rejected "just now", the last 400 ms.
    const [, , recent] = tally(1, tMs - 400 + 1, tMs + 1);
    expect(within(lanes[1] as HTMLElement).getByTestId('reject-label').textContent).toMatch(
      new RegExp(`^${recent} rejected`),
    );
  });

  it.each([1000, 5000])('one limiter at %i r/s (single mode)', (rate) => {
    const store = fastStore(rate, 'single');
    for (const lane of [1, 2]) {
      cleanup();
      act(() => store.getState().setActiveLane(lane));
      const [strip] = stripsAt(store, 12_345);
      expect(strip?.shown).toEqual(strip?.expected);
      expect(strip?.counts.passed).toBeGreaterThan(0);
      expect(strip?.counts.rejected).toBeGreaterThan(0);
    }
  });
});

describe('requestsNear', () => {
  const result = run(
    [{ kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 3, delay: 1 }],
    [{ kind: 'constant', ratePerSec: 20, startMs: 0, endMs: 10_000 }],
    10_000,
  );

  it('hands out the same object for a row still in range on the next frame', () => {
    const first = requestsNear(result, 0, 4000, 400);
    const next = requestsNear(result, 0, 4016, 400);
    const byId = new Map(first.map((r) => [r.id, r]));
    const shared = next.filter((r) => byId.has(r.id));
    expect(shared.length).toBeGreaterThan(80);
    for (const r of shared) expect(r).toBe(byId.get(r.id));
  });

  it('reused rows say what a fresh read of the same run says', () => {
    requestsNear(result, 0, 4000, 400);
    const reused = requestsNear(result, 0, 4500, 400);
    const fresh = run(
      [{ kind: 'leaky-bucket', rate: 5, rateUnit: 'r/s', burst: 3, delay: 1 }],
      [{ kind: 'constant', ratePerSec: 20, startMs: 0, endMs: 10_000 }],
      10_000,
    );
    expect(reused).toEqual(requestsNear(fresh, 0, 4500, 400));
    expect(new Set(reused.map((r) => r.outcome))).toEqual(new Set(['admit', 'delay', 'reject']));
  });
});

describe('requestsCompleteFromMs', () => {
  const result = run(
    [{ kind: 'fixed-window', limit: 10, windowMs: 1000 }],
    [{ kind: 'constant', ratePerSec: 100, startMs: 0, endMs: 10_000 }],
    10_000,
  );

  it('is the look-back start when every row fits, and just after the first row kept when not', () => {
    // Three windows back from 5 s: 2000 ms; at 100 r/s that is 340 rows with the 400 ms ahead.
    expect(requestsCompleteFromMs(result, 0, 5000, 400)).toBe(2000);
    const kept = requestsNear(result, 0, 5000, 400, 100);
    expect(kept).toHaveLength(100);
    const first = kept[0]?.arrivalMs ?? Number.NaN;
    expect(requestsCompleteFromMs(result, 0, 5000, 400, 100)).toBe(first + 1);
  });
});
