// @vitest-environment jsdom
/**
 * What a limiter edit renders (its input task rendered about a hundred components, a third
 * of them controls that had not changed). Parts that do not draw from the limiters stay as they are.
 */
import { Profiler, act } from 'react';
import type { ReactNode } from 'react';
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ExperimentsMenu } from '../../src/ui/experiments/ExperimentsMenu';
import { LimiterPanel } from '../../src/ui/limiter/LimiterPanel';
import {
  ClientsSection,
  ClockSection,
  DeploymentSection,
  RetrySection,
  RunSection,
} from '../../src/ui/traffic/ScenarioSections';

afterEach(cleanup);

async function setup() {
  const store = createPlaygroundStore();
  const commits = new Map<string, number>();
  const part = (id: string, node: ReactNode) => (
    <Profiler id={id} onRender={() => commits.set(id, (commits.get(id) ?? 0) + 1)}>
      {node}
    </Profiler>
  );
  render(
    <PlaygroundProvider store={store}>
      {part('clients', <ClientsSection />)}
      {part('retry', <RetrySection />)}
      {part('clock', <ClockSection />)}
      {part('run', <RunSection />)}
      {part('deployment', <DeploymentSection />)}
      {part('experiments', <ExperimentsMenu />)}
      {part('limiter', <LimiterPanel />)}
    </PlaygroundProvider>,
  );
  // The lazy parts (fleet controls, the experiments) arrive first.
  await act(() => new Promise((resolve) => setTimeout(resolve, 100)));
  commits.clear();
  return { store, commits };
}

function editMaxTokens(store: ReturnType<typeof createPlaygroundStore>, maxTokens: number) {
  const config = store.getState().limiters[0]?.config;
  if (config?.kind !== 'token-bucket') throw new Error('the default limiter is a token bucket');
  act(() => store.getState().setLimiterConfig(0, { ...config, maxTokens }));
}

describe('a limiter edit', () => {
  it('renders the limiter panel and the fleet checks, not the other scenario sections or the experiments list', async () => {
    const { store, commits } = await setup();
    editMaxTokens(store, 7);
    expect(commits.get('limiter')).toBeGreaterThan(0);
    // The fleet settings check themselves against the limiters.
    expect(commits.get('deployment')).toBeGreaterThan(0);
    for (const id of ['clients', 'retry', 'clock', 'run', 'experiments']) {
      expect(commits.get(id), id).toBeUndefined();
    }
  });

  it('still renders every section when the scenario changes', async () => {
    const { store, commits } = await setup();
    act(() => {
      const s = store.getState();
      s.setScenario({ ...s.scenario, seed: s.scenario.seed + 1 });
    });
    for (const id of ['clients', 'retry', 'clock', 'run', 'deployment']) {
      expect(commits.get(id), id).toBeGreaterThan(0);
    }
  });
});
