// @vitest-environment jsdom
/**
 * The trace panel starts the parsing worker (which starts its range workers) when the person
 * shows they are about to read a log: the pointer on the panel, focus moving into it, or a file
 * dragged over the page. A page that never reads a log starts none, idle or not.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { createPlaygroundStore, defaultInputs } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { traceLoadStore } from '../../src/store/traceReact';
import { TracePanel } from '../../src/ui/traffic/TracePanel';

/** Workers made, with the messages each was sent (none runs: jsdom has no workers). */
const made: { url: string; sent: unknown[] }[] = [];
class RecordingWorker {
  onmessage: unknown = null;
  onerror: unknown = null;
  private readonly record: { url: string; sent: unknown[] };
  constructor(url: URL | string) {
    this.record = { url: String(url), sent: [] };
    made.push(this.record);
  }
  postMessage(msg: unknown): void {
    this.record.sent.push(msg);
  }
  terminate(): void {}
}

afterEach(() => {
  cleanup();
  traceLoadStore().getState().clear();
  vi.unstubAllGlobals();
  made.length = 0;
});

function renderPanel(): void {
  vi.stubGlobal('Worker', RecordingWorker);
  render(
    <PlaygroundProvider store={createPlaygroundStore(defaultInputs())}>
      <TracePanel />
    </PlaygroundProvider>,
  );
}

/** The one warm worker made, as its messages show. */
function expectOneWarmWorker(): void {
  expect(made).toHaveLength(1);
  expect(made[0]?.url).toMatch(/trace\.worker\.ts/);
  expect(made[0]?.sent).toEqual([{ type: 'warm' }]);
}

describe('the trace panel starts its workers ahead of a read', () => {
  it('starts none while the page is only open, idle or not', async () => {
    const idle: (() => void)[] = [];
    vi.stubGlobal('requestIdleCallback', (cb: () => void) => idle.push(cb));
    vi.stubGlobal('cancelIdleCallback', () => {});
    renderPanel();
    for (const cb of idle) act(() => cb());
    await act(() => new Promise((resolve) => setTimeout(resolve, 600)));
    expect(made).toEqual([]);
  });

  it('starts one when the pointer comes onto the panel', () => {
    renderPanel();
    fireEvent.pointerEnter(screen.getByRole('region', { name: 'Your traffic' }));
    expectOneWarmWorker();
    // Coming back before a read starts no second one.
    fireEvent.pointerEnter(screen.getByRole('region', { name: 'Your traffic' }));
    expect(made).toHaveLength(1);
  });

  it('starts one when focus moves into the panel (the keyboard way to the chooser)', () => {
    renderPanel();
    act(() => screen.getByTestId('trace-file').focus());
    expectOneWarmWorker();
  });

  it('starts one when a file is dragged over the page, and none for dragged text', () => {
    renderPanel();
    const drag = (types: string[]) => {
      const e = new Event('dragenter', { bubbles: true, cancelable: true });
      Object.defineProperty(e, 'dataTransfer', { value: { types } });
      act(() => {
        document.body.dispatchEvent(e);
      });
    };
    drag(['text/plain']);
    expect(made).toEqual([]);
    drag(['Files']);
    expectOneWarmWorker();
  });
});
