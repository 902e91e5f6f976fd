// @vitest-environment jsdom
/**
 * The timeline takes a new result in the frame after the one where the lanes draw it (its render, commit and layout were part of an edit's input task), and a page opened with a
 * result draws it in the first render.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stubFrames } from './frames';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { TimelinePanel } from '../../src/ui/clock/TimelinePanel';
import { run } from './sim-fixtures';

afterEach(cleanup);

beforeAll(() => {
  // jsdom measures nothing: the panel is 600 px wide.
  globalThis.ResizeObserver = class {
    constructor(private readonly callback: ResizeObserverCallback) {}
    observe(target: Element) {
      this.callback([{ target, contentRect: { width: 600 } } as ResizeObserverEntry], this);
    }
    unobserve() {}
    disconnect() {}
  };
});

const { runFrame } = stubFrames();

const fixed = (limit: number) => ({ kind: 'fixed-window', limit, windowMs: 1000 }) as const;
const traffic = () => [{ kind: 'manual' as const, timesMs: [100, 200, 300, 400] }];

/** The lane's counts as the timeline prints them (admitted, delayed, rejected). */
function counts(): string {
  return [...screen.getByTestId('timeline-counts').querySelectorAll('[data-outcome]')]
    .map((g) => `${g.getAttribute('data-outcome')} ${g.textContent}`)
    .join(', ');
}

describe('TimelinePanel', () => {
  it('draws its first result at once, and a new one only after the next frame', () => {
    const before = run([fixed(3)], traffic(), 1000);
    const after = run([fixed(1)], traffic(), 1000);
    const store = createPlaygroundStore();
    const { rerender } = render(
      <PlaygroundProvider store={store}>
        <TimelinePanel result={before} />
      </PlaygroundProvider>,
    );
    const first = counts();
    expect(first).toContain('reject 1');
    rerender(
      <PlaygroundProvider store={store}>
        <TimelinePanel result={after} />
      </PlaygroundProvider>,
    );
    expect(counts()).toBe(first);
    runFrame();
    act(() => {
      vi.runAllTimers();
    });
    expect(counts()).toContain('reject 3');
  });
});
