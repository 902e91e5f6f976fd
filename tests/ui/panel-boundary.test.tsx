// @vitest-environment jsdom
import { Suspense, useEffect, useState } from 'react';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { guarded } from '../../src/ui/common/PanelBoundary';
import { lazyPart } from '../../src/ui/common/lazyPart';
import type { UnreadableKept } from '../../src/store/keptRecords';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';

// The kept traces' store, stood in for: a browser database holding one kept trace and records
// another version of the page wrote. As with the real database, the unreadable records are reported
// while the records are read, and the kept traces arrive later: here when the test opens `ready`,
// so what the test sees first does not depend on how fast a busy machine runs React's renders.
const store = vi.hoisted(() => ({
  unreadable: [] as UnreadableKept[],
  deleted: [] as unknown[][],
  ready: Promise.resolve(),
}));
vi.mock('../../src/store/traceKeep', () => ({
  listKept: (onUnreadable?: (u: UnreadableKept[]) => void) => {
    onUnreadable?.(store.unreadable);
    return store.ready.then(() => [
      { id: 1, name: 'good.compact.gz', bytes: 10, requests: 3, hash: '0123456789abcdef' },
    ]);
  },
  forgetAll: (keys: unknown[]) => {
    store.deleted.push(keys);
    store.unreadable = store.unreadable.filter((u) => !keys.includes(u.key));
    return Promise.resolve();
  },
  forget: () => Promise.resolve(),
  keep: () => Promise.resolve(),
  keptFile: () => Promise.reject(new Error('not here')),
  compactFile: () => Promise.reject(new Error('not here')),
}));
const { TraceKeep } = await import('../../src/ui/traffic/TraceKeep');

afterEach(cleanup);
// React reports each error a boundary caught on the console; the tests read the page instead.
beforeEach(() => {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  return () => vi.restoreAllMocks();
});

function Broken(): never {
  throw new TypeError("Cannot read properties of undefined (reading 'toLocaleString')\u202E");
}

function Counter() {
  const [n, setN] = useState(0);
  return (
    <button type="button" onClick={() => setN(n + 1)}>
      clicked {n}
    </button>
  );
}

describe('a panel that throws', () => {
  it('is replaced by a message naming it and what failed; the panels beside it keep working', () => {
    const Failing = guarded(Broken, 'limiter settings');
    const Working = guarded(Counter, 'traffic settings');
    render(
      <>
        <Failing />
        <Working />
      </>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent(
      'The limiter settings stopped working: "TypeError: Cannot read properties of undefined (reading \'toLocaleString\')\\u202E". Reload the page to try it again.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'clicked 0' }));
    expect(screen.getByRole('button', { name: 'clicked 1' })).toBeInTheDocument();
  });

  it('in an effect is caught the same way', () => {
    function BreaksInEffect() {
      useEffect(() => {
        throw new Error('late');
      }, []);
      return <p>drawn</p>;
    }
    const Failing = guarded(BreaksInEffect, 'timeline');
    render(<Failing />);
    expect(screen.getByRole('alert')).toHaveTextContent(
      'The timeline stopped working: "Error: late".',
    );
    expect(screen.queryByText('drawn')).toBeNull();
  });

  it('as a lazily loaded part is caught inside it, named as the part', async () => {
    const Part = lazyPart(() => Promise.resolve(Broken), 'charts');
    render(
      <>
        <Suspense fallback={<p>waiting</p>}>
          <Part />
        </Suspense>
        <Counter />
      </>,
    );
    expect(await screen.findByRole('alert')).toHaveTextContent(/^The charts stopped working: /);
    expect(screen.getByRole('button', { name: 'clicked 0' })).toBeInTheDocument();
  });
});

describe('kept traces that are not traces', () => {
  it('are listed with what is wrong, and can be deleted one by one or all at once', async () => {
    store.deleted = [];
    let answer = () => {};
    store.ready = new Promise((resolve) => (answer = resolve));
    store.unreadable = Array.from({ length: 12 }, (_, i) => ({
      key: i + 10,
      label: i === 0 ? '"evil\\u202Etxt"' : `record "${i + 10}"`,
      why: 'requests is missing',
    }));
    render(
      <PlaygroundProvider store={createPlaygroundStore(defaultInputs())}>
        <TraceKeep />
      </PlaygroundProvider>,
    );
    const list = await screen.findByRole('region', { name: 'Unreadable kept records' });
    expect(list).toHaveTextContent(
      '12 records kept in this browser are not traces this page can open',
    );
    // Ten are listed, the rest counted.
    expect(list.querySelectorAll('li')).toHaveLength(10);
    expect(list).toHaveTextContent('"evil\\u202Etxt": requests is missing.');
    expect(list).toHaveTextContent('and 2 more.');
    // The good trace is still listed and can be opened, once the database has answered (waited for:
    // its render comes in a task of its own, later on a busy machine).
    expect(screen.queryByRole('button', { name: 'Open "good.compact.gz"' })).toBeNull();
    answer();
    expect(
      await screen.findByRole('button', { name: 'Open "good.compact.gz"' }),
    ).toBeInTheDocument();

    act(() => {
      fireEvent.click(screen.getByRole('button', { name: 'Delete "evil\\u202Etxt"' }));
    });
    expect(store.deleted).toEqual([[10]]);
    await waitFor(() => expect(list).toHaveTextContent('11 records kept'));

    act(() => {
      fireEvent.click(screen.getByRole('button', { name: 'Delete all 11 unreadable records' }));
    });
    expect(store.deleted[1]).toHaveLength(11);
    await waitFor(() =>
      expect(screen.queryByRole('region', { name: 'Unreadable kept records' })).toBeNull(),
    );
  });
});
