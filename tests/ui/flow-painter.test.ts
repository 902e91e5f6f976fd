// @vitest-environment jsdom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FlowPaintMessage, FlowScene, FlowStill } from '../../src/viz/flowScene';

/** A worker that keeps what it is sent and, as a browser does, refuses an array handed twice. */
class FakeWorker {
  static last: FakeWorker | null = null;
  posted: Array<{ message: FlowPaintMessage; transfer: Transferable[] }> = [];
  onerror: (() => void) | null = null;
  onmessage: ((e: MessageEvent) => void) | null = null;
  terminated = false;
  constructor() {
    FakeWorker.last = this;
  }
  postMessage(message: FlowPaintMessage, transfer: Transferable[] = []) {
    if (new Set(transfer).size !== transfer.length)
      throw new DOMException('ArrayBuffer at index 1 is a duplicate', 'DataCloneError');
    this.posted.push({ message, transfer });
  }
  terminate() {
    this.terminated = true;
  }
  draws() {
    return this.posted.map((p) => p.message).filter((m) => m.type === 'draw');
  }
}

const STILL: FlowStill = {
  stations: [],
  holdLine: { x0: 0, x1: 10, y: 5 },
  arrows: [],
};

function scene(): FlowScene {
  return { width: 480, height: 168, still: STILL, marks: new Float32Array(10), texts: [] };
}

/** The painter module afresh (its worker is one per page). */
async function painter() {
  vi.resetModules();
  return import('../../src/viz/flowPainter');
}

const settle = () => new Promise<void>((done) => queueMicrotask(done));

describe('the painter’s messages to its worker', () => {
  beforeEach(() => {
    vi.stubGlobal('Worker', FakeWorker);
    vi.stubGlobal('OffscreenCanvas', class {});
    HTMLCanvasElement.prototype.transferControlToOffscreen = () =>
      new (
        globalThis as unknown as { OffscreenCanvas: new () => OffscreenCanvas }
      ).OffscreenCanvas();
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeWorker.last = null;
  });

  it('sends every strip’s frame of a commit in one message, each array once', async () => {
    const p = await painter();
    expect(p.offscreenPaintable()).toBe(true);
    const a = p.attachFlow(document.createElement('canvas'), () => undefined);
    const b = p.attachFlow(document.createElement('canvas'), () => undefined);
    const sa = scene();
    p.drawFlow(a, sa);
    // An effect run twice (React's StrictMode) draws the same scene again.
    p.drawFlow(a, sa);
    p.drawFlow(b, scene());
    await settle();
    const w = FakeWorker.last as FakeWorker;
    const draws = w.draws();
    expect(draws).toHaveLength(1);
    const draw = draws[0] as Extract<FlowPaintMessage, { type: 'draw' }>;
    expect(draw.frames.map((f) => f.id)).toEqual([a, b]);
    expect(w.posted.at(-1)?.transfer).toHaveLength(2);
    expect(p.offscreenPaintable()).toBe(true);
  });

  it('sends a strip’s still parts once, and again to a strip handed over anew', async () => {
    const p = await painter();
    const a = p.attachFlow(document.createElement('canvas'), () => undefined);
    p.drawFlow(a, scene());
    await settle();
    p.drawFlow(a, scene());
    await settle();
    // StrictMode: the strip lets go of its canvas before its frame went, and takes a new one.
    p.drawFlow(a, scene());
    p.detachFlow(a);
    const b = p.attachFlow(document.createElement('canvas'), () => undefined);
    p.drawFlow(b, scene());
    await settle();
    const frames = (FakeWorker.last as FakeWorker)
      .draws()
      .flatMap((m) => (m.type === 'draw' ? m.frames : []));
    expect(frames.map((f) => [f.id, f.still === null])).toEqual([
      [a, false],
      [a, true],
      [b, false],
    ]);
  });

  it('stops painting, for SVG strips, when the worker fails', async () => {
    const p = await painter();
    p.attachFlow(document.createElement('canvas'), () => undefined);
    const w = FakeWorker.last as FakeWorker;
    w.onerror?.();
    expect(w.terminated).toBe(true);
    expect(p.offscreenPaintable()).toBe(false);
  });

  it('tells a strip when its first frame is on its canvas, once', async () => {
    const p = await painter();
    const told = vi.fn();
    const a = p.attachFlow(document.createElement('canvas'), told);
    const w = FakeWorker.last as FakeWorker;
    w.onmessage?.(new MessageEvent('message', { data: { type: 'painted', id: a } }));
    w.onmessage?.(new MessageEvent('message', { data: { type: 'painted', id: a } }));
    expect(told).toHaveBeenCalledTimes(1);
  });
});
