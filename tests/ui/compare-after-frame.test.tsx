// @vitest-environment jsdom
/**
 * The comparison takes a new result after the frame that draws it in the lanes (its
 * render and commit were part of an edit's input task), and a page opened with a result draws it
 * in the first render. The table is not even rendered again, unchanged, in the render that draws
 * the edit elsewhere (it was, at every edit, before it was memoised).
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubFrames } from './frames';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { ComparePanel } from '../../src/ui/compare/ComparePanel';
import type * as CompareTableModule from '../../src/viz/CompareTable';
import { run } from './sim-fixtures';

/** How often the table rendered: the real CompareTable, counted. */
const renders = vi.hoisted(() => ({ table: 0 }));
vi.mock('../../src/viz/CompareTable', async (importOriginal) => {
  const real = await importOriginal<typeof CompareTableModule>();
  return {
    ...real,
    CompareTable: (props: Parameters<typeof real.CompareTable>[0]) => {
      renders.table += 1;
      return real.CompareTable(props);
    },
  };
});

afterEach(cleanup);

const { runFrame } = stubFrames();

const fixed = (limit: number) => ({ kind: 'fixed-window', limit, windowMs: 1000 }) as const;
const log2 = { kind: 'sliding-log', limit: 2, windowMs: 1000 } as const;
// 900, 950, 1000 ms against a sliding log of 2 per second: a fixed window of 2 first decides
// differently at request #3 (a fresh window at 1000 ms), a fixed window of 1 at request #2.
const traffic = () => [{ kind: 'manual' as const, timesMs: [900, 950, 1000] }];

function heading(): string {
  return screen.getByTestId('divergence-sentence').textContent ?? '';
}

describe('ComparePanel', () => {
  it('draws its first result at once, and a new one only after the next frame', () => {
    const before = run([fixed(2), log2], traffic(), 2000);
    const after = run([fixed(1), log2], traffic(), 2000);
    const store = createPlaygroundStore();
    const { rerender } = render(
      <PlaygroundProvider store={store}>
        <ComparePanel result={before} />
      </PlaygroundProvider>,
    );
    const first = heading();
    expect(first).toContain('Request #3');
    const rendered = renders.table;
    rerender(
      <PlaygroundProvider store={store}>
        <ComparePanel result={after} />
      </PlaygroundProvider>,
    );
    // The render that draws the edit elsewhere leaves the table as it was, not rendered again.
    expect(heading()).toBe(first);
    expect(renders.table).toBe(rendered);
    runFrame();
    act(() => {
      vi.runAllTimers();
    });
    expect(heading()).toContain('Request #2');
    expect(renders.table).toBe(rendered + 1);
  });
});
