// @vitest-environment jsdom
import { Suspense } from 'react';
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyPart } from '../../src/ui/common/lazyPart';
import { startNeeds } from '../../src/ui/share/session';
import { experimentById, loadExperiments } from '../../src/config/experiments/registry';

afterEach(cleanup);

function Hello({ name }: { name: string }) {
  return <p>Hello {name}</p>;
}

describe('lazyPart', () => {
  it('suspends until its chunk arrives, then draws it', async () => {
    let arrive: (c: typeof Hello) => void = () => {};
    const Part = lazyPart(() => new Promise<typeof Hello>((r) => (arrive = r)), 'greeting');
    render(
      <Suspense fallback={<p>waiting</p>}>
        <Part name="Ada" />
      </Suspense>,
    );
    expect(screen.getByText('waiting')).toBeInTheDocument();
    await act(() => Promise.resolve().then(() => arrive(Hello)));
    expect(screen.getByText('Hello Ada')).toBeInTheDocument();
    expect(screen.queryByText('waiting')).toBeNull();
  });

  it('once preloaded, draws in the first render without its placeholder', async () => {
    let fetches = 0;
    const Part = lazyPart(() => {
      fetches += 1;
      return Promise.resolve(Hello);
    }, 'greeting');
    await Part.preload();
    await Part.preload();
    render(
      <Suspense fallback={<p>waiting</p>}>
        <Part name="Grace" />
      </Suspense>,
    );
    // Synchronously after render: no fallback was ever committed.
    expect(screen.getByText('Hello Grace')).toBeInTheDocument();
    expect(screen.queryByText('waiting')).toBeNull();
    expect(fetches).toBe(1);
  });

  it('says what could not be loaded when the fetch fails, instead of throwing', async () => {
    const Part = lazyPart<{ name: string }>(() => Promise.reject(new Error('offline')), 'greeting');
    await Part.preload();
    render(<Part name="x" />);
    expect(screen.getByRole('alert')).toHaveTextContent('The greeting could not be loaded');
  });
});

describe('the experiment library as a chunk of its own', () => {
  it('knows a start needs it only when the link or the saved settings name an experiment', () => {
    const saved = (text: string | null) => ({ getItem: () => text }) as unknown as Storage;
    expect(startNeeds('?x=nginx-burst&paused', null).experiments).toBe(true);
    expect(startNeeds('?v=1&paused', saved('{"experiment":{"id":"a"}}')).experiments).toBe(false);
    expect(
      startNeeds('', saved('{"config":{},"experiment":{"id":"a","variant":null}}')).experiments,
    ).toBe(true);
    expect(startNeeds('?embed', saved('{"config":{},"experiment":null}')).experiments).toBe(false);
    expect(startNeeds('', null).experiments).toBe(false);
  });

  it('answers lookups once loaded', async () => {
    await loadExperiments();
    expect(experimentById('nginx-burst')?.id).toBe('nginx-burst');
    expect(experimentById('no-such-experiment')).toBeUndefined();
  });
});
