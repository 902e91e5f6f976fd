/**
 * Copying a log's columns for a worker in slices: the copies are exact, each task writes at most
 * its byte budget, nothing is written in the caller's own task, and a stopped copy never finishes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyInSlices } from '../../src/ui/common/copyInSlices';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('copyInSlices', () => {
  it('copies the first `count` items of each column exactly, in tasks of at most the budget', () => {
    const times = Int32Array.from({ length: 1000 }, (_, i) => i * 7);
    const keyId = Int32Array.from({ length: 1000 }, (_, i) => i % 13);
    const status = Uint16Array.from({ length: 1000 }, (_, i) => 200 + (i % 3));
    const done = vi.fn();
    copyInSlices([times, keyId, status], 900, done, 1024);
    // Nothing in the caller's task.
    expect(done).not.toHaveBeenCalled();
    // 900 × 4 + 900 × 4 + 900 × 2 = 9,000 bytes at 1,024 a task: 9 tasks.
    let tasks = 0;
    while (done.mock.calls.length === 0) {
      vi.advanceTimersToNextTimer();
      tasks += 1;
      expect(tasks).toBeLessThan(100);
    }
    expect(tasks).toBe(9);
    const [copies] = done.mock.calls[0] as [[Int32Array, Int32Array, Uint16Array]];
    expect(copies[0]).toBeInstanceOf(Int32Array);
    expect(copies[2]).toBeInstanceOf(Uint16Array);
    expect(Array.from(copies[0])).toEqual(Array.from(times.subarray(0, 900)));
    expect(Array.from(copies[1])).toEqual(Array.from(keyId.subarray(0, 900)));
    expect(Array.from(copies[2])).toEqual(Array.from(status.subarray(0, 900)));
    // Fresh arrays: transferring them leaves the page's own intact.
    expect(copies[0].buffer).not.toBe(times.buffer);
  });

  it('hands over empty copies of an empty log', () => {
    const done = vi.fn();
    copyInSlices([new Float64Array(0), new Int32Array(4)], 0, done);
    vi.runAllTimers();
    expect(done).toHaveBeenCalledTimes(1);
    const [copies] = done.mock.calls[0] as [[Float64Array, Int32Array]];
    expect(copies.map((c) => c.length)).toEqual([0, 0]);
  });

  it('never finishes once stopped', () => {
    const done = vi.fn();
    const stop = copyInSlices([new Int32Array(10_000)], 10_000, done, 1024);
    vi.advanceTimersToNextTimer();
    stop();
    vi.runAllTimers();
    expect(done).not.toHaveBeenCalled();
  });
});
