/**
 * The streamed sweep's store (src/store/streamLoad.ts): the sweep goes to the idle worker of the
 * statistics pass over the same file (it keeps the key volumes), else to a new one; cells fill in
 * as each pass posts them, failures are listed, cancel stops the worker and keeps what finished.
 */
import { describe, expect, it } from 'vitest';
import { createStreamStore } from '../../src/store/streamLoad';
import type { StreamSweepAsked } from '../../src/store/streamLoad';
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
  it('reuses the statistics pass’s idle worker; cells fill in per pass; done says exact or not', () => {
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
    stats.reply({ type: 'done', gen, result: {} as StreamResult });
    expect(stats.terminated).toBe(false);

    store.getState().startSweep(asked());
    expect(workers).toHaveLength(1);
    const req = stats.sent[1] as { type: string; gen: number; configs: unknown[] };
    expect(req.type).toBe('sweep');
    expect(req.configs).toHaveLength(3);
    stats.reply({
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
    stats.reply({
      type: 'sweep-cells',
      gen: req.gen,
      cells: [
        { index: 0, result: cell(4), message: null },
        { index: 1, result: null, message: 'limit must be a whole number' },
      ],
    });
    stats.reply({
      type: 'sweep-cells',
      gen: req.gen,
      cells: [{ index: 2, result: cell(1), message: null }],
    });
    stats.reply({
      type: 'sweep-done',
      gen: req.gen,
      requests: 10,
      outsideWindow: 0,
      passes: 2,
      source: 'text',
      workers: 1,
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

    // A second sweep of the same file goes to the same worker (it kept the key volumes).
    store.getState().startSweep(asked());
    expect(workers).toHaveLength(1);
    expect(stats.terminated).toBe(false);
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
