/**
 * The stream workers' lifecycle (src/store/streamLoad.ts `StreamWorkers`, src/store/
 * rangePool.ts `RangePool`): a finished pass, sweep or span read leaves its worker idle and the next one runs in
 * it (an ended worker's memory comes back seconds later, and a new one would grow beside it); one
 * that was cancelled, superseded or failed is ended, leaving none busy; at most one idle worker is
 * kept. The range workers of a stream worker serve its every read.
 */
import { describe, expect, it } from 'vitest';
import { createStreamStore } from '../../src/store/streamLoad';
import { RangePool } from '../../src/store/rangePool';
import type { AlgorithmConfig } from '../../src/core';
import type { KeySpec, ParseOptions, StreamResult, TracePart } from '../../src/trace';
import type { RangeRequest } from '../../src/store/traceProtocol';

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
  /** The generation of the last request it was sent. */
  get gen(): number {
    return (this.sent[this.sent.length - 1] as { gen: number }).gen;
  }
}

const file = new File(['x'], 'big.log');
const keySpec: KeySpec = [{ kind: 'client' }];
const base: AlgorithmConfig = { kind: 'fixed-window', limit: 2, windowMs: 1000 };
const pass = { file, keySpec, configs: [base], baseline: 'recorded' as const, emptyOutcome: null };
const kept = {
  volumes: {
    keys: ['a'],
    counts: Float64Array.from([1]),
    addresses: [],
    addressCounts: new Float64Array(0),
  },
  copy: null,
};

function setup() {
  const workers: FakeWorker[] = [];
  const store = createStreamStore(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  const busy = () => workers.filter((w) => !w.terminated && w.onmessage !== null);
  return { store, workers, busy };
}

describe('stream workers', () => {
  it('a second statistics pass runs in the first one’s worker, and so does the sweep after it', () => {
    const { store, workers, busy } = setup();
    store.getState().start(pass);
    const w = workers[0] as FakeWorker;
    w.reply({ type: 'done', gen: w.gen, result: {} as StreamResult, kept });
    expect(busy()).toHaveLength(0);
    store.getState().start({ ...pass, configs: [{ ...base, limit: 3 }] });
    expect(workers).toHaveLength(1);
    expect(w.sent).toHaveLength(2);
    expect(w.terminated).toBe(false);
    w.reply({ type: 'done', gen: w.gen, result: {} as StreamResult, kept });
    expect(store.getState().status).toEqual({ kind: 'idle' });
    store.getState().startSweep({
      file,
      keySpec,
      base,
      configs: [base],
      windowMs: 1000,
      emptyOutcome: null,
    });
    expect(workers).toHaveLength(1);
    expect(w.sent[2]).toMatchObject({ type: 'sweep' });
  });

  it('a cancelled pass leaves no worker busy, and the next pass gets a new one', () => {
    const { store, workers, busy } = setup();
    store.getState().start(pass);
    store.getState().cancel();
    expect(workers[0]?.terminated).toBe(true);
    expect(busy()).toHaveLength(0);
    store.getState().start(pass);
    expect(workers).toHaveLength(2);
    // A pass superseded by a newer one is ended too; the newer one runs in a new worker.
    store.getState().start(pass);
    expect(workers[1]?.terminated).toBe(true);
    expect(workers).toHaveLength(3);
    expect(busy()).toEqual([workers[2]]);
  });

  it('a failed pass’s worker is ended, not kept', () => {
    const { store, workers } = setup();
    store.getState().start(pass);
    const w = workers[0] as FakeWorker;
    w.reply({ type: 'error', gen: w.gen, message: 'No line of big.log is a request.' });
    expect(w.terminated).toBe(true);
    store.getState().start(pass);
    expect(workers).toHaveLength(2);
  });

  it('keeps one idle worker at most: a second that finishes while one is idle is ended', () => {
    const { store, workers } = setup();
    // A pass and a span read at once run in two workers.
    store.getState().start(pass);
    store.getState().loadSpan({ file, keySpec, fromMs: 0, toMs: 10 }, () => undefined);
    expect(workers).toHaveLength(2);
    const [a, b] = workers as [FakeWorker, FakeWorker];
    a.reply({ type: 'done', gen: a.gen, result: {} as StreamResult, kept });
    expect(a.terminated).toBe(false);
    b.reply({
      type: 'span-done',
      gen: b.gen,
      trace: { count: 1 },
      replay: {},
      cutAtMs: null,
    });
    expect(b.terminated).toBe(true);
    expect(a.terminated).toBe(false);
  });
});

/** Lets the microtasks run (a range is sent once its worker is taken, a microtask later). */
const settle = () => new Promise<void>((r) => setTimeout(r, 0));

describe('range workers of a stream worker', () => {
  const part = { count: 0 } as unknown as TracePart;
  const opts: ParseOptions = { name: 'big.log' };

  function pool(size: number) {
    const made: FakeWorker[] = [];
    const p = new RangePool(size, () => {
      const w = new FakeWorker();
      made.push(w);
      return w as unknown as Worker;
    });
    return { p, made };
  }

  it('a second read, of another file, uses the first read’s workers', async () => {
    const { p, made } = pool(2);
    const first = p.reader(file);
    const reads = [first(0, 5, opts), first(5, 10, opts)];
    expect(made).toHaveLength(2);
    await settle();
    for (const w of made) w.reply({ type: 'part', part });
    await Promise.all(reads);
    p.release();
    expect(made.every((w) => !w.terminated && w.onmessage === null)).toBe(true);

    const other = new File(['y'], 'other.log');
    const again = p.reader(other)(0, 3, opts);
    await settle();
    expect(made).toHaveLength(2);
    const w = made.find((m) => m.onmessage !== null) as FakeWorker;
    expect((w.sent[w.sent.length - 1] as RangeRequest).file).toBe(other);
    w.reply({ type: 'part', part });
    await expect(again).resolves.toBe(part);
    expect(p.workers).toBe(2);
  });

  it('a read that failed lets its failed worker go, and release ends those still reading', async () => {
    const { p, made } = pool(2);
    const read = p.reader(file);
    const a = read(0, 5, opts);
    const b = read(5, 10, opts);
    await settle();
    const [wa, wb] = made as [FakeWorker, FakeWorker];
    wa.reply({ type: 'part', part });
    await a;
    wb.reply({ type: 'error', message: 'line 3 is not a request' });
    await expect(b).rejects.toThrow('line 3 is not a request');
    // The failed one is let go at once; a third range still reading is ended by release.
    expect(wb.terminated).toBe(true);
    const c = read(10, 15, opts);
    void c.catch(() => undefined);
    await settle();
    // The idle worker took it.
    expect(made).toHaveLength(2);
    expect(wa.onmessage).not.toBeNull();
    p.release();
    expect(wa.terminated).toBe(true);
    expect(p.workers).toBe(0);
  });
});
