/**
 * The key a log was read with goes with it: the loaded trace's origin (what a link and a kept copy
 * name) carries the key, re-keying a file read here names the new key, and a kept copy keeps the
 * key of the file it was first read from.
 */
import { describe, expect, it } from 'vitest';
import { createTraceLoadStore } from '../../src/store/traceLoad';
import { holdTrace } from '../../src/trace';
import type { BuiltTrace, KeySpec } from '../../src/trace';
import { csvReport } from '../trace/csvReport';

class FakeWorker {
  sent: { gen: number }[] = [];
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  postMessage(m: { gen: number }): void {
    this.sent.push(m);
  }
  terminate(): void {}
  reply(m: unknown): void {
    this.onmessage?.({ data: m } as MessageEvent);
  }
}

function built(keySpec: KeySpec): BuiltTrace {
  return {
    name: 'a.log',
    count: 2,
    arrivalMs: Float64Array.from([1_700_000_000_000, 1_700_000_000_005]),
    keyId: Uint32Array.from([0, 1]),
    keys: ['x', 'y'],
    cost: new Uint16Array(2).fill(1),
    status: new Uint16Array(2).fill(200),
    keySpec,
    natHints: [],
    report: csvReport(2),
  };
}

function setup() {
  const workers: FakeWorker[] = [];
  const store = createTraceLoadStore(() => {
    const w = new FakeWorker();
    workers.push(w);
    return w as unknown as Worker;
  });
  const finish = (spec: KeySpec) => {
    const w = workers[workers.length - 1] as FakeWorker;
    const { held, replay } = holdTrace(built(spec));
    w.reply({ type: 'done', gen: (w.sent[0] as { gen: number }).gen, trace: held, replay });
  };
  return { store, finish };
}

const XFF: KeySpec = [{ kind: 'xff-first' }];

describe('the key in the loaded trace’s origin', () => {
  it('a file read here: its key, and the new key after re-keying', () => {
    const { store, finish } = setup();
    const file = new File(['x'], 'a.log');
    store.getState().load(file, XFF);
    finish(XFF);
    expect(store.getState().origin).toEqual({ name: 'a.log', bytes: 1, key: 'xff-first' });
    store.getState().rekey([{ kind: 'field', name: 'api_key' }]);
    finish([{ kind: 'field', name: 'api_key' }]);
    expect(store.getState().origin?.key).toBe('field:api_key');
    store.getState().rekey([{ kind: 'client' }]);
    finish([{ kind: 'client' }]);
    expect(store.getState().origin).toEqual({ name: 'a.log', bytes: 1 });
  });

  it('a kept copy: the key of the file it was first read from', () => {
    const { store, finish } = setup();
    const compact = new File(['xy'], 'a.compact');
    store.getState().load(compact, [{ kind: 'client' }], { name: 'a.log', bytes: 99, key: 'path' });
    finish([{ kind: 'client' }]);
    expect(store.getState().origin).toEqual({ name: 'a.log', bytes: 99, key: 'path' });
  });
});
