// @vitest-environment jsdom
/**
 * The streamed log's statistics pass follows the limiter (src/ui/traffic/TraceStreamed.tsx): its
 * effect watches the config and the system's empty-key rule, which change together when the System
 * is picked. One pick must start one pass, not one for each: a second start ends the first pass's
 * worker and makes another while the first's memory is not yet given back.
 */
import { act } from 'react';
import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { streamStore } from '../../src/store/streamLoad';
import type { StreamAsked } from '../../src/store/streamLoad';
import type { KeySpec } from '../../src/trace';
import { TraceStreamed } from '../../src/ui/traffic/TraceStreamed';

afterEach(cleanup);

const file = new File(['x'], 'big.log');
const keySpec: KeySpec = [{ kind: 'client' }];

describe('the streamed pass and the System', () => {
  it('starts one pass when the page opens the file and one for each System picked', () => {
    const asked: StreamAsked[] = [];
    const start = vi.fn((a: StreamAsked) => void asked.push(a));
    act(() => streamStore().setState({ start }));
    const store = createPlaygroundStore();
    render(
      <PlaygroundProvider store={store}>
        <TraceStreamed file={file} keySpec={keySpec} />
      </PlaygroundProvider>,
    );
    expect(start).toHaveBeenCalledTimes(1);
    // HAProxy leaves empty keys unlimited: the config and the empty-key rule both change.
    const before = asked[0] as StreamAsked;
    act(() => store.getState().setLimiterSystem(0, 'haproxy'));
    expect(start).toHaveBeenCalledTimes(2);
    const after = asked[1] as StreamAsked;
    expect(after.configs[0]).toEqual(store.getState().limiters[0]?.config);
    expect(after.configs[0]).not.toEqual(before.configs[0]);
    // Both of the effect's inputs changed in that one pick.
    expect(before.emptyOutcome).toBeNull();
    expect(after.emptyOutcome).toBe('admit');
    act(() => store.getState().setLimiterSystem(0, 'traefik'));
    expect(start).toHaveBeenCalledTimes(3);
  });
});
