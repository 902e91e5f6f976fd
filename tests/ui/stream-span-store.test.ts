/**
 * Reading a span of a streamed log for the stage (src/store/streamLoad.ts `loadSpan`): a worker of
 * its own gets the span, its progress shows, the held trace it answers goes to the trace load
 * store, a cut is said, and cancel stops the worker and keeps what the page had.
 */
import { describe, expect, it } from 'vitest';
import { createStreamStore } from '../../src/store/streamLoad';
import { createTraceLoadStore } from '../../src/store/traceLoad';
import { holdTrace } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';

class FakeWorker {
  sent: { gen: number; type?: string }[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(m: { gen: number }): void {
    this.sent.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(m: unknown): void {
    this.onmessage?.({ data: m } as MessageEvent);
  }
}

const keySpec: KeySpec = [{ kind: 'xff-first' }];
const built: BuiltTrace = {
  name: 'big.log',
  count: 2,
  arrivalMs: Float64Array.from([1_700_000_000_000, 1_700_000_000_005]),
  keyId: Uint32Array.from([0, 1]),
  keys: ['x', 'y'],
  cost: new Uint16Array(2).fill(1),
  status: new Uint16Array(2).fill(200),
  keySpec,
  natHints: [],
  report: {
    format: 'nginx',
    formatName: 'nginx combined',
    lines: 2,
    malformed: 0,
    malformedFirst: [],
    outOfOrder: 0,
    maxBackstepMs: 0,
    resolutionMs: 1,
    timeSource: '$msec',
    notes: [],
  },
};

/** A stream store whose workers are fakes (kept in order), a trace store, and a file to read. */
function stores() {
  const workers: FakeWorker[] = [];
  const store = createStreamStore(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  const traces = createTraceLoadStore(() => new FakeWorker() as unknown as Worker);
  return { workers, store, traces, file: new File(['x'], 'big.log') };
}

describe('a span of the streamed log for the stage', () => {
  it('asks its own worker, shows progress, hands the trace on and says where it was cut', () => {
    const { workers, store, traces, file } = stores();
    const asked = { file, keySpec, fromMs: 1_700_000_000_000, toMs: 1_700_086_400_000 };
    store.getState().loadSpan(asked, traces.getState().holdSpan);
    const w = workers[0]!;
    const req = w.sent[0]!;
    expect(req).toMatchObject({ type: 'span', fromMs: asked.fromMs, toMs: asked.toMs });
    w.reply({ type: 'span-progress', gen: req.gen, bytes: 5, total: 10, requests: 9, inSpan: 2 });
    expect(store.getState().span?.status).toEqual({
      kind: 'running',
      bytes: 5,
      total: 10,
      requests: 9,
      inSpan: 2,
    });
    const { held, replay } = holdTrace(built);
    w.reply({ type: 'span-done', gen: req.gen, trace: held, replay, cutAtMs: 1_700_000_000_006 });
    expect(store.getState().span?.status).toEqual({
      kind: 'done',
      requests: 2,
      cutAtMs: 1_700_000_000_006,
    });
    expect(traces.getState().trace).toBe(held);
    expect(traces.getState().replay?.timeMs.length).toBe(2);
    // A link names the file and the span it holds: from the start asked to the cut.
    expect(traces.getState().origin).toEqual({
      name: 'big.log',
      bytes: 1,
      key: 'xff-first',
      spanFromMs: 1_700_000_000_000,
      spanToMs: 1_700_000_000_006,
    });
    expect(w.terminated).toBe(true);
  });

  it('cancel stops the worker; an error leaves the held trace as it was', () => {
    const { workers, store, traces, file } = stores();
    const asked = { file, keySpec, fromMs: 0, toMs: 10 };
    store.getState().loadSpan(asked, traces.getState().holdSpan);
    store.getState().cancelSpan();
    expect(workers[0]!.terminated).toBe(true);
    expect(store.getState().span?.status).toEqual({ kind: 'cancelled' });
    store.getState().loadSpan(asked, traces.getState().holdSpan);
    const w = workers[1]!;
    w.reply({ type: 'span-error', gen: w.sent[0]!.gen, message: 'No request of the log arrived.' });
    expect(store.getState().span?.status).toEqual({
      kind: 'error',
      message: 'No request of the log arrived.',
    });
    expect(traces.getState().trace).toBeNull();
  });
});
