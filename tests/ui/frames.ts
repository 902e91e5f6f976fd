import { act } from '@testing-library/react';
import { beforeEach, vi } from 'vitest';

/**
 * Frames that run only when a test says so, for each test of the file that calls this at its top:
 * requestAnimationFrame queues its callback (cancelAnimationFrame drops it) and setTimeout is fake
 * (`vi.runAllTimers`), so a test can step past "after the next frame" (`afterNextFrame`).
 */
export function stubFrames(): {
  /** Runs the frame callbacks queued so far (those queued meanwhile wait for the next one). */
  runFrame: () => void;
  /** How many callbacks were queued since the last frame, cancelled ones included. */
  queued: () => number;
} {
  let frames: Array<FrameRequestCallback | null> = [];
  beforeEach(() => {
    frames = [];
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
    vi.stubGlobal('cancelAnimationFrame', (id: number) => {
      frames[id - 1] = null;
    });
    return () => {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    };
  });
  return {
    runFrame: () => {
      const now = frames;
      frames = [];
      act(() => now.forEach((cb) => cb?.(0)));
    },
    queued: () => frames.length,
  };
}
