/**
 * A result sent from the worker in pieces (src/store/simWire.ts) and put together on the page is
 * the result the worker made: equal columns, metrics and states at every time. Pieces the page
 * holds are not sent again, and a lane the edit did not change comes back as the very same object.
 * Messages are simulated with structuredClone and a transfer list, as postMessage does.
 */
import { describe, expect, it } from 'vitest';
import type { AlgorithmConfig } from '../../src/core';
import { Seeker, createSimCache, forgetLaneRuns, resultKeys, simulate } from '../../src/sim';
import type { LaneResult, Scenario, SimResult } from '../../src/sim';
import { HeldPieces, encodeResult } from '../../src/store/simWire';
import type { HeldKeys, WirePiece, WireResult } from '../../src/store/simWire';
import { scenario } from './helpers';

const LIMITERS: AlgorithmConfig[] = [
  { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 20, fillIntervalMs: 1000 },
  { kind: 'leaky-bucket', rate: 20, rateUnit: 'r/s', burst: 10, delay: 2 },
  { kind: 'sliding-log', limit: 20, windowMs: 1000, logRejected: true },
];

const PLAIN = scenario({
  seed: 5,
  sources: [{ kind: 'poisson', ratePerSec: 200, startMs: 0, endMs: 20_000 }],
  clients: { count: 3, keying: 'per-client', assign: 'random' },
});

/** Retries (lanes own their first columns) and three instances (own instance columns). */
const BUSY = scenario({
  seed: 3,
  sources: [
    { kind: 'poisson', ratePerSec: 300, startMs: 0, endMs: 20_000 },
    { kind: 'boundary-burst', boundaryMs: 5000, count: 15 },
  ],
  clients: { count: 4, keying: 'per-client', assign: 'random' },
  retry: {
    onReject: 'backoff',
    maxAttempts: 3,
    backoffBaseMs: 50,
    backoffCapMs: 800,
    turnaroundMs: 2,
  },
  deployment: { instances: 3, balancer: 'random', state: 'shared-racy', roundTripMs: 7 },
  clock: { mode: 'wall', jumps: [{ atMs: 8000, byMs: -1500 }] },
});

/** The worker's side: encodes `result` for a page holding `held`, as the messages arrive there. */
function send(
  result: SimResult,
  held: HeldKeys,
  handOver = false,
): { pieces: WirePiece[]; result: WireResult; bytesInResult: number; sentLanes: number[] } {
  const wire = encodeResult(result, held, Number.POSITIVE_INFINITY, handOver);
  const pieces = wire.pieces.map(({ piece, transfer }) => structuredClone(piece, { transfer }));
  const message = structuredClone(wire.result);
  let bytesInResult = 0;
  const count = (v: unknown): void => {
    if (ArrayBuffer.isView(v)) bytesInResult += v.byteLength;
    else if (typeof v === 'object' && v !== null) Object.values(v).forEach(count);
  };
  count(message);
  return { pieces, result: message, bytesInResult, sentLanes: wire.sentLanes };
}

function receive(page: HeldPieces, sent: ReturnType<typeof send>): SimResult {
  for (const piece of sent.pieces) page.accept(piece);
  const result = page.assemble(sent.result);
  if (result === null) throw new Error('a piece is missing');
  return result;
}

function expectSameStates(a: SimResult, b: SimResult, times: number[]): void {
  const sa = new Seeker(a);
  const sb = new Seeker(b);
  for (const t of times) {
    for (const key of a.keyNames) expect(sb.stateAt(t, key)).toEqual(sa.stateAt(t, key));
  }
}

const TIMES = [19_999, 300, 12_345, 7999, 8000, 8001, 2, 6000];

describe('a result sent in pieces', () => {
  for (const [name, sc] of [
    ['first attempts shared, one instance', PLAIN],
    ['retries, three racy instances, clock jumps', BUSY],
  ] as Array<[string, Scenario]>) {
    it(`is put together equal to the whole (${name})`, () => {
      const worker = simulate(LIMITERS, sc, 20_000, { cache: createSimCache() });
      const sent = send(worker, { traffic: [], lanes: [] });
      // One message for the traffic, one per lane; the result message carries no typed arrays.
      expect(sent.pieces).toHaveLength(1 + LIMITERS.length);
      expect(sent.bytesInResult).toBe(0);
      const page = receive(new HeldPieces(), sent);
      expect(page).toEqual(simulate(LIMITERS, sc, 20_000));
      expectSameStates(worker, page, TIMES);
    });
  }

  it('leaves the worker its own arrays (copies are transferred)', () => {
    const worker = simulate(LIMITERS, PLAIN, 20_000, { cache: createSimCache() });
    const before = worker.lanes.map((l) => l.columns.outcome.length);
    send(worker, { traffic: [], lanes: [] });
    expect(worker.lanes.map((l) => l.columns.outcome.length)).toEqual(before);
    expect(worker.arrivals.timeMs.length).toBe(worker.arrivals.count);
  });

  it('hands a lane over without a copy, and the worker then forgets its run', () => {
    const workerCache = createSimCache();
    const one = LIMITERS.slice(0, 1);
    const shown = simulate(one, PLAIN, 20_000, { cache: workerCache });
    const pieces = new HeldPieces();
    pieces.register(shown);
    const edited: AlgorithmConfig[] = [
      { ...(one[0] as AlgorithmConfig), maxTokens: 7 } as AlgorithmConfig,
    ];
    const worker = simulate(edited, PLAIN, 20_000, { cache: workerCache });
    const own = worker.lanes[0]?.columns;
    const shared = { arrivalMs: own?.arrivalMs, origin: own?.origin, instance: own?.instance };
    const sent = send(worker, pieces.held(), true);
    expect(sent.sentLanes).toEqual([0]);
    // The lane's own arrays were transferred as they were: detached here now.
    expect(own?.outcome.byteLength).toBe(0);
    expect(own?.waitMs.byteLength).toBe(0);
    expect(own?.remaining.byteLength).toBe(0);
    expect(own?.resetMs.byteLength).toBe(0);
    // The columns all lanes share stay (they were not sent).
    expect(shared.arrivalMs?.length).toBe(worker.arrivals.count);
    expect(shared.origin?.length).toBe(worker.arrivals.count);
    const page = receive(pieces, sent);
    expect(page).toEqual(simulate(edited, PLAIN, 20_000));
    expectSameStates(simulate(edited, PLAIN, 20_000), page, TIMES);
    // Forgotten: the same config runs again (new arrays, the same rows), not the detached ones.
    forgetLaneRuns(
      workerCache,
      sent.sentLanes.map((i) => worker.lanes[i] as LaneResult),
    );
    const again = simulate(edited, PLAIN, 20_000, { cache: workerCache });
    // (Compared by identity: a matcher would read the detached array.)
    expect(again.lanes[0]?.columns.outcome === own?.outcome).toBe(false);
    expect(again).toEqual(simulate(edited, PLAIN, 20_000));
    // A lane the page holds is not sent, so nothing of it is handed over.
    const held = send(again, { traffic: [], lanes: resultKeys(again)?.lanes ?? [] }, true);
    expect(held.sentLanes).toEqual([]);
    expect(again.lanes[0]?.columns.outcome.byteLength).toBeGreaterThan(0);
  });

  it('sends only the edited lane, and the page keeps the others as the same objects', () => {
    const workerCache = createSimCache();
    const pageCache = createSimCache();
    // The page computed the first run itself (a link opened paused); the worker warmed up on it.
    const shown = simulate(LIMITERS, PLAIN, 20_000, { cache: pageCache });
    simulate(LIMITERS, PLAIN, 20_000, { cache: workerCache });
    const pieces = new HeldPieces();
    pieces.register(shown);
    const edited = LIMITERS.map((l, i) => (i === 1 ? { ...l, burst: 3 } : l)) as AlgorithmConfig[];
    const sent = send(simulate(edited, PLAIN, 20_000, { cache: workerCache }), pieces.held());
    expect(sent.pieces).toHaveLength(1);
    expect('lane' in (sent.pieces[0] as WirePiece)).toBe(true);
    const next = receive(pieces, sent);
    expect(next.lanes[0]).toBe(shown.lanes[0]);
    expect(next.lanes[2]).toBe(shown.lanes[2]);
    expect(next.lanes[1]).not.toBe(shown.lanes[1]);
    expect(next.arrivals).toBe(shown.arrivals);
    // The rebuilt lane shares the page's first-attempt and instance columns.
    expect(next.lanes[1]?.columns.arrivalMs).toBe(shown.arrivals.timeMs);
    expect(next.lanes[1]?.columns.origin).toBe(shown.lanes[0]?.columns.origin);
    expect(next.lanes[1]?.columns.instance).toBe(shown.lanes[0]?.columns.instance);
    expect(next).toEqual(simulate(edited, PLAIN, 20_000));
    expectSameStates(simulate(edited, PLAIN, 20_000), next, TIMES);

    // The same lanes sent again (an answer made before the page said it held them): the page
    // keeps the objects it has.
    const resent = send(simulate(edited, PLAIN, 20_000, { cache: workerCache }), {
      traffic: [],
      lanes: [],
    });
    const same = receive(pieces, resent);
    expect(same.lanes.every((lane, i) => lane === next.lanes[i])).toBe(true);
    expect(same.arrivals).toBe(shown.arrivals);

    // A second edit of the same lane: still one piece; the page dropped what it no longer shows.
    pieces.keepOnly(next);
    const again = LIMITERS.map((l, i) => (i === 1 ? { ...l, burst: 4 } : l)) as AlgorithmConfig[];
    const third = receive(
      pieces,
      send(simulate(again, PLAIN, 20_000, { cache: workerCache }), pieces.held()),
    );
    expect(third.lanes[0]).toBe(shown.lanes[0]);
    expect(third).toEqual(simulate(again, PLAIN, 20_000));
    pieces.keepOnly(third);
    expect(pieces.held().lanes).toHaveLength(LIMITERS.length);
    expect(pieces.held().traffic).toHaveLength(1);
  });

  it('says when a piece it was told of is missing', () => {
    const workerCache = createSimCache();
    const shown = simulate(LIMITERS, PLAIN, 20_000, { cache: workerCache });
    const pieces = new HeldPieces();
    pieces.register(shown);
    const sent = send(simulate([...LIMITERS].reverse(), PLAIN, 20_000, { cache: workerCache }), {
      traffic: [],
      lanes: pieces.held().lanes,
    });
    pieces.clear();
    for (const piece of sent.pieces) pieces.accept(piece);
    expect(pieces.assemble(sent.result)).toBeNull();
  });
});
