/**
 * The streamed sweep's store (src/store/streamLoad.ts): a finished statistics pass hands the page
 * its key volumes and compact copy and its worker is ended; every sweep runs in a new worker given
 * what the last read of the same file left (a copy in the private file system kept by the page
 * holding its Web Lock); cells fill in as each pass posts them, failures are listed, cancel stops
 * the worker and keeps what finished.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStreamStore } from '../../src/store/streamLoad';
import type { StreamSweepAsked } from '../../src/store/streamLoad';
import type { StreamKept, StreamSweepRequest } from '../../src/store/streamProtocol';
import type { AlgorithmConfig } from '../../src/core';
import type { CellResult, KeySpec, StreamResult } from '../../src/trace';

class FakeWorker {
  sent: unknown[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(m: unknown): void {
    this.sent.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
  reply(m: unknown): void {
    this.onmessage?.({ data: m } as MessageEvent);
  }
}

const file = new File(['x'], 'big.log');
const keySpec: KeySpec = [{ kind: 'client' }];
const base: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };
const cell = (rejected: number): CellResult => ({
  offered: 10,
  rejected,
  delayed: 0,
  rejectedShare: rejected / 10,
  rejectedShareP99: rejected / 10,
  peakBackend: 10 - rejected,
  p95DelayMs: 0,
});
const asked = (f: File = file): StreamSweepAsked => ({
  file: f,
  keySpec,
  base,
  configs: [base, { ...base, limit: 3 }, { ...base, limit: 4 }],
  windowMs: 1000,
  emptyOutcome: null,
});

const kept = (lock: string | null = null, source: 'opfs' | 'blob' = 'blob'): StreamKept => ({
  volumes: {
    keys: ['a', 'b'],
    counts: Float64Array.from([7, 3]),
    addresses: [],
    addressCounts: new Float64Array(0),
  },
  copy: { blob: new Blob([new Uint8Array(80)]), count: 10, outside: 0, originMs: 0, source, lock },
});

/** Web Locks as the page sees them: requests are answered when `grant` is called. */
class FakeLocks {
  asked: { name: string; steal: boolean; release: (() => void) | null; grant: () => void }[] = [];
  request(name: string, options: { steal?: boolean }, cb: () => Promise<void>): Promise<void> {
    const entry = {
      name,
      steal: options.steal === true,
      release: null as (() => void) | null,
      grant: () => undefined as void,
    };
    this.asked.push(entry);
    return new Promise<void>((done) => {
      entry.grant = () => {
        void cb().then(() => {
          entry.release = null;
          done();
        });
        entry.release = () => undefined;
      };
    });
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
});

/** Lets the microtasks run (promise callbacks the store chained). */
const settle = () => new Promise<void>((r) => setTimeout(r, 0));

function setup() {
  const workers: FakeWorker[] = [];
  const store = createStreamStore(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  return { store, workers };
}

describe('streamed sweep store', () => {
  it('ends the statistics pass’s worker and gives its volumes and copy to a new sweep worker', () => {
    const { store, workers } = setup();
    store.getState().start({
      file,
      keySpec,
      configs: [base],
      baseline: 'recorded',
      emptyOutcome: null,
    });
    const stats = workers[0] as FakeWorker;
    const gen = (stats.sent[0] as { gen: number }).gen;
    const fromPass = kept();
    stats.reply({ type: 'done', gen, result: {} as StreamResult, kept: fromPass });
    // The pass's heap and the buffers of its reads go with its worker.
    expect(stats.terminated).toBe(true);

    store.getState().startSweep(asked());
    expect(workers).toHaveLength(2);
    expect(stats.sent).toHaveLength(1);
    const sweeper = workers[1] as FakeWorker;
    const req = sweeper.sent[0] as StreamSweepRequest;
    expect(req.type).toBe('sweep');
    expect(req.configs).toHaveLength(3);
    expect(req.kept).toBe(fromPass);
    sweeper.reply({
      type: 'sweep-progress',
      gen: req.gen,
      phase: 'sweep',
      pass: 1,
      passes: 2,
      bytes: 5,
      total: 10,
      figures: { requests: 7, outsideWindow: 0 },
    });
    expect(store.getState().sweep?.status).toMatchObject({ kind: 'running', pass: 1, passes: 2 });
    sweeper.reply({
      type: 'sweep-cells',
      gen: req.gen,
      cells: [
        { index: 0, result: cell(4), message: null },
        { index: 1, result: null, message: 'limit must be a whole number' },
      ],
    });
    sweeper.reply({
      type: 'sweep-cells',
      gen: req.gen,
      cells: [{ index: 2, result: cell(1), message: null }],
    });
    sweeper.reply({
      type: 'sweep-done',
      gen: req.gen,
      requests: 10,
      outsideWindow: 0,
      passes: 2,
      source: 'text',
      workers: 1,
      kept: null,
    });
    const s = store.getState().sweep;
    expect(s?.cells).toEqual([cell(4), undefined, cell(1)]);
    expect(s?.errors).toEqual(['cell 2: limit must be a whole number']);
    expect(s?.status).toEqual({
      kind: 'done',
      requests: 10,
      outsideWindow: 0,
      passes: 2,
      source: 'text',
      workers: 1,
    });
    expect(sweeper.terminated).toBe(true);

    // A second sweep of the same file: a new worker, given the pass's copy again (no re-read).
    store.getState().startSweep(asked());
    expect(workers).toHaveLength(3);
    expect((workers[2] as FakeWorker).sent[0]).toMatchObject({ type: 'sweep', kept: fromPass });
    // Another file, or another key, gets nothing: its sweep reads the file once itself.
    store.getState().startSweep(asked(new File(['y'], 'other.log')));
    expect((workers[3] as FakeWorker).sent[0]).toMatchObject({ kept: null });
  });

  it('a sweep that read the file itself leaves its copy for the next sweep; a new pass forgets it', () => {
    const { store, workers } = setup();
    store.getState().startSweep(asked());
    const first = workers[0] as FakeWorker;
    expect(first.sent[0]).toMatchObject({ kept: null });
    const own = kept();
    first.reply({
      type: 'sweep-done',
      gen: (first.sent[0] as { gen: number }).gen,
      requests: 10,
      outsideWindow: 0,
      passes: 1,
      source: 'blob',
      workers: 2,
      kept: own,
    });
    expect(first.terminated).toBe(true);
    store.getState().startSweep(asked());
    expect((workers[1] as FakeWorker).sent[0]).toMatchObject({ kept: own });

    store.getState().start({
      file,
      keySpec,
      configs: [base],
      baseline: 'recorded',
      emptyOutcome: null,
    });
    store.getState().startSweep(asked());
    expect((workers[3] as FakeWorker).sent[0]).toMatchObject({ kept: null });
  });

  it('a copy in the private file system: the page steals its lock before ending the worker, and removes it once no sweep reads it', async () => {
    const locks = new FakeLocks();
    const removed: string[] = [];
    vi.stubGlobal('navigator', {
      locks,
      storage: {
        getDirectory: () =>
          Promise.resolve({
            removeEntry: (name: string) => {
              removed.push(name);
              return Promise.resolve();
            },
          }),
      },
    });
    const { store, workers } = setup();
    const pass = () =>
      store.getState().start({
        file,
        keySpec,
        configs: [base],
        baseline: 'recorded',
        emptyOutcome: null,
      });
    pass();
    const stats = workers[0] as FakeWorker;
    const fromPass = kept('sweep-requests-1', 'opfs');
    const gen = (stats.sent[0] as { gen: number }).gen;
    stats.reply({ type: 'done', gen, result: {} as StreamResult, kept: fromPass });
    expect(locks.asked).toMatchObject([{ name: 'sweep-requests-1', steal: true }]);
    // Until the page holds the lock, the worker's hold keeps the file.
    await settle();
    expect(stats.terminated).toBe(false);
    locks.asked[0]?.grant();
    await settle();
    expect(stats.terminated).toBe(true);

    // A sweep over the copy; a new pass starts meanwhile: the copy stays until the sweep ends.
    store.getState().startSweep(asked());
    const sweeper = workers[1] as FakeWorker;
    expect(sweeper.sent[0]).toMatchObject({ kept: fromPass });
    pass();
    await settle();
    expect(removed).toEqual([]);
    expect(locks.asked[0]?.release).not.toBeNull();
    store.getState().cancelSweep();
    await settle();
    expect(removed).toEqual(['sweep-requests-1']);
    expect(locks.asked[0]?.release).toBeNull();
  });

  it('a cancelled or failed sweep lets its copy go: the next sweep reads the file once again', () => {
    const { store, workers } = setup();
    const pass = () => {
      store.getState().start({
        file,
        keySpec,
        configs: [base],
        baseline: 'recorded',
        emptyOutcome: null,
      });
      const w = workers[workers.length - 1] as FakeWorker;
      const gen = (w.sent[0] as { gen: number }).gen;
      w.reply({ type: 'done', gen, result: {} as StreamResult, kept: kept() });
    };
    pass();
    store.getState().startSweep(asked());
    expect((workers[1] as FakeWorker).sent[0]).toMatchObject({ kept: { copy: { count: 10 } } });
    store.getState().cancelSweep();
    store.getState().startSweep(asked());
    expect((workers[2] as FakeWorker).sent[0]).toMatchObject({ kept: null });

    pass();
    store.getState().startSweep(asked());
    const failing = workers[4] as FakeWorker;
    expect(failing.sent[0]).toMatchObject({ kept: { copy: { count: 10 } } });
    const gen = (failing.sent[0] as { gen: number }).gen;
    failing.reply({ type: 'sweep-error', gen, message: 'The recorded requests end early' });
    store.getState().startSweep(asked());
    expect((workers[5] as FakeWorker).sent[0]).toMatchObject({ kept: null });
  });

  it('without Web Locks on the page a private-file copy is not handed on, the volumes are', () => {
    vi.stubGlobal('navigator', {});
    const { store, workers } = setup();
    store.getState().start({
      file,
      keySpec,
      configs: [base],
      baseline: 'recorded',
      emptyOutcome: null,
    });
    const stats = workers[0] as FakeWorker;
    const fromPass = kept('sweep-requests-2', 'opfs');
    const gen = (stats.sent[0] as { gen: number }).gen;
    stats.reply({ type: 'done', gen, result: {} as StreamResult, kept: fromPass });
    expect(stats.terminated).toBe(true);
    store.getState().startSweep(asked());
    expect((workers[1] as FakeWorker).sent[0]).toMatchObject({
      kept: { volumes: fromPass.volumes, copy: null },
    });
  });

  it('a sweep of another file gets a new worker; cancel terminates it and keeps the cells so far', () => {
    const { store, workers } = setup();
    store.getState().startSweep(asked());
    const w = workers[0] as FakeWorker;
    const req = w.sent[0] as { gen: number };
    w.reply({
      type: 'sweep-cells',
      gen: req.gen,
      cells: [{ index: 0, result: cell(2), message: null }],
    });
    store.getState().cancelSweep();
    expect(w.terminated).toBe(true);
    expect(store.getState().sweep?.status).toEqual({ kind: 'cancelled' });
    expect(store.getState().sweep?.cells[0]).toEqual(cell(2));
    // A late reply of the cancelled sweep changes nothing.
    w.reply({
      type: 'sweep-done',
      gen: req.gen,
      requests: 10,
      outsideWindow: 0,
      passes: 1,
      source: 'opfs',
      workers: 2,
      kept: null,
    });
    expect(store.getState().sweep?.status).toEqual({ kind: 'cancelled' });

    store.getState().startSweep(asked(new File(['y'], 'other.log')));
    expect(workers).toHaveLength(2);
  });

  it('an error in the sweep is shown and the worker let go', () => {
    const { store, workers } = setup();
    store.getState().startSweep(asked());
    const w = workers[0] as FakeWorker;
    const req = w.sent[0] as { gen: number };
    w.reply({ type: 'sweep-error', gen: req.gen, message: 'The sweep covers at most 24 days' });
    expect(w.terminated).toBe(true);
    expect(store.getState().sweep?.status).toEqual({
      kind: 'error',
      message: 'The sweep covers at most 24 days',
    });
  });
});
