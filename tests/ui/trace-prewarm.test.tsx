// @vitest-environment jsdom
/**
 * The trace panel starts the parsing worker (which starts its range workers) once the page is
 * idle, not only when the chooser is pointed at: a log chosen at once or dropped on the page then
 * starts on loaded workers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, render } from '@testing-library/react';
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

describe('the trace panel at idle', () => {
  it('makes the parsing worker once the page is idle and tells it to start its range workers', () => {
    const idle: (() => void)[] = [];
    vi.stubGlobal('Worker', RecordingWorker);
    vi.stubGlobal('requestIdleCallback', (cb: () => void) => idle.push(cb));
    vi.stubGlobal('cancelIdleCallback', () => {});
    render(
      <PlaygroundProvider store={createPlaygroundStore(defaultInputs())}>
        <TracePanel />
      </PlaygroundProvider>,
    );
    // Nothing is made before the page is idle.
    expect(made).toEqual([]);
    expect(idle).toHaveLength(1);
    act(() => idle[0]?.());
    expect(made).toHaveLength(1);
    expect(made[0]?.url).toMatch(/trace\.worker\.ts/);
    expect(made[0]?.sent).toEqual([{ type: 'warm' }]);
  });
});
