// @vitest-environment jsdom
/**
 * Traefik with a shared store whose Redis cannot be reached: rate_limiter.go's ServeHTTP (traefik
 * v3.7.9) answers the limiter's error with http.Error(rw, "Could not insert/update bucket", 500).
 * Traefik has no fail-open or fallback setting, so its lanes fail closed with that 500 whatever
 * the store's policy says, and the answer carries none of its 429's headers.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlaygroundStore, defaultInputs, simulationOf } from '../../src/store';
import type { PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { Inspector } from '../../src/ui/inspector/Inspector';
import { FleetPanel } from '../../src/ui/stage/FleetPanel';
import { WHY_DOWN_CLOSED, WHY_DOWN_OPEN, decisionAt } from '../../src/sim';
import type { SimResult, StoreModel } from '../../src/sim';
import {
  TRAEFIK_STORE_DOWN_BODY,
  traefikStoreDownResponse,
} from '../../src/systems/respond/traefik';
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

/**
 * Traefik 10/s, burst 5 (`system` null: the token bucket's default system, Envoy's), on 2 replicas
 * sharing a store, which is down from 1 s to 2 s.
 */
function storeWith(onDown: StoreModel['onDown'], system: 'traefik' | null = 'traefik') {
  const base = defaultInputs();
  return createPlaygroundStore({
    ...base,
    limiters: [
      {
        ...(system === null ? {} : { system }),
        config: {
          kind: 'token-bucket',
          maxTokens: 5,
          tokensPerFill: 10,
          fillIntervalMs: 1000,
          maxDelayMs: 50,
          ...(system === null ? {} : { idleResetS: 2 }),
        },
      },
    ],
    mode: 'single',
    scenario: {
      ...base.scenario,
      sources: [{ kind: 'manual', timesMs: [100, 1100, 1200, 2500] }],
      clients: { count: 1, keying: 'per-client', assign: 'round-robin' },
      deployment: {
        instances: 2,
        balancer: 'round-robin',
        state: 'shared-atomic',
        roundTripMs: 5,
        fleet: {
          store: {
            rttMs: 1,
            jitterMs: 0,
            outages: [{ fromMs: 1000, toMs: 2000 }],
            onDown,
            ...(onDown === 'closed' ? { downStatus: 429 as const } : {}),
          },
        },
      },
    },
    untilMs: 3000,
  });
}

function resultOf(store: PlaygroundStoreApi): SimResult {
  const o = simulationOf(store.getState());
  if (!o.ok) throw new Error(`the run failed: ${o.issues.map((i) => i.message).join('; ')}`);
  return o.result;
}

describe('Traefik when its Redis is down', () => {
  it('its answer is the 500 of http.Error: the two headers Go sets, the body with its newline', () => {
    const r = traefikStoreDownResponse();
    expect(r.statusLine).toBe('HTTP/1.1 500 Internal Server Error');
    expect(r.headers).toEqual([
      ['Content-Type', 'text/plain; charset=utf-8'],
      ['X-Content-Type-Options', 'nosniff'],
    ]);
    expect(TRAEFIK_STORE_DOWN_BODY).toBe('Could not insert/update bucket\n');
    expect(new TextEncoder().encode(TRAEFIK_STORE_DOWN_BODY).length).toBe(31);
    expect(r.sources.map((s) => s.file)).toContain('pkg/middlewares/ratelimiter/rate_limiter.go');
  });

  for (const onDown of ['open', 'local', 'closed'] as const) {
    it(`fails closed with the store's policy set to '${onDown}': Traefik has no such setting`, () => {
      const result = resultOf(storeWith(onDown));
      const lane = result.lanes[0];
      if (lane?.fleet === undefined) throw new Error('no fleet lane');
      // Rows 1 and 2 arrive during the outage; rows 0 and 3 meet the store.
      expect([1, 2].map((r) => decisionAt(result, 0, r).outcome)).toEqual(['reject', 'reject']);
      expect([1, 2].map((r) => lane.fleet?.why[r])).toEqual([WHY_DOWN_CLOSED, WHY_DOWN_CLOSED]);
      expect([0, 3].map((r) => decisionAt(result, 0, r).outcome)).toEqual(['admit', 'admit']);
    });
  }

  it('another system keeps the chosen policy (fail open passes)', () => {
    const result = resultOf(storeWith('open', null));
    expect(result.lanes[0]?.fleet?.why[1]).toBe(WHY_DOWN_OPEN);
    expect(decisionAt(result, 0, 1).outcome).toBe('admit');
  });

  it('the inspector shows the 500 without Retry-After or X-Retry-In, and says why', () => {
    // The store's own setting says 429: Traefik still sends its 500.
    const store = storeWith('closed');
    act(() => store.getState().select({ lane: 0, row: 1 }));
    render(
      <PlaygroundProvider store={store}>
        <Inspector result={resultOf(store)} />
      </PlaygroundProvider>,
    );
    const response = screen.getByTestId('http-response').textContent ?? '';
    expect(response).toBe(
      'HTTP/1.1 500 Internal Server Error\nContent-Type: text/plain; charset=utf-8\nX-Content-Type-Options: nosniff',
    );
    expect(screen.getByTestId('rule')).toHaveTextContent(
      'Redis unreachable → the script cannot run → Traefik answers 500',
    );
    expect(screen.getByTestId('inspector')).toHaveTextContent(
      /"Could not insert\/update bucket" and a newline \(31 bytes\)/,
    );
  });

  it('the fleet panel says Traefik fails closed with 500 while the store is down', () => {
    const store = storeWith('open');
    act(() => store.getState().seek(1500));
    render(
      <PlaygroundProvider store={store}>
        <FleetPanel result={resultOf(store)} />
      </PlaygroundProvider>,
    );
    expect(screen.getByTestId('fleet-summary')).toHaveTextContent(
      'DOWN until 2 s: fail closed (500, Traefik)',
    );
  });
});
