/**
 * Where a run is computed: here, in the render that needs it, when it is small; in a Web Worker when
 * it is large, while the page goes on showing the previous result (the simulation never
 * blocks input). Every request carries a generation number: an answer is kept only if it is the
 * newest request's and the store still holds the inputs it was made for, so the newest edit wins.
 * Without Worker support (tests, old browsers) everything is computed here.
 */
import { CHECKPOINT_EVERY, MAX_DECISIONS, MAX_FIRST_ATTEMPTS } from '../sim';
import type { Scenario, SimTrace } from '../sim';
import { FLEET_SLOTS } from '../sim/fleet';
import { afterNextFrame } from './afterNextFrame';
import { detachEarly } from './detachEarly';
import { lastRun, rememberOutcome, runTraces, sameRun, simLimiters } from './derived';
import type { RunInputs, SimOutcome } from './derived';
import type { SimAnswer, SimRequest } from './simProtocol';
import type { HeldKeys, HeldPieces } from './simWire';
import type { PlaygroundStoreApi } from './store';

/**
 * Work a run may take and still be computed in the render that needs it, in decisions (see
 * `newDecisions`): about 10 ms of main thread at 1× here (the sim bench's decisions/s), so small
 * edits draw in the next frame with no round trip; larger runs go to the worker, the first run of
 * a link or of saved settings too.
 */
export const SYNC_DECISIONS = 40_000;

/** First attempts a scenario's sources make before untilMs (an estimate: an upper bound). */
export function estimatedArrivals(scenario: Scenario, untilMs: number): number {
  let n = 0;
  for (const s of scenario.sources) {
    switch (s.kind) {
      case 'manual':
        n += s.timesMs.length;
        break;
      case 'burst':
        n += s.count;
        break;
      case 'boundary-burst':
        n += 2 * s.count;
        break;
      case 'trace':
        n += Math.min(s.requests, untilMs); // at most one a ms on average; an upper bound is enough
        break;
      case 'constant':
      case 'poisson':
      case 'on-off':
        n += (s.ratePerSec * Math.max(0, Math.min(s.endMs, untilMs) - s.startMs)) / 1000 + 1;
        break;
    }
  }
  return Math.min(n, MAX_FIRST_ATTEMPTS);
}

/**
 * The work of one lane's run, in decisions (an upper bound): every attempt (each first attempt
 * may be retried up to maxAttempts − 1 times), the fleet's store syncs and autoscaler ticks the
 * engine processes (src/sim/fleet.ts skips idle ones: at most about one per decision, or one per
 * period, whichever is fewer), its scale events, and copying the stores' keys at every checkpoint
 * (each 512 rows; a key copied counts as two decisions): replicas × keys, at most three entries a
 * decision.
 */
export function laneWork(scenario: Scenario, untilMs: number, lanes: number): number {
  const retry = scenario.retry;
  const attempts = retry.onReject === 'give-up' ? 1 : retry.maxAttempts;
  const decisions = Math.min(
    estimatedArrivals(scenario, untilMs) * attempts,
    MAX_DECISIONS / Math.max(1, lanes),
  );
  const fleet = scenario.deployment.fleet;
  const events = (fleet?.scale?.length ?? 0) + (fleet?.store?.outages.length ?? 0);
  const every = (periodMs = untilMs + 1, perDecision = 1): number =>
    Math.min(untilMs / periodMs, perDecision * (decisions + events) + 1);
  const ticks = every(fleet?.autoscale?.everyMs, 2);
  const keys = scenario.sources.some((s) => s.kind === 'trace')
    ? decisions
    : scenario.clients.keying === 'shared'
      ? 1
      : scenario.clients.count;
  // Each replica's limiter and each one's copy of the store (batched), and the store.
  const stores = fleet === undefined ? scenario.deployment.instances : 2 * FLEET_SLOTS + 1;
  const copies = Math.ceil(decisions / CHECKPOINT_EVERY) * Math.min(3 * decisions, stores * keys);
  return decisions + 2 * ticks + every(fleet?.store?.syncMs) + events + 2 * copies;
}

/**
 * The work the run for `next` will do that `prev`'s run did not, in decisions (`laneWork`): with
 * the same traffic, only the lanes whose limiter changed run again (see SimCache).
 */
export function newDecisions(next: RunInputs, prev: RunInputs | null): number {
  const sameTraffic =
    prev !== null && prev.scenario === next.scenario && prev.untilMs === next.untilMs;
  const lanes = sameTraffic
    ? next.limiters.filter((l, i) => prev.limiters[i] !== l).length
    : next.limiters.length;
  return lanes * laneWork(next.scenario, next.untilMs, next.limiters.length);
}

/** What the page tells people about a run computing off the main thread. */
export interface SimStatus {
  /** A newer run than the one shown is computing. */
  pending: boolean;
  /** How far it is (0 – 1), when the worker has said. */
  progress: number | null;
}

const IDLE: SimStatus = { pending: false, progress: null };

export class SimRunner {
  private worker: Worker | null = null;
  private failed = false;
  private gen = 0;
  private requested: RunInputs | null = null;
  private warmed: RunInputs | null = null;
  /** A warm-up waiting for the next frame to be drawn (`warm`). */
  private pendingWarm: RunInputs | null = null;
  private status: SimStatus = IDLE;
  /** The traces the worker holds (sent with the first request that needs them). */
  private sentTraces: readonly SimTrace[] = [];
  private version = 0;
  private readonly listeners = new Set<() => void>();
  /**
   * The pieces of results the page holds: the worker sends only the others (simWire.ts). A chunk
   * of its own, fetched with the worker (initial JavaScript); until it has arrived the
   * page holds nothing and the worker sends every piece.
   */
  private pieces: HeldPieces | null = null;
  private wire: Promise<void> = Promise.resolve();
  constructor(private readonly api: PlaygroundStoreApi) {
    // The page transfers buffers to the worker (spent columns, traces): detachEarly.ts.
    if (this.available) detachEarly();
  }

  /** True where a worker can run (the browser, not jsdom). */
  get available(): boolean {
    return !this.failed && typeof Worker !== 'undefined';
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /**
   * Changes whenever a result arrives (or the worker fails): what `useSimulation` draws. Progress
   * and "pending" do not change it, so a large run's hundred progress reports re-render only the
   * "updating" note, not the whole page (input stays responsive while it computes).
   */
  readonly getVersion = (): number => this.version;
  readonly getStatus = (): SimStatus => this.status;

  private notify(status: SimStatus, newResult = false): void {
    this.status = status;
    if (newResult) this.version += 1;
    for (const l of this.listeners) l();
  }

  /** Computes `inputs` in the worker (unless that is the run already asked for). */
  request(inputs: RunInputs): void {
    if (this.requested !== null && sameRun(this.requested, inputs)) return;
    this.flushWarm();
    const worker = this.ensureWorker();
    if (worker === null) return;
    this.gen += 1;
    // The traces are fixed now: an answer made for other traces is stale.
    this.requested = { ...inputs, traces: runTraces(inputs) };
    // What the page shows is held: unchanged lanes come back as the same objects.
    const shown = lastRun()?.outcome;
    if (shown?.ok === true) this.pieces?.register(shown.result);
    const message: SimRequest = {
      gen: this.gen,
      limiters: simLimiters(inputs),
      scenario: inputs.scenario,
      untilMs: inputs.untilMs,
      ...this.tracesToSend(inputs),
      held: this.pieces?.held() ?? HOLDING_NOTHING,
    };
    const spent = this.pieces?.collectSpent() ?? [];
    if (spent.length > 0) message.spent = spent;
    worker.postMessage(message, [...transferList(message), ...spent]);
    this.notify({ pending: true, progress: null });
  }

  /**
   * A large run computed here (the first render of a link) is also run in the worker, in the
   * background, so that its cache holds the arrivals and lanes when the first edit comes. Posted
   * after the next frame: an edit computed here draws first (the message, and the
   * worker's run of the same lane on the other core, sat in the input's task before its frame).
   * A request made meanwhile sends it first, so the worker sees the runs in order.
   */
  warm(inputs: RunInputs): void {
    if (this.pendingWarm === null) afterNextFrame(() => this.flushWarm());
    this.pendingWarm = { ...inputs, traces: runTraces(inputs) };
  }

  /** Posts the warm-up waiting for its frame, if any (and not the run the worker has). */
  private flushWarm(): void {
    const inputs = this.pendingWarm;
    this.pendingWarm = null;
    if (inputs === null || (this.warmed !== null && sameRun(this.warmed, inputs))) return;
    const worker = this.ensureWorker();
    if (worker === null) return;
    this.warmed = { ...inputs, traces: runTraces(inputs) };
    const message: SimRequest = {
      gen: this.gen,
      limiters: simLimiters(inputs),
      scenario: inputs.scenario,
      untilMs: inputs.untilMs,
      ...this.tracesToSend(inputs),
      warm: true,
    };
    worker.postMessage(message, transferList(message));
  }

  /**
   * `{ traces }` when the worker does not hold the traces `inputs` replays yet, else `{}`: copies
   * of their columns, to be transferred (`transferList`). Cloning a million-request trace into the
   * message took a 51 ms task at the Replay click; a copy of its two columns is a few ms.
   */
  private tracesToSend(inputs: RunInputs): { traces?: readonly SimTrace[] } {
    const traces = runTraces(inputs);
    if (traces === this.sentTraces) return {};
    this.sentTraces = traces;
    return {
      traces: traces.map((t) => ({ ...t, timeMs: t.timeMs.slice(), keyId: t.keyId.slice() })),
    };
  }

  /** A run computed here made any answer still on its way stale. */
  cancel(): void {
    if (this.requested === null) return;
    this.gen += 1;
    this.requested = null;
    this.notify(IDLE);
  }

  private ensureWorker(): Worker | null {
    if (this.worker !== null || !this.available) return this.worker;
    try {
      this.worker = new Worker(new URL('./sim.worker.ts', import.meta.url), { type: 'module' });
    } catch {
      this.failed = true;
      return null;
    }
    this.wire = import('./simWire').then(
      (wire) => {
        this.pieces = new wire.HeldPieces();
      },
      () => this.workerFailed(),
    );
    // In arrival order: answers that come before the chunk wait for it, in one promise chain.
    this.worker.onmessage = (e: MessageEvent<SimAnswer>) => {
      if (this.pieces !== null) this.answer(e.data, this.pieces);
      else
        void this.wire.then(() => {
          if (this.pieces !== null) this.answer(e.data, this.pieces);
        });
    };
    // A worker that cannot load (a file:// page, a strict CSP): compute here from now on.
    this.worker.onerror = () => this.workerFailed();
    return this.worker;
  }

  private workerFailed(): void {
    this.failed = true;
    this.worker?.terminate();
    this.worker = null;
    this.requested = null;
    this.sentTraces = [];
    this.notify(IDLE, true);
  }

  private answer(a: SimAnswer, pieces: HeldPieces): void {
    // Kept even when stale: the page may have said it holds nothing newer (dropped at keepOnly).
    if (a.type === 'piece') {
      pieces.accept(a.piece);
      return;
    }
    const inputs = this.requested;
    if (a.gen !== this.gen || inputs === null) return; // stale: a newer edit was sent since
    if (a.type === 'progress') {
      this.notify({ pending: true, progress: a.fraction });
      return;
    }
    this.requested = null;
    const s = this.api.getState();
    if (sameRun(inputs, s)) {
      let outcome: SimOutcome;
      if (a.outcome.ok) {
        const result = pieces.assemble(a.outcome);
        if (result === null) {
          // A piece the page said it held is gone: ask again, holding nothing.
          pieces.clear();
          this.request(inputs);
          return;
        }
        outcome = { ok: true, result };
      } else outcome = { ok: false, issues: a.outcome.issues };
      rememberOutcome(inputs, outcome);
    }
    // No request is in flight now: keep only what the page shows.
    const shown = lastRun()?.outcome;
    if (shown?.ok === true) pieces.keepOnly(shown.result);
    this.notify(IDLE, true);
  }
}

/** The buffers of a request's trace copies (made for it alone), moved to the worker. */
function transferList(message: SimRequest): ArrayBuffer[] {
  return (message.traces ?? []).flatMap((t) => [
    t.timeMs.buffer as ArrayBuffer,
    t.keyId.buffer as ArrayBuffer,
  ]);
}

const HOLDING_NOTHING: HeldKeys = { traffic: [], lanes: [] };

const runners = new WeakMap<PlaygroundStoreApi, SimRunner>();

/** The runner of a store (made on first use). */
export function runnerFor(api: PlaygroundStoreApi): SimRunner {
  let runner = runners.get(api);
  if (runner === undefined) {
    runner = new SimRunner(api);
    runners.set(api, runner);
  }
  return runner;
}
