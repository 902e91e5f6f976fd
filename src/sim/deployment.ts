/**
 * Where a lane's limiter state lives and how instances reach it: local per instance, one shared
 * store updated atomically, or a shared store read at arrival and written back a round trip later.
 * The same engine runs the simulation and the replays behind seeking, so both decide alike.
 */
import { createLimiter, createSharedLimiter } from '../core';
import type { AlgorithmConfig, Decision, KeyState, Limiter } from '../core';
import { DRAW_BALANCE } from './clients';
import { hash32 } from './random';
import type { Deployment } from './types';

/**
 * Bytes one in-flight write takes beyond its key state's own size (core stateSize): the write
 * object (header and three fields), the state object's header and boxed numbers, the queue slot.
 * Measured with `npm run bench` (retained memory); 64-bit V8 without pointer compression (Node) is
 * the larger case, browsers compress pointers.
 */
export const WRITE_OVERHEAD_BYTES = 160;
/**
 * What a write of a state that holds a list (a sliding log's times, calendar windows' counters)
 * takes beyond that: the list's own array object and its backing store's header, which core
 * stateSize (8 bytes an entry) leaves out. Without it the racy sliding-log extreme of `BENCH=memory`
 * retained 1.01× its estimate (the estimate must be exact or above).
 */
export const LIST_STATE_BYTES = 64;
/** Bytes of one reference in a list (a snapshot's copy of the in-flight writes). */
const REF_BYTES = 8;

/** A racy instance's write of one key's state, landing at `atMs`. */
interface PendingWrite {
  atMs: number;
  key: string;
  /** Never mutated once queued (setState copies), so snapshots may share it. */
  state: KeyState | undefined;
}

/** A copy of an engine's state: the stores and the writes still in flight. */
export interface EngineSnapshot {
  stores: Limiter[];
  writes: PendingWrite[];
}

export class LaneEngine {
  /** Local: one per instance. Shared: one. */
  readonly stores: Limiter[];
  private readonly racy: boolean;
  private readonly local: boolean;
  private readonly roundTripMs: number;
  /** Rejected requests change state only for a sliding log that logs them. */
  private readonly writesOnReject: boolean;
  /** Racy: the instance's working copy of one key at a time. */
  private readonly scratch: Limiter | null;
  private scratchKey: string | null = null;
  /** Racy: writes in flight, by landing time (reads happen in time order, so a FIFO). */
  private writes: PendingWrite[] = [];
  private writeHead = 0;
  /**
   * Racy: writes queued since the last `takeWriteCharge`, and the largest estimated bytes of one of
   * them, so the run can charge the writes a checkpoint keeps alive (memory budget).
   */
  private writesSince = 0;
  private maxWriteBytesSince = 0;
  /** Bytes a write takes beyond its state's stateSize (WRITE_OVERHEAD_BYTES, LIST_STATE_BYTES). */
  private readonly writeOverhead: number;

  constructor(
    readonly config: AlgorithmConfig,
    readonly deployment: Deployment,
    from?: EngineSnapshot,
    /** The epoch ms time 0 stands for (createLimiter's originMs; snapshots keep their own). */
    originMs = 0,
  ) {
    this.local = deployment.state === 'local';
    this.racy = deployment.state === 'shared-racy';
    this.roundTripMs = deployment.roundTripMs;
    this.writesOnReject = config.kind === 'sliding-log' && config.logRejected === true;
    this.writeOverhead =
      WRITE_OVERHEAD_BYTES +
      (config.kind === 'sliding-log' || config.kind === 'calendar-windows' ? LIST_STATE_BYTES : 0);
    const n = this.local ? deployment.instances : 1;
    if (from !== undefined) {
      this.stores = from.stores.map((s) => s.clone());
      this.writes = from.writes.slice();
    } else {
      this.stores = [];
      // One store every instance shares, unless state is local (createSharedLimiter: Traefik's
      // shared bucket is its Redis limiter's).
      const make = this.local ? createLimiter : createSharedLimiter;
      for (let i = 0; i < n; i += 1) this.stores.push(make(config, { originMs }));
    }
    this.scratch = this.racy ? createSharedLimiter(config, { originMs }) : null;
  }

  /** Lands every write due at or before `tMs` (a write lands before a read at the same instant). */
  flush(tMs: number): void {
    const writes = this.writes;
    if (this.writeHead === writes.length) return;
    const store = this.stores[0] as Limiter;
    while (this.writeHead < writes.length) {
      const w = writes[this.writeHead] as PendingWrite;
      if (w.atMs > tMs) break;
      store.setState(w.key, w.state);
      this.writeHead += 1;
    }
    if (this.writeHead === writes.length) {
      writes.length = 0;
      this.writeHead = 0;
    } else if (this.writeHead > 1024 && this.writeHead * 2 > writes.length) {
      this.writes = writes.slice(this.writeHead);
      this.writeHead = 0;
    }
  }

  /** Decides a request arriving at virtual `tMs` (wall `wallMs`) at `instance` for `key`. */
  decide(tMs: number, wallMs: number, instance: number, key: string): Decision {
    if (!this.racy) return (this.stores[this.local ? instance : 0] as Limiter).decide(wallMs, key);
    return this.decideRacy(tMs, wallMs, key, false);
  }

  /** Racy: read the store's state of `key`, decide on the copy, queue the write (see decide). */
  private decideRacy(tMs: number, wallMs: number, key: string, reused: boolean): Decision {
    this.flush(tMs);
    const store = this.stores[0] as Limiter;
    const scratch = this.scratch as Limiter;
    if (this.scratchKey !== null && this.scratchKey !== key)
      scratch.setState(this.scratchKey, undefined);
    this.scratchKey = key;
    scratch.setState(key, store.getState(key));
    // The scratch limiter's reused Decision, or one of its own (decideKey, decide).
    const d = reused ? scratch.decideKey(wallMs, key, -1) : scratch.decide(wallMs, key);
    if (d.outcome !== 'reject' || this.writesOnReject) {
      this.writes.push({ atMs: tMs + this.roundTripMs, key, state: scratch.getState(key) });
      this.writesSince += 1;
      const bytes = this.writeOverhead + scratch.stateSize(wallMs, key).bytes;
      if (bytes > this.maxWriteBytesSince) this.maxWriteBytesSince = bytes;
    }
    return d;
  }

  /**
   * Lets the stores find a key by its index (Limiter.useKeyIndex) and returns true; a racy engine
   * declines (false): its store's keys change through landed writes, by name.
   */
  useKeyIndex(index: ReadonlyMap<string, number>): boolean {
    if (this.racy) return false;
    for (const s of this.stores) s.useKeyIndex(index);
    return true;
  }

  /**
   * `decide` with the key's index `k` (useKeyIndex, or -1) and without a Decision of its own: the
   * one returned is the deciding limiter's, reused (it holds until the engine decides again).
   */
  decideKey(tMs: number, wallMs: number, instance: number, key: string, k: number): Decision {
    if (!this.racy)
      return (this.stores[this.local ? instance : 0] as Limiter).decideKey(wallMs, key, k);
    return this.decideRacy(tMs, wallMs, key, true);
  }

  /** Writes read but not yet landed. */
  get inFlight(): number {
    return this.writes.length - this.writeHead;
  }

  /**
   * Bytes a snapshot taken now keeps alive beyond earlier snapshots: its list of in-flight writes
   * (a reference each) and the writes queued since the last call that are still in flight (each
   * charged as the largest of them). Conservative: a write is charged once, even if it lands
   * before the snapshot that charged it is dropped.
   */
  takeWriteCharge(): number {
    const inFlight = this.inFlight;
    const fresh = Math.min(inFlight, this.writesSince);
    const bytes = inFlight * REF_BYTES + fresh * this.maxWriteBytesSince;
    this.writesSince = 0;
    this.maxWriteBytesSince = 0;
    return bytes;
  }

  /** An independent copy of the stores and in-flight writes. */
  snapshot(): EngineSnapshot {
    return {
      stores: this.stores.map((s) => s.clone()),
      writes: this.writes.slice(this.writeHead),
    };
  }
}

/** Picks an instance per attempt. Round-robin counts this lane's attempts; random draws per attempt. */
export function balancer(
  deployment: Deployment,
  seed: number,
): (origin: number, attempt: number) => number {
  const n = deployment.instances;
  if (n === 1) return () => 0;
  if (deployment.balancer === 'random') {
    // Keyed by (origin, attempt): a first attempt goes to the same instance in every lane.
    return (origin, attempt) => hash32(seed, DRAW_BALANCE, origin, attempt) % n;
  }
  let next = 0;
  return () => {
    const i = next;
    next = next + 1 === n ? 0 : next + 1;
    return i;
  };
}
