import { describe, expect, it } from 'vitest';
import { createTraceLoadStore } from '../../src/store/traceLoad';
import type { TraceWorkerReply, TraceWorkerRequest } from '../../src/store/traceProtocol';
import { holdTrace, parseTrace, simTraceOf } from '../../src/trace';
import { loadedTraces } from '../../src/store/traceSim';

/** A stand-in worker: records what it was sent and whether it was terminated. */
class FakeWorker {
  sent: TraceWorkerRequest[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent<TraceWorkerReply>) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(m: TraceWorkerRequest): void {
    this.sent.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(m: TraceWorkerReply): void {
    this.onmessage?.({ data: m } as MessageEvent<TraceWorkerReply>);
  }
}

/** A trace loading store whose workers are stand-ins, kept in the order they were made. */
function recordingStore() {
  const workers: FakeWorker[] = [];
  const store = createTraceLoadStore(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  return { store, workers };
}

const file = (name: string, text: string): File => new File([text], name);
const parsed = parseTrace(new TextEncoder().encode('timestamp,ip\n1700000000000,a\n'), {
  name: 'a.csv',
});
const sim = simTraceOf(parsed);
const { held: trace, replay } = holdTrace(parsed);

describe('trace loading store', () => {
  it('shows progress, then the trace; the worker is let go', () => {
    const { store, workers } = recordingStore();
    store.getState().load(file('a.csv', 'x'));
    const w = workers[0] as FakeWorker;
    const gen = (w.sent[0] as TraceWorkerRequest).gen;
    w.reply({ type: 'progress', gen, bytes: 1, total: 1, requests: 7, lines: 8, malformed: 1 });
    expect(store.getState().status).toMatchObject({ kind: 'loading', requests: 7, malformed: 1 });
    w.reply({ type: 'done', gen, trace, replay });
    expect(store.getState().trace).toBe(trace);
    expect(store.getState().status.kind).toBe('idle');
    expect(w.terminated).toBe(true);
    // The page now holds it for replay, with its fingerprint; clearing lets it go.
    expect(loadedTraces().map((t) => t.hash)).toEqual([sim.hash]);
    expect(store.getState().replay?.keys).toEqual(['a']);
    store.getState().clear();
    expect(loadedTraces()).toEqual([]);
  });

  it('a newer load wins: the older worker is terminated and its late replies dropped', () => {
    const { store, workers } = recordingStore();
    store.getState().load(file('a.log', 'x'));
    store.getState().load(file('b.log', 'y'));
    const [first, second] = workers as [FakeWorker, FakeWorker];
    expect(first.terminated).toBe(true);
    first.reply({ type: 'done', gen: (first.sent[0] as TraceWorkerRequest).gen, trace, replay });
    expect(store.getState().trace).toBeNull();
    second.reply({
      type: 'error',
      gen: (second.sent[0] as TraceWorkerRequest).gen,
      message: 'bad',
      stoppedAt: 0,
    });
    expect(store.getState().status).toEqual({ kind: 'error', message: 'bad' });
  });

  it('cancel stops the worker and keeps the last trace; an error keeps it too', () => {
    const { store, workers } = recordingStore();
    store.getState().load(file('a.csv', 'x'));
    const w0 = workers[0] as FakeWorker;
    w0.reply({ type: 'done', gen: (w0.sent[0] as TraceWorkerRequest).gen, trace, replay });
    store.getState().load(file('b.csv', 'y'));
    store.getState().cancel();
    expect((workers[1] as FakeWorker).terminated).toBe(true);
    expect(store.getState().status.kind).toBe('idle');
    expect(store.getState().trace).toBe(trace);
  });

  it('hands a file over 1 GB to the streaming pass before starting a worker, and keeps no error', () => {
    let made = 0;
    const store = createTraceLoadStore(() => {
      made += 1;
      return new FakeWorker() as unknown as Worker;
    });
    const big = { name: 'huge.log', size: 2 * 1024 ** 3 } as File;
    store.getState().load(big);
    expect(made).toBe(0);
    expect(store.getState().status).toEqual({ kind: 'idle' });
    expect(store.getState().streamed?.file).toBe(big);
  });
});

describe('a parsing worker made ahead of a read', () => {
  it('is the one the next read uses, told to start its range workers first', () => {
    const { store, workers } = recordingStore();
    store.getState().prewarm();
    store.getState().prewarm();
    expect(workers).toHaveLength(1);
    expect(workers[0]?.sent).toEqual([{ type: 'warm' }]);
    store.getState().load(file('a.log', 'x'));
    expect(workers).toHaveLength(1);
    expect(workers[0]?.sent[1]).toMatchObject({ file: { name: 'a.log' } });
  });

  it('ends when the trace is cleared, and the next read makes its own', () => {
    const { store, workers } = recordingStore();
    store.getState().prewarm();
    const warm = workers[0] as FakeWorker;
    store.getState().clear();
    expect(warm.terminated).toBe(true);
    store.getState().load(file('a.log', 'x'));
    expect(workers).toHaveLength(2);
    expect(workers[1]?.sent[0]).toMatchObject({ file: { name: 'a.log' } });
    expect(warm.sent).toHaveLength(1);
  });

  it('is let go when a log over 1 GB is read by streaming passes, and none is made while it is', () => {
    const { store, workers } = recordingStore();
    store.getState().prewarm();
    const warm = workers[0] as FakeWorker;
    store.getState().load({ name: 'huge.log', size: 2 * 1024 ** 3 } as File);
    expect(warm.terminated).toBe(true);
    store.getState().prewarm();
    expect(workers).toHaveLength(1);
    // A small log read after it starts its own worker.
    store.getState().load(file('a.log', 'x'));
    expect(workers).toHaveLength(2);
    expect(workers[1]?.sent[0]).toMatchObject({ file: { name: 'a.log' } });
  });

  it('is let go when a held read finds more requests than the page holds', () => {
    const { store, workers } = recordingStore();
    store.getState().load(file('many.log', 'x'));
    const reader = workers[0] as FakeWorker;
    store.getState().prewarm();
    const warm = workers[1] as FakeWorker;
    reader.reply({
      type: 'error',
      gen: (reader.sent[0] as TraceWorkerRequest).gen,
      message: 'Too many requests: more than the page holds',
      stoppedAt: 0,
    });
    expect(store.getState().streamed?.file.name).toBe('many.log');
    expect(warm.terminated).toBe(true);
  });
});
