/**
 * The worker's warm-up: a run computed on the page is sent to the worker after the frame
 * that draws it, not in the edit's own task; a request made meanwhile sends it first.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPlaygroundStore } from '../../src/store';
import { SimRunner } from '../../src/store/simRunner';
import type { SimRequest } from '../../src/store/simProtocol';

/** What the page posted to its worker. */
let posted: SimRequest[] = [];
/** Frames run only when the test says so. */
let frames: Array<FrameRequestCallback | null> = [];

class FakeWorker {
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: (() => void) | null = null;
  postMessage(message: SimRequest): void {
    posted.push(message);
  }
  terminate(): void {}
}

beforeEach(() => {
  posted = [];
  frames = [];
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  vi.stubGlobal('Worker', FakeWorker);
  vi.stubGlobal('requestAnimationFrame', (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal('cancelAnimationFrame', (id: number) => {
    frames[id - 1] = null;
  });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function runFrame(): void {
  const now = frames;
  frames = [];
  now.forEach((cb) => cb?.(0));
}

function setup() {
  const api = createPlaygroundStore();
  const runner = new SimRunner(api);
  const s = api.getState();
  const inputs = { limiters: s.limiters, scenario: s.scenario, untilMs: s.untilMs };
  return { api, runner, inputs };
}

describe('SimRunner.warm', () => {
  it('posts nothing in the task that asks, and the run once the next frame has been drawn', () => {
    const { runner, inputs } = setup();
    runner.warm(inputs);
    vi.runAllTimers();
    expect(posted).toHaveLength(0);
    runFrame();
    // The frame has run; the message goes in a task after it.
    expect(posted).toHaveLength(0);
    vi.runAllTimers();
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({ warm: true, untilMs: inputs.untilMs });
    expect(posted[0]?.scenario).toBe(inputs.scenario);
    // The same run again: nothing more is sent.
    runner.warm(inputs);
    runFrame();
    vi.runAllTimers();
    expect(posted).toHaveLength(1);
  });

  it('sends only the newest run when several come before a frame', () => {
    const { api, runner, inputs } = setup();
    runner.warm(inputs);
    api.getState().setUntil(inputs.untilMs + 1000);
    const s = api.getState();
    runner.warm({ limiters: s.limiters, scenario: s.scenario, untilMs: s.untilMs });
    runFrame();
    vi.runAllTimers();
    expect(posted.map((m) => m.untilMs)).toEqual([inputs.untilMs + 1000]);
  });

  it('sends a waiting warm-up before a request, so the worker sees the runs in order', () => {
    const { api, runner, inputs } = setup();
    runner.warm(inputs);
    api.getState().setUntil(inputs.untilMs + 1000);
    const s = api.getState();
    runner.request({ limiters: s.limiters, scenario: s.scenario, untilMs: s.untilMs });
    expect(posted.map((m) => [m.warm === true, m.untilMs])).toEqual([
      [true, inputs.untilMs],
      [false, inputs.untilMs + 1000],
    ]);
    // Nothing is left to send after the frame.
    runFrame();
    vi.runAllTimers();
    expect(posted).toHaveLength(2);
  });
});
