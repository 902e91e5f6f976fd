/**
 * The limiter state a streamed sweep's cell workers may hold (src/store/stream.worker.ts
 * `sweepCells`): the cells start right after the statistics pass, while the browser has not yet
 * given back that pass's ended workers' memory, so the state they hold at once is kept to 32 MB over
 * all of them (16 MB each on two cores); more cells take more passes over the compact copy. The
 * worker's sweep is driven here through its message handler, with its cell workers faked.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import type { StreamSweepRequest, SweepCellsRequest } from '../../src/store/streamProtocol';
import { sweepPasses, sweepPlan } from '../../src/trace';
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

describe('a streamed sweep’s cell workers', () => {
  it('hold at most 32 MB of limiter state at once between them, in as many passes as that takes', async () => {
    vi.stubGlobal('Worker', FakeCellWorker);
    vi.stubGlobal('navigator', { hardwareConcurrency: 2 });
    await import('../../src/store/stream.worker');
    const cloudflare = systemById('cloudflare');
    const plan = sweepPlan(cloudflare!.defaultConfig, 20, cloudflare!.params)!;
    const configs: AlgorithmConfig[] = [];
    for (let x = 0; x < plan.x.values.length; x += 1)
      for (let y = 0; y < plan.y.values.length; y += 1) configs.push(plan.configAt(x, y));
    // As many keys as the bench's 16M-line log has.
    const keys = Array.from({ length: 4_220 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const req: StreamSweepRequest = {
      type: 'sweep',
      gen: 1,
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
    (globalThis as unknown as { onmessage: (e: { data: unknown }) => void }).onmessage({
      data: req,
    });
    await settle();
    const cells = FakeCellWorker.made;
    expect(cells).toHaveLength(2);
    const asked = cells.map((w) => w.sent[0] as SweepCellsRequest);
    for (const r of asked) expect(r.budgetBytes).toBe(16 * 1024 * 1024);
    expect(asked.reduce((a, r) => a + r.configs.length, 0)).toBe(configs.length);
    // That budget splits each worker's 200 Cloudflare cells over 4,220 keys into more than one pass.
    const passes = sweepPasses(asked[0]!.configs, keys.length, asked[0]!.budgetBytes);
    expect(passes.length).toBeGreaterThan(1);

    for (const w of cells) w.onmessage?.({ data: { type: 'done' } } as MessageEvent);
    await settle();
    expect(posted).toContainEqual(
      expect.objectContaining({ type: 'sweep-done', gen: 1, workers: 2 }),
    );
    // Ended once their cells are decided: their state goes with them.
    expect(cells.every((w) => w.terminated)).toBe(true);
  });
});
