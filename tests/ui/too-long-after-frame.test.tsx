// @vitest-environment jsdom
/**
 * "Too long for a link": the whole config is encoded to check its length after the frame
 * that draws an edit, not in the edit's own task; once for edits that come faster than frames.
 */
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubFrames } from './frames';
import { createPlaygroundStore } from '../../src/store';
import { PlaygroundProvider } from '../../src/store/react';
import { TooLongForLink } from '../../src/ui/share/TooLongForLink';

const { runFrame, queued } = stubFrames();
afterEach(cleanup);

/** Manual request times that do not compress: far too many for a link. */
function manyTimes(n: number): number[] {
  let x = 12345;
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) {
    x = (x * 1103515245 + 12345) % 2147483648;
    times.push(x % 3_600_000);
  }
  return times;
}

describe('TooLongForLink', () => {
  it('says so after the frame that draws the edit, checked once for several edits', async () => {
    const store = createPlaygroundStore();
    render(
      <PlaygroundProvider store={store}>
        <TooLongForLink />
      </PlaygroundProvider>,
    );
    expect(screen.queryByTestId('too-long-for-link')).toBeNull();
    const long = { kind: 'manual' as const, timesMs: manyTimes(10_000) };
    act(() => {
      const s = store.getState();
      s.setScenario({ ...s.scenario, sources: [long] });
      s.setUntil(3_600_000);
    });
    // Not in the edit's own task, nor before the frame.
    act(() => {
      vi.runAllTimers();
    });
    expect(screen.queryByTestId('too-long-for-link')).toBeNull();
    expect(queued()).toBe(1);
    act(() => {
      const s = store.getState();
      s.setScenario({ ...s.scenario, sources: [{ ...long, timesMs: long.timesMs.slice(1) }] });
    });
    // One check waits for the frame, whatever came meanwhile.
    expect(queued()).toBe(1);
    runFrame();
    act(() => {
      vi.runAllTimers();
    });
    // The message is a chunk of its own: wait for it with real timers.
    vi.useRealTimers();
    expect(await screen.findByTestId('too-long-for-link')).toHaveTextContent(/too long for a link/);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Short again: the message goes after the next frame.
    act(() => {
      const s = store.getState();
      s.setScenario({ ...s.scenario, sources: [] });
    });
    runFrame();
    act(() => {
      vi.runAllTimers();
    });
    expect(screen.queryByTestId('too-long-for-link')).toBeNull();
  });
});
