// @vitest-environment jsdom
import { act, cleanup, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ClockBar } from '../../src/ui/clock/ClockBar';
import { Inspector } from '../../src/ui/inspector/Inspector';
import { LimiterPanel } from '../../src/ui/limiter/LimiterPanel';
import { TrafficPanel } from '../../src/ui/traffic/TrafficPanel';
import { simulationOf } from '../../src/store';
import { stubResizeObserver } from './fixtures';

afterEach(cleanup);

beforeAll(() => {
  // jsdom has no ResizeObserver or matchMedia; the panels tested here do not measure, but imports may.
  stubResizeObserver();
});

function quietStore(): PlaygroundStoreApi {
  const inputs = defaultInputs();
  inputs.scenario = { ...inputs.scenario, sources: [] };
  return createPlaygroundStore(inputs);
}

function renderWith(store: PlaygroundStoreApi, ui: React.ReactNode) {
  return render(<PlaygroundProvider store={store}>{ui}</PlaygroundProvider>);
}

describe('ClockBar', () => {
  it('plays, pauses, steps and changes speed through the store', async () => {
    const store = quietStore();
    renderWith(store, <ClockBar />);
    await userEvent.click(screen.getByRole('button', { name: /Play/ }));
    expect(store.getState().playing).toBe(true);
    await userEvent.click(screen.getByRole('button', { name: /Pause/ }));
    expect(store.getState().playing).toBe(false);
    await userEvent.click(screen.getByRole('button', { name: 'Forward 100 ms' }));
    await userEvent.click(screen.getByRole('button', { name: 'Forward 100 ms' }));
    expect(store.getState().tMs).toBe(200);
    await userEvent.click(screen.getByRole('button', { name: 'Back 100 ms' }));
    expect(store.getState().tMs).toBe(100);
    await userEvent.selectOptions(screen.getByLabelText('Speed'), '10');
    expect(store.getState().speed).toBe(10);
    expect(screen.getByLabelText('Virtual time')).toHaveTextContent('t = 100 ms');
  });

  it('never jumps after a background tab: one tick advances at most 100 ms × speed', () => {
    const store = quietStore();
    store.getState().play();
    store.getState().tick(60_000);
    expect(store.getState().tMs).toBe(100);
  });

  it('steps to the next event', async () => {
    const store = quietStore();
    act(() => {
      store.getState().seek(1234);
      store.getState().fire(1);
      store.getState().seek(0);
    });
    renderWith(store, <ClockBar />);
    await userEvent.click(screen.getByRole('button', { name: /Next event/ }));
    expect(store.getState().tMs).toBe(1234);
  });
});

describe('TrafficPanel', () => {
  it('fires one request and a burst at the current time', async () => {
    const store = quietStore();
    act(() => store.getState().seek(500));
    renderWith(store, <TrafficPanel />);
    await userEvent.click(screen.getByRole('button', { name: /Fire request/ }));
    await userEvent.click(screen.getByRole('button', { name: /^Fire 10 at once/ }));
    const manual = store.getState().scenario.sources.find((s) => s.kind === 'manual');
    expect(manual).toEqual({ kind: 'manual', timesMs: Array(11).fill(500) });
    // The last request fired is selected, so the inspector shows what happened to it.
    expect(store.getState().selected).toEqual({ lane: 0, row: 10 });
  });

  it('starts and stops a stream at a rate', async () => {
    const store = quietStore();
    renderWith(store, <TrafficPanel />);
    await userEvent.click(screen.getByRole('button', { name: /Start stream/ }));
    act(() => store.getState().seek(3000));
    await userEvent.click(screen.getByRole('button', { name: /Stop stream/ }));
    expect(store.getState().scenario.sources).toEqual([
      { kind: 'constant', ratePerSec: 20, startMs: 0, endMs: 3001 },
    ]);
  });

  it('keeps an invalid source field on screen with the simulator’s message, and never applies it', async () => {
    const store = createPlaygroundStore(defaultInputs());
    renderWith(store, <TrafficPanel />);
    const before = store.getState().scenario;
    const summary = screen.getByText('Poisson (random arrivals)', { selector: '.source-kind' });
    const poisson = summary.closest('details') as HTMLElement;
    await userEvent.click(summary);
    const rate = within(poisson).getByLabelText('rate');
    await userEvent.clear(rate);
    await userEvent.type(rate, '-5');
    expect(within(poisson).getByRole('alert')).toHaveTextContent('sources[0].ratePerSec');
    expect(store.getState().scenario).toBe(before);
  });
});

describe('LimiterPanel', () => {
  it('switches system and adds a second limiter to compare', async () => {
    const store = quietStore();
    renderWith(store, <LimiterPanel />);
    await userEvent.selectOptions(screen.getByLabelText('System'), 'redis-cell');
    expect(store.getState().limiters[0]?.config.kind).toBe('gcra');
    await userEvent.selectOptions(screen.getByLabelText('Compare with'), 'redis-fixed-window');
    expect(store.getState().limiters.map((l) => l.config.kind)).toEqual(['gcra', 'fixed-window']);
    expect(store.getState().mode).toBe('compare');
    expect(screen.getByRole('tab', { name: '2. Redis fixed window' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
  });

  it("lists where the picked system's model differs from the real one when asked", async () => {
    const store = quietStore();
    renderWith(store, <LimiterPanel />);
    await userEvent.selectOptions(screen.getByLabelText('System'), 'haproxy');
    expect(screen.queryByTestId('system-differences')).toBeNull();
    await userEvent.click(screen.getByText(/Where this model differs from the real HAProxy/));
    const list = await screen.findByTestId('system-differences');
    expect(within(list).getAllByRole('listitem').length).toBeGreaterThan(3);
    expect(list).toHaveTextContent('nbthread 1');
  });
});

describe('Inspector', () => {
  it('shows the rule, the numbers and the response of the selected request', () => {
    const store = quietStore();
    act(() => {
      store.getState().setLimiterConfig(0, { kind: 'fixed-window', limit: 2, windowMs: 1000 });
      store.getState().fire(3);
      store.getState().select({ lane: 0, row: 2 });
    });
    const sim = simulationOf(store.getState());
    if (!sim.ok) throw new Error('expected a valid run');
    renderWith(store, <Inspector result={sim.result} />);
    expect(screen.getByTestId('rule')).toHaveTextContent('count 2 ≥ limit 2 → reject');
    const response = screen.getByTestId('http-response');
    expect(response).toHaveTextContent('HTTP/1.1 429 Too Many Requests');
    // A Redis counter sends nothing by itself: the headers are the application's, added on request.
    expect(response).not.toHaveTextContent('Retry-After');
    act(() => store.getState().setStandardHeaders(0, true));
    expect(response).toHaveTextContent('Retry-After: 1 ← added');
    expect(response.querySelectorAll('[data-added="true"]').length).toBe(6);
  });

  it('shows what nginx sends: 503 and no rate-limit headers', () => {
    const store = quietStore();
    act(() => {
      store.getState().setLimiterSystem(0, 'nginx');
      store.getState().setLimiterConfig(0, {
        kind: 'leaky-bucket',
        rate: 1,
        rateUnit: 'r/s',
        burst: 0,
        delay: 0,
      });
      store.getState().fire(2);
      store.getState().select({ lane: 0, row: 1 });
    });
    const sim = simulationOf(store.getState());
    if (!sim.ok) throw new Error('expected a valid run');
    renderWith(store, <Inspector result={sim.result} />);
    const response = screen.getByTestId('http-response');
    expect(response).toHaveTextContent('HTTP/1.1 503 Service Temporarily Unavailable');
    expect(response).toHaveTextContent('Content-Length: 197');
    expect(response).not.toHaveTextContent(/Retry-After|RateLimit/i);
    expect(screen.getByText(/ngx_http_limit_req_module\.c/)).toBeInTheDocument();
  });

  it('numbers a retry by its request and attempt, as the comparison and the log do', () => {
    const store = quietStore();
    act(() => {
      const s = store.getState();
      s.setLimiterConfig(0, { kind: 'fixed-window', limit: 1, windowMs: 1000 });
      s.setScenario({
        ...s.scenario,
        retry: { ...s.scenario.retry, onReject: 'retry-after', maxAttempts: 2 },
      });
      store.getState().fire(2);
    });
    const sim = simulationOf(store.getState());
    if (!sim.ok) throw new Error('expected a valid run');
    // Rows: request 1 (admit), request 2 (reject), request 2's retry after Retry-After: 1 s.
    act(() => store.getState().select({ lane: 0, row: 2 }));
    renderWith(store, <Inspector result={sim.result} />);
    expect(screen.getByRole('heading', { level: 2 })).toHaveTextContent('Request #2, attempt 2');
    expect(screen.getByTestId('rule')).toHaveTextContent('count 0 < limit 1 → admit');
  });
});
