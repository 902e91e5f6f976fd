// @vitest-environment jsdom
/**
 * What a streamed sweep's progress redraws (src/ui/traffic/TraceStreamed.tsx StreamedSweep, and
 * TraceSweep.tsx SweepGrid). Progress arrives ten times a second for minutes; each redraw of the
 * grid wrote out every cell's names again (hundreds of strings and handlers), and that garbage grew
 * the page's heap by tens of MB during a sweep of a large log, never given back. The grid is drawn
 * again only when cells arrive; the panel around it (the pass's progress) does not redraw it.
 * Cells are counted through `axisText`, which the grid calls for every cell's name.
 */
import { act, useState } from 'react';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { streamStore } from '../../src/store/streamLoad';
import type { StreamSweepState } from '../../src/store/streamLoad';
import type * as Trace from '../../src/trace';
import type { CellResult, KeySpec } from '../../src/trace';
import { StreamedSweep } from '../../src/ui/traffic/TraceStreamed';

const calls = vi.hoisted(() => ({ axisText: 0 }));

vi.mock('../../src/trace', async (importOriginal) => {
  const actual = await importOriginal<typeof Trace>();
  return {
    ...actual,
    axisText: (...args: Parameters<typeof actual.axisText>) => {
      calls.axisText += 1;
      return actual.axisText(...args);
    },
  };
});

afterEach(cleanup);
beforeEach(() => {
  calls.axisText = 0;
});

const file = new File(['x'], 'big.log');
const keySpec: KeySpec = [{ kind: 'client' }];
const cell: CellResult = {
  offered: 10,
  rejected: 1,
  delayed: 0,
  rejectedShare: 0.1,
  rejectedShareP99: 0.1,
  peakBackend: 3,
  p95DelayMs: 0,
};

/** A running sweep of the page's limiter over `file`, its first cell done. */
function runningSweep(config: AlgorithmConfig, n: number): StreamSweepState {
  const cells = new Array<CellResult | undefined>(n).fill(undefined);
  cells[0] = cell;
  return {
    asked: { file, keySpec, base: config, configs: [], windowMs: 1000, emptyOutcome: null },
    cells,
    errors: [],
    status: {
      kind: 'running',
      phase: 'cells',
      pass: 1,
      passes: 1,
      bytes: 10,
      total: 1000,
      requests: 100,
    },
  };
}

/** Renders the streamed sweep inside a parent that redraws on demand (as the pass's panel does). */
function setup() {
  const store = createPlaygroundStore();
  const config = store.getState().limiters[0]?.config as AlgorithmConfig;
  let redrawParent = (): void => undefined;
  function Panel() {
    const [tick, setTick] = useState(0);
    redrawParent = () => setTick((t) => t + 1);
    return (
      <div data-tick={tick}>
        <StreamedSweep file={file} keySpec={keySpec} />
      </div>
    );
  }
  act(() => streamStore().setState({ sweep: runningSweep(config, 400) }));
  render(
    <PlaygroundProvider store={store}>
      <Panel />
    </PlaygroundProvider>,
  );
  return { redrawParent: () => act(() => redrawParent()) };
}

/** A progress message of the running sweep: only its status changes. */
function progress(bytes: number): void {
  act(() => {
    const s = streamStore().getState().sweep as StreamSweepState;
    if (s.status.kind !== 'running') throw new Error('the sweep is not running');
    streamStore().setState({ sweep: { ...s, status: { ...s.status, bytes } } });
  });
}

describe('a streamed sweep’s progress', () => {
  it('redraws the status line, not the grid’s cells', () => {
    setup();
    const drawn = calls.axisText;
    // Every cell's name is written out when the grid is drawn.
    expect(drawn).toBeGreaterThan(400);
    calls.axisText = 0;
    progress(500);
    expect(screen.getByTestId('sweep-progress').textContent).toMatch(/\d/);
    expect(calls.axisText).toBe(0);
    // Cells that arrive are drawn.
    act(() => {
      const s = streamStore().getState().sweep as StreamSweepState;
      const cells = s.cells.slice();
      cells[1] = cell;
      streamStore().setState({ sweep: { ...s, cells } });
    });
    expect(calls.axisText).toBeGreaterThan(400);
  });

  it('is not redrawn when the panel around it redraws (the statistics pass’s progress)', () => {
    const { redrawParent } = setup();
    calls.axisText = 0;
    redrawParent();
    redrawParent();
    expect(calls.axisText).toBe(0);
  });
});
