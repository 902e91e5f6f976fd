// @vitest-environment jsdom
/**
 * The nginx `RateLimit-Policy` name is one truth: the name the Export panel's config makes nginx
 * send is the name the inspector shows for the same limiter, for an unnamed limiter and for two
 * limiters that share a name (whose lanes are told apart as "api" and "api #2").
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { LeakyBucketConfig } from '../../src/core';
import { createPlaygroundStore, defaultInputs, simulationOf } from '../../src/store';
import type { LimiterEntry, PlaygroundStoreApi } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ExportPanel, ImportPart } from '../../src/ui/export/ExportPanel';
import { Inspector } from '../../src/ui/inspector/Inspector';
import { stubResizeObserver } from './fixtures';

beforeAll(async () => {
  stubResizeObserver();
  await ImportPart.preload();
});
afterEach(cleanup);

const config: LeakyBucketConfig = {
  kind: 'leaky-bucket',
  rate: 1,
  rateUnit: 'r/s',
  burst: 0,
  delay: 0,
};

function storeWith(limiters: LimiterEntry[]): PlaygroundStoreApi {
  const inputs = defaultInputs();
  const store = createPlaygroundStore({
    ...inputs,
    limiters,
    scenario: { ...inputs.scenario, sources: [] },
    mode: limiters.length > 1 ? 'compare' : 'single',
  });
  act(() => store.getState().fire(2));
  return store;
}

/** The policy the export's `add_header RateLimit-Policy '…' always;` lines send. */
function exportedPolicies(store: PlaygroundStoreApi, lane: number): string[] {
  act(() => store.getState().setActiveLane(lane));
  const { unmount } = render(
    <PlaygroundProvider store={store}>
      <ExportPanel />
    </PlaygroundProvider>,
  );
  const text = screen.getByTestId('export-code').textContent ?? '';
  unmount();
  return [...text.matchAll(/add_header RateLimit-Policy '([^']*)' always;/g)].map(
    (m) => m[1] ?? '',
  );
}

/** The RateLimit-Policy value the inspector shows for request `row` of `lane`. */
function inspectedPolicy(store: PlaygroundStoreApi, lane: number, row: number): string {
  act(() => store.getState().select({ lane, row }));
  const sim = simulationOf(store.getState());
  if (!sim.ok) throw new Error('expected a valid run');
  const { unmount } = render(
    <PlaygroundProvider store={store}>
      <Inspector result={sim.result} />
    </PlaygroundProvider>,
  );
  const text = screen.getByTestId('http-response').textContent ?? '';
  unmount();
  const m = /RateLimit-Policy: ("[^"]*";q=\d+;w=\d+)/.exec(text);
  if (m === null) throw new Error(`no RateLimit-Policy in ${text}`);
  return m[1] ?? '';
}

describe('nginx RateLimit-Policy: the export and the inspector say the same name', () => {
  it('an unnamed limiter', () => {
    const store = storeWith([{ system: 'nginx', config, standardHeaders: true }]);
    const exported = exportedPolicies(store, 0);
    // Both add_header lines: the admitted location and the @ratelimited one.
    expect(exported).toHaveLength(2);
    for (const row of [0, 1]) {
      expect(inspectedPolicy(store, 0, row)).toBe(exported[0]);
      expect(inspectedPolicy(store, 0, row)).toBe(exported[1]);
    }
    expect(exported[0]).toBe('"ratelimit";q=1;w=1');
  });

  it('two limiters with the same name', () => {
    const store = storeWith([
      { system: 'nginx', name: 'api', config, standardHeaders: true },
      { system: 'nginx', name: 'api', config: { ...config, rate: 2 }, standardHeaders: true },
    ]);
    for (const lane of [0, 1]) {
      const exported = exportedPolicies(store, lane);
      expect(exported).toHaveLength(2);
      for (const row of [0, 1]) {
        expect(inspectedPolicy(store, lane, row), `lane ${lane} row ${row}`).toBe(exported[0]);
        expect(exported[1]).toBe(exported[0]);
      }
    }
    // Each limiter's config sends its own name; the lanes' "api #2" is the page's label only.
    expect(exportedPolicies(store, 1)[0]).toMatch(/^"api";q=/);
  });
});
