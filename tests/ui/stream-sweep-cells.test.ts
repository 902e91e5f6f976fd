/**
 * The streamed sweep's cell workers (src/store/stream.worker.ts `sweepCells`), driven through the
 * worker's message handler with the cell workers faked: the state budget is shared out among them
 * (32 MB over all, 16 MB each on two cores), every cell goes to one of them, and each is ended once
 * its cells are decided, its state going with it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import type { StreamSweepRequest, SweepCellsRequest } from '../../src/store/streamProtocol';
import { sweepPlan } from '../../src/trace';
import { systemById } from '../../src/systems';

/** What the worker posts to the page. */
const posted = vi.hoisted(() => {
  const out: unknown[] = [];
  const g = globalThis as unknown as Record<string, unknown>;
  g.self = globalThis;
  g.postMessage = (m: unknown) => out.push(m);
  return out;
});

class FakeCellWorker {
  static made: FakeCellWorker[] = [];
  sent: SweepCellsRequest[] = [];
  terminated = false;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: ErrorEvent) => void) | null = null;
  constructor() {
    FakeCellWorker.made.push(this);
  }
  postMessage(m: SweepCellsRequest): void {
    this.sent.push(m);
  }
  terminate(): void {
    this.terminated = true;
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
});

const settle = () => new Promise<void>((r) => setTimeout(r, 0));

/** A sweep of the Cloudflare 20 × 20 grid over 4,220 keys (the bench's 16M-line log's). */
function sweepAsked(gen: number): { req: StreamSweepRequest; configs: AlgorithmConfig[] } {
  const cloudflare = systemById('cloudflare');
  const plan = sweepPlan(cloudflare!.defaultConfig, 20, cloudflare!.params)!;
  const configs: AlgorithmConfig[] = [];
  for (let x = 0; x < plan.x.values.length; x += 1)
    for (let y = 0; y < plan.y.values.length; y += 1) configs.push(plan.configAt(x, y));
  // As many keys as the bench's 16M-line log has.
  const keys = Array.from({ length: 4_220 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
  const req: StreamSweepRequest = {
    type: 'sweep',
    gen,
    file: new File(['x'], 'big.log'),
    keySpec: [{ kind: 'client' }],
    configs,
    windowMs: 1000,
    emptyOutcome: null,
    kept: {
      volumes: {
        keys,
        counts: new Float64Array(keys.length).fill(1),
        addresses: [],
        addressCounts: new Float64Array(0),
      },
      copy: {
        blob: new Blob([]),
        count: 0,
        outside: 0,
        originMs: 0,
        source: 'blob',
        lock: null,
      },
    },
  };
  return { req, configs };
}

const send = (req: StreamSweepRequest): void =>
  (globalThis as unknown as { onmessage: (e: { data: unknown }) => void }).onmessage({ data: req });

describe('a streamed sweep’s cell workers', () => {
  it('share the state budget and the cells, and are ended once their cells are decided', async () => {
    vi.stubGlobal('Worker', FakeCellWorker);
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    await import('../../src/store/stream.worker');
    const { req, configs } = sweepAsked(1);
    send(req);
    await settle();
    const cells = FakeCellWorker.made;
    expect(cells).toHaveLength(2);
    const asked = cells.map((w) => w.sent[0] as SweepCellsRequest);
    for (const r of asked) expect(r.budgetBytes).toBe(16 * 1024 * 1024);
    expect(asked.reduce((a, r) => a + r.configs.length, 0)).toBe(configs.length);
    // Every other cell to each.
    expect(asked[0]!.indexes.slice(0, 3)).toEqual([0, 2, 4]);
    expect(asked[1]!.indexes.slice(0, 3)).toEqual([1, 3, 5]);
    for (const w of cells) w.onmessage?.({ data: { type: 'done' } } as MessageEvent);
    await settle();
    expect(posted).toContainEqual(
      expect.objectContaining({ type: 'sweep-done', gen: 1, workers: 2 }),
    );
    // Ended once their cells are decided: their state goes with them.
    expect(cells.every((w) => w.terminated)).toBe(true);
  });

  it('one failing ends them all: none is left deciding cells, and the failure is said', async () => {
    vi.stubGlobal('Worker', FakeCellWorker);
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    await import('../../src/store/stream.worker');
    FakeCellWorker.made = [];
    send(sweepAsked(2).req);
    await settle();
    const [a, b] = FakeCellWorker.made as [FakeCellWorker, FakeCellWorker];
    a.onmessage?.({ data: { type: 'error', message: 'out of memory' } } as MessageEvent);
    await settle();
    expect(a.terminated).toBe(true);
    expect(b.terminated).toBe(true);
    const said = posted.find((m) => (m as { type: string }).type === 'sweep-error');
    expect(said).toMatchObject({ gen: 2 });
    expect((said as { message: string }).message).toContain('out of memory');
  });
});
