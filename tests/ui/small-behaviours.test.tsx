// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ClockBar } from '../../src/ui/clock/ClockBar';
import { LimiterPanel } from '../../src/ui/limiter/LimiterPanel';
import { TrafficPanel } from '../../src/ui/traffic/TrafficPanel';
import { startFrom } from '../../src/ui/share/session';
import { openLink } from '../../src/ui/share/openLink';
import { useShortcuts } from '../../src/ui/app/useShortcuts';
import { applyStart } from '../../src/ui/share/useUrlSync';
import { loadExperiments } from '../../src/config/experiments/registry';
import { stubResizeObserver } from './fixtures';

afterEach(cleanup);

// The experiment library is a chunk of its own; the page loads it before a start that names one.
beforeAll(() => loadExperiments());

beforeAll(stubResizeObserver);

function quietStore(): PlaygroundStoreApi {
  const inputs = defaultInputs();
  inputs.scenario = { ...inputs.scenario, sources: [] };
  return createPlaygroundStore(inputs);
}

function renderWith(store: PlaygroundStoreApi, ui: React.ReactNode) {
  return render(<PlaygroundProvider store={store}>{ui}</PlaygroundProvider>);
}

function Shortcuts() {
  useShortcuts(
    () => {},
    () => {},
  );
  return null;
}

describe('controls that can do nothing are disabled', () => {
  it('Back 100 ms and Back to start at t = 0, Forward at the end', async () => {
    const store = quietStore();
    renderWith(store, <ClockBar />);
    expect(screen.getByRole('button', { name: 'Back 100 ms' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Back to start' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Forward 100 ms' })).toBeEnabled();
    await userEvent.click(screen.getByRole('button', { name: 'Forward 100 ms' }));
    expect(screen.getByRole('button', { name: 'Back 100 ms' })).toBeEnabled();
    act(() => store.getState().seek(store.getState().untilMs));
    expect(screen.getByRole('button', { name: 'Forward 100 ms' })).toBeDisabled();
  });
});

describe('the b key', () => {
  it('fires the burst size the button shows', async () => {
    const store = quietStore();
    renderWith(
      store,
      <>
        <Shortcuts />
        <TrafficPanel />
      </>,
    );
    const size = screen.getByLabelText('burst size');
    await userEvent.clear(size);
    await userEvent.type(size, '30{Enter}');
    expect(screen.getByRole('button', { name: /^Fire 30 at once/ })).toBeInTheDocument();
    fireEvent.keyDown(document.body, { key: 'b' });
    const manual = store.getState().scenario.sources.find((s) => s.kind === 'manual');
    expect(manual?.kind === 'manual' ? manual.timesMs.length : 0).toBe(30);
  });
});

describe('reduced motion', () => {
  it('a link that would play opens paused when the person asked for less motion', () => {
    const start = startFrom('?v=1&l=nginx:rate=2r/s,burst=5', null, null, openLink);
    const moving = quietStore();
    applyStart(moving, start, false);
    expect(moving.getState().playing).toBe(true);
    const still = quietStore();
    applyStart(still, start, true);
    expect(still.getState().playing).toBe(false);
  });
});

describe('the limiter tab list', () => {
  it('holds only tabs; one remove button for the picked limiter sits outside it', async () => {
    const store = quietStore();
    act(() => store.getState().addLimiter('gcra'));
    renderWith(store, <LimiterPanel />);
    const list = screen.getByRole('tablist', { name: 'Limiters' });
    const children = Array.from(list.children);
    expect(children.map((c) => c.getAttribute('role'))).toEqual(['tab', 'tab']);
    expect(within(list).queryAllByRole('button')).toEqual([]);
    // Arrow keys move between tabs; only the selected one is in the tab order.
    const tabs = within(list).getAllByRole('tab');
    expect(tabs.map((t) => t.tabIndex)).toEqual([-1, 0]);
    fireEvent.keyDown(tabs[1]!, { key: 'ArrowLeft' });
    expect(store.getState().activeLane).toBe(0);
    await userEvent.click(screen.getByRole('button', { name: /^Remove limiter 1/ }));
    expect(store.getState().limiters).toHaveLength(1);
  });
});

describe('number fields give the range whatever is typed', () => {
  it('burst size: "abc" and 1.5 both name the accepted range', async () => {
    renderWith(quietStore(), <TrafficPanel />);
    const size = screen.getByLabelText('burst size');
    for (const [typed, got] of [
      ['abc', 'got "abc"'],
      ['1.5', 'got 1.5'],
    ] as const) {
      await userEvent.clear(size);
      await userEvent.type(size, typed);
      expect(screen.getByRole('alert')).toHaveTextContent(
        `burst size must be a whole number from 1 to 1,000, ${got}`,
      );
    }
  });
});

describe('a system limiter after an edit', () => {
  it('stays that system, with its added headers, while the algorithm is the same', () => {
    const store = quietStore();
    act(() => store.getState().setLimiterSystem(0, 'haproxy'));
    act(() => store.getState().setStandardHeaders(0, true));
    const before = store.getState().limiters[0]!;
    expect(before.system).toBe('haproxy');
    act(() =>
      store.getState().setLimiterConfig(0, { ...before.config, limit: 3 } as typeof before.config),
    );
    const after = store.getState().limiters[0];
    expect(after?.system).toBe('haproxy');
    expect(after?.standardHeaders).toBe(true);
    expect(after?.config).toMatchObject({ limit: 3, anchor: 'entry' });
    // Another algorithm is another limiter: the system and flag go.
    act(() =>
      store.getState().setLimiterConfig(0, { kind: 'fixed-window', limit: 2, windowMs: 1000 }),
    );
    expect(store.getState().limiters[0]).toEqual({
      config: { kind: 'fixed-window', limit: 2, windowMs: 1000 },
    });
  });
});

describe('a preset lane name after an edit', () => {
  it('is dropped, so the lane is called by its algorithm again', () => {
    const store = quietStore();
    act(() => store.getState().loadExperiment('page-load'));
    const before = store.getState().limiters[1]!;
    expect(before?.name).toBe('5-token bucket');
    // The same config again (an echo) keeps the name; a real edit drops it.
    act(() => store.getState().setLimiterConfig(1, before.config));
    expect(store.getState().limiters[1]?.name).toBe('5-token bucket');
    act(() =>
      store
        .getState()
        .setLimiterConfig(1, { ...before.config, maxTokens: 8 } as typeof before.config),
    );
    expect(store.getState().limiters[1]?.name).toBeUndefined();
    expect(store.getState().limiters[0]?.name).toBe('20-token bucket');
  });
});
