/**
 * The state of every limiter at any virtual time, for drawing: restore the nearest checkpoint at or
 * before t and replay the recorded rows up to t through the same engine the simulation used. A
 * cursor per lane makes playing forward incremental (no restore while t only grows).
 */
import { createLimiter, createSharedLimiter } from '../core';
import type { AlgorithmConfig, Inspection, KeyState, Limiter, StateSize } from '../core';
import { LaneEngine } from './deployment';
import type { EngineSnapshot } from './deployment';
import { WallClock } from './clock';
import { FleetEngine, isFleet } from './fleet';
import type { FleetSnapshot } from './fleet';
import { attachInternals, hasInternals, internalsOf } from './internal';
import type { Checkpoint, LaneInternals, ResultKeys } from './internal';
import { rowsDecidedBy } from './query';
import { CHECKPOINT_EVERY } from './simulate';
import { WHY_BATCHED, WHY_DOWN_LOCAL, WHY_LAYER_LOCAL, WHY_REPLICA, WHY_STORE } from './types';
import type { LaneResult, SimResult } from './types';

/** One store's state for one key. Plain data: safe to keep after the next seek. */
export interface StoreState {
  /** The instance whose local state this is, or null for the shared store. */
  instance: number | null;
  inspection: Inspection;
  stateSize: StateSize;
  /** Keys holding state in this store. */
  keysHeld: number;
}

export interface LaneState {
  lane: number;
  name: string;
  /** The time the limiters were given at t (differs from t with a jumping wall clock). */
  wallMs: number;
  /** Rows decided at or before t: rows [0, decided). */
  decided: number;
  /** One per instance for local state, one for shared state. */
  stores: StoreState[];
  /** shared-racy: writes read but not yet landed at t; batched fleets: admits not yet synced. */
  inFlightWrites: number;
  /** Fleets: replicas alive at t. */
  replicas?: number;
}

/** Every lane at virtual time `tMs`, for `key`. */
export interface SimState {
  tMs: number;
  key: string;
  lanes: LaneState[];
}

interface Cursor {
  engine: LaneEngine | FleetEngine;
  /** Next row to replay. */
  row: number;
  /** Writes due at or before this time have landed. */
  flushedMs: number;
}

/**
 * Every event happens at a whole ms, so the state at a fractional t (an animation frame) is the
 * state at ⌊t⌋.
 */
function wholeMs(tMs: number): number {
  if (!Number.isFinite(tMs)) throw new RangeError(`tMs must be a finite time, got ${tMs}`);
  return Math.floor(tMs);
}

/** Index of the last checkpoint with row ≤ `row`, or −1. */
function checkpointBefore(checkpoints: readonly Checkpoint[], row: number): number {
  let lo = 0;
  let hi = checkpoints.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((checkpoints[mid] as Checkpoint).row <= row) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * Seeks a result. Keep one per result (`seekerFor` does): it holds one cursor per lane, so a run of
 * increasing times replays only the rows in between.
 */
export class Seeker {
  private readonly clock: WallClock;
  private readonly internals: LaneInternals[];
  private readonly cursors: Array<Cursor | null>;
  private readonly useCheckpoints: boolean;

  /** `useCheckpoints: false` replays from zero every time (slow; for tests and comparison). */
  constructor(
    readonly result: SimResult,
    options: { useCheckpoints?: boolean } = {},
  ) {
    const internals = internalsOf(result);
    this.clock = internals.clock;
    this.internals = internals.lanes;
    this.cursors = result.lanes.map(() => null);
    this.useCheckpoints = options.useCheckpoints ?? true;
  }

  /** Moves lane `i`'s cursor to virtual time tMs (a whole ms) and returns its engine. */
  private advance(i: number, tMs: number): { engine: LaneEngine | FleetEngine; decided: number } {
    const cols = (this.result.lanes[i] as LaneResult).columns;
    return this.advanceTo(i, rowsDecidedBy(cols, tMs), tMs);
  }

  /**
   * Moves lane `i`'s cursor to just after row `target − 1` (rows [0, target) decided), with every
   * write due at or before tMs landed, and returns its engine.
   */
  private advanceTo(
    i: number,
    target: number,
    tMs: number,
  ): { engine: LaneEngine | FleetEngine; decided: number } {
    const lane = this.result.lanes[i] as LaneResult;
    const cols = lane.columns;
    const checkpoints = this.useCheckpoints ? (this.internals[i] as LaneInternals).checkpoints : [];
    const cpIndex = checkpointBefore(checkpoints, target);
    const cpRow = cpIndex >= 0 ? (checkpoints[cpIndex] as Checkpoint).row : 0;
    let cursor = this.cursors[i] ?? null;
    const reusable =
      cursor !== null && cursor.row <= target && cursor.row >= cpRow && cursor.flushedMs <= tMs;
    if (!reusable || cursor === null) {
      const { deployment, seed } = this.result.scenario;
      const snap = cpIndex >= 0 ? (checkpoints[cpIndex] as Checkpoint).snapshot : undefined;
      const engine = isFleet(deployment)
        ? new FleetEngine(
            lane.config,
            deployment,
            seed,
            this.result.keyNames.length,
            false,
            snap as FleetSnapshot | undefined,
            this.result.originMs ?? 0,
          )
        : new LaneEngine(
            lane.config,
            deployment,
            snap as EngineSnapshot | undefined,
            this.result.originMs ?? 0,
          );
      cursor = { engine, row: cpRow, flushedMs: Number.NEGATIVE_INFINITY };
      this.cursors[i] = cursor;
    }
    const { engine } = cursor;
    const { keyNames, arrivals } = this.result;
    const clientKey = lane.clientKey ?? this.result.clientKey;
    const wallAt = this.clock.cursor();
    const laneInternals = this.internals[i] as LaneInternals;
    const record = this.useCheckpoints && laneInternals.lazy === true;
    const every = laneInternals.every;
    const lastRow = checkpoints.at(-1)?.row ?? 0;
    // A cursor flushed at its last time may hold writes landed later than row `cursor.row`'s
    // checkpoint would: record from the second row replayed on (or at once after a restore).
    const startRow = cursor.flushedMs === Number.NEGATIVE_INFINITY ? -1 : cursor.row;
    const oneZero = cols.instance.length < target;
    // Rows the lane decided without its limiter (a trace's empty key) changed no state.
    // By key: the empty-key requests a trace keeps addresses for are clients of their own.
    const emptyKey = lane.emptyKey === undefined ? -1 : (clientKey[lane.emptyKey.client] as number);
    for (let r = cursor.row; r < target; r += 1) {
      if (record && r % every === 0 && r > lastRow && r > startRow) {
        checkpoints.push({ row: r, snapshot: engine.snapshot(), bytes: 0 });
      }
      const t = cols.arrivalMs[r] as number;
      const origin = cols.origin[r] as number;
      const client = arrivals.client[origin] as number;
      const keyIndex = clientKey[client] as number;
      if (keyIndex === emptyKey) continue;
      const instance = oneZero ? 0 : (cols.instance[r] as number);
      const key = keyNames[keyIndex] as string;
      if (engine instanceof FleetEngine)
        engine.decide(t, wallAt(t), instance, key, origin, cols.attempt[r] as number);
      else engine.decide(t, wallAt(t), instance, key);
    }
    cursor.row = target;
    engine.flush(tMs);
    cursor.flushedMs = tMs;
    return { engine, decided: target };
  }

  /**
   * The live stores of lane `lane` at tMs. They belong to the seeker: read them (inspect, keys,
   * stateSize) before the next call, never decide on them.
   */
  storesAt(lane: number, tMs: number): readonly Limiter[] {
    if (this.result.lanes[lane] === undefined) throw new RangeError(`no lane ${lane}`);
    return this.advance(lane, wholeMs(tMs)).engine.stores;
  }

  /**
   * The live stores of lane `lane` just before row `row` was decided: every earlier row decided
   * (including those at the same ms), every write due by its arrival landed. With the store the row
   * went to and the wall time the limiter saw, for explaining one decision. Read before the next call.
   * A row a replica decided on its batched copy of the store gets that copy, after the live stores.
   */
  storesBefore(
    lane: number,
    row: number,
  ): { stores: readonly Limiter[]; store: number; wallMs: number } {
    const l = this.result.lanes[lane];
    if (l === undefined || row < 0 || row >= l.columns.rows) {
      throw new RangeError(`no row ${row} in lane ${lane}`);
    }
    const tMs = l.columns.arrivalMs[row] as number;
    const { engine } = this.advanceTo(lane, row, tMs);
    const local = this.result.scenario.deployment.state === 'local';
    const instance = l.columns.instance[row] ?? 0;
    let store = local ? instance : 0;
    if (engine instanceof FleetEngine) {
      const why = l.fleet?.why[row] ?? WHY_REPLICA;
      // A batched row was decided on the replica's own copy of the store, not on the store.
      const r = this.result;
      const copy =
        why === WHY_BATCHED
          ? engine.batchedCopy(
              instance,
              r.keyNames[
                (l.clientKey ?? r.clientKey)[
                  r.arrivals.client[l.columns.origin[row] as number] as number
                ] as number
              ] as string,
            )
          : undefined;
      if (copy !== undefined)
        return {
          stores: [...engine.stores, copy],
          store: engine.stores.length,
          wallMs: this.clock.wallAt(tMs),
        };
      const replicaDecided =
        why === WHY_REPLICA || why === WHY_LAYER_LOCAL || why === WHY_DOWN_LOCAL;
      const stores = engine.stores;
      store =
        replicaDecided || stores.length === 1
          ? Math.min(instance, stores.length - 1)
          : stores.length - 1;
    }
    return {
      stores: engine.stores,
      store,
      wallMs: this.clock.wallAt(tMs),
    };
  }

  /**
   * Per lane, built on first use: the rows of each key, in row order (`rows` from `start[k]` to
   * `start[k + 1]`), so a key's history is read without scanning every other key's rows.
   */
  private readonly keyRows: Array<{ start: Int32Array; rows: Int32Array } | undefined> = [];

  private rowsByKey(lane: number): { start: Int32Array; rows: Int32Array } {
    let index = this.keyRows[lane];
    if (index !== undefined) return index;
    const l = this.result.lanes[lane] as LaneResult;
    const { arrivals } = this.result;
    const clientKey = l.clientKey ?? this.result.clientKey;
    const cols = l.columns;
    const n = cols.rows;
    const keyOfRow = new Int32Array(n);
    const start = new Int32Array(this.result.keyNames.length + 1);
    for (let r = 0; r < n; r += 1) {
      const k = clientKey[arrivals.client[cols.origin[r] as number] as number] as number;
      keyOfRow[r] = k;
      start[k + 1] = (start[k + 1] as number) + 1;
    }
    for (let k = 1; k < start.length; k += 1)
      start[k] = (start[k] as number) + (start[k - 1] as number);
    const next = start.slice(0, -1);
    const rows = new Int32Array(n);
    for (let r = 0; r < n; r += 1) {
      const k = keyOfRow[r] as number;
      rows[next[k] as number] = r;
      next[k] = (next[k] as number) + 1;
    }
    index = { start, rows };
    this.keyRows[lane] = index;
    return index;
  }

  /**
   * The key's history at the store row `row` met: the wall times (ms) the limiter was given for
   * every row of lane `lane` that met that same store with the same key, in order, up to and
   * including `row`, and the config that store decides with (a fleet's replicas may run a divided
   * limit). For a system whose answer depends on the whole history (Traefik's float64 bucket).
   *
   * Which store a row met: local state, the instance's own; shared atomic state, the one store. In
   * a fleet, the fleet's record of what decided the row: a replica's own limiter (local limits, the
   * layered fleet's local limit, a replica's fallback while the store is down), whose history starts
   * again when a scale-in removed that replica (its state is lost); or the shared store, which sees
   * exactly the rows it decided. Undefined where no one store holds the row's history: racy shared
   * state (writes land late, in another order), a fleet's batched copies, Kong's reads, the
   * over-limit cache and store outages that decided without a limiter.
   *
   * `shared` is true when that store is the one every instance shares (shared atomic state, a
   * fleet's store): Traefik shares a bucket only through its Redis limiter, which keeps it in
   * another arithmetic than an instance's own x/time/rate bucket.
   */
  keyHistoryUpTo(
    lane: number,
    row: number,
  ): { timesMs: number[]; config: AlgorithmConfig; shared: boolean } | undefined {
    const l = this.result.lanes[lane];
    if (l === undefined || row < 0 || row >= l.columns.rows) {
      throw new RangeError(`no row ${row} in lane ${lane}`);
    }
    const { deployment } = this.result.scenario;
    const cols = l.columns;
    // A lane without its instance column (one instance) sent every row to instance 0.
    const oneZero = cols.instance.length <= row;
    const instanceOf = (r: number) => (oneZero ? 0 : (cols.instance[r] as number));
    const instance = instanceOf(row);
    let meets: (r: number) => boolean;
    let config = l.config;
    let fromMs = Number.NEGATIVE_INFINITY;
    let shared = false;
    if (isFleet(deployment)) {
      const fleet = l.fleet;
      if (fleet === undefined) return undefined;
      const why = fleet.why;
      const w = why[row] as number;
      if (w === WHY_REPLICA || w === WHY_LAYER_LOCAL || w === WHY_DOWN_LOCAL) {
        // The replica's own limiter: every row it took in local and layered fleets (the layered
        // fleet's local limit decides each row first); behind a store, only its fallback's rows.
        const own = deployment.state !== 'shared-atomic';
        meets = (r) => instanceOf(r) === instance && (own || (why[r] as number) === WHY_DOWN_LOCAL);
        config = fleet.replicaConfig;
        // A scale-in below this slot replaced its limiter with a fresh one (FleetEngine.setAlive),
        // before deciding the rows at that same ms.
        const atMs = cols.arrivalMs[row] as number;
        let alive = fleet.replicas[0]?.count ?? deployment.instances;
        for (const change of fleet.replicas) {
          if (change.atMs > atMs) break;
          if (change.count <= instance && alive > instance) fromMs = change.atMs;
          alive = change.count;
        }
      } else if (w === WHY_STORE) {
        meets = (r) => (why[r] as number) === WHY_STORE;
        shared = true;
      } else return undefined;
    } else if (deployment.state === 'shared-racy') {
      return undefined;
    } else if (deployment.state === 'local') {
      meets = (r) => instanceOf(r) === instance;
    } else {
      // Shared atomic state: one store, the shared one even while one instance uses it.
      meets = () => true;
      shared = deployment.state === 'shared-atomic';
    }
    const { arrivals } = this.result;
    const clientKey = l.clientKey ?? this.result.clientKey;
    // Rows the lane decided without its limiter (a trace's empty key) changed no state.
    const emptyKey = l.emptyKey === undefined ? -1 : (clientKey[l.emptyKey.client] as number);
    const key = clientKey[arrivals.client[cols.origin[row] as number] as number] as number;
    const { start, rows } = this.rowsByKey(lane);
    const from = start[key] as number;
    // The row's place in its key's list (rows are ascending there).
    let lo = from;
    let hi = (start[key + 1] as number) - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((rows[mid] as number) < row) lo = mid + 1;
      else hi = mid;
    }
    const wallAt = this.clock.cursor();
    const timesMs: number[] = [];
    if (key === emptyKey) return { timesMs, config, shared };
    for (let i = from; i <= lo; i += 1) {
      const r = rows[i] as number;
      const t = cols.arrivalMs[r] as number;
      if (t < fromMs || !meets(r)) continue;
      timesMs.push(wallAt(t));
    }
    return { timesMs, config, shared };
  }

  /** The wall times of `keyHistoryUpTo` (undefined where it is). */
  keyTimesUpTo(lane: number, row: number): number[] | undefined {
    return this.keyHistoryUpTo(lane, row)?.timesMs;
  }

  /** Every lane's state for `key` (default: the first key) at virtual time tMs. */
  stateAt(timeMs: number, key: string = this.result.keyNames[0] as string): SimState {
    const tMs = wholeMs(timeMs);
    const lanes = this.result.lanes.map((_, i) => this.laneStateAt(i, tMs, key));
    return { tMs, key, lanes };
  }

  /**
   * Lane `i`'s state for `key` at virtual time tMs: `stateAt(tMs, key).lanes[i]`, advancing that
   * lane's cursor only (a page that draws two lanes of six moves two cursors a frame).
   */
  laneStateAt(
    i: number,
    timeMs: number,
    key: string = this.result.keyNames[0] as string,
  ): LaneState {
    const lane = this.result.lanes[i];
    if (lane === undefined) throw new RangeError(`no lane ${i}`);
    const tMs = wholeMs(timeMs);
    const wallMs = this.clock.wallAt(tMs);
    const local = this.result.scenario.deployment.state === 'local';
    const { engine, decided } = this.advance(i, tMs);
    return {
      lane: i,
      name: lane.name,
      wallMs,
      decided,
      stores: engine.stores.map((store, s) => ({
        instance: engine instanceof FleetEngine ? engine.storeOwner(s) : local ? s : null,
        inspection: store.inspect(wallMs, key),
        stateSize: store.stateSize(wallMs, key),
        keysHeld: store.size,
      })),
      inFlightWrites: engine.inFlight,
      ...(engine instanceof FleetEngine ? { replicas: engine.replicaCount } : {}),
    };
  }
}

/**
 * A result's checkpoints as plain data, to send along with the result to another thread: each
 * store as its keys' states (getState) in the store's own order, and the writes in flight. A
 * checkpoint's stores are clones, whose key order is the order to restore them in (for nginx's
 * zone: least recently used first), so `adoptResult` rebuilds stores that decide alike.
 */
export interface PortableCheckpoints {
  lanes: PortableLane[];
}

/** One lane's checkpoints as plain data. */
export interface PortableLane {
  every: number;
  checkpoints: Array<{
    row: number;
    bytes: number;
    stores: Array<Array<[string, KeyState]>>;
    writes: EngineSnapshot['writes'];
  }>;
}

/**
 * Key states the checkpoints sent with one result hold at most (all lanes). The page rebuilds each
 * one from the message in a single task (about 1.5 µs a state in Chromium here): a replayed access
 * log with 65,536 keys sent 230,000 of them, half a second of main thread. Fewer
 * checkpoints only make a seek replay more rows from the nearest one (at most the rows between two
 * kept checkpoints: tens of thousands, a few ms at millions of decisions a second); the states
 * drawn are the same.
 */
export const PORTABLE_KEY_STATES = 20_000;
/**
 * Checkpoints one lane sends at most. Each is a few objects for the page to rebuild and collect: a
 * 1,000,000-row lane has about 2,000 (every 512 rows), which took 7–14 ms to clone and as long to
 * collect on the page per edit. 256 of them leave a seek at most 8 checkpoints' rows to
 * replay (4,096 rows at the default spacing: well under a millisecond).
 */
export const PORTABLE_CHECKPOINTS = 256;

export function portableCheckpoints(
  result: SimResult,
  maxKeyStates = Number.POSITIVE_INFINITY,
): PortableCheckpoints {
  // A fleet's snapshots hold replicas, a store, batches and caches: its result is adopted without
  // them, and the seeker records checkpoints as it replays (adoptResult's lazy mode).
  if (isFleet(result.scenario.deployment)) return { lanes: [] };
  const lanes = internalsOf(result).lanes;
  const perLane = maxKeyStates / Math.max(1, lanes.length);
  return { lanes: lanes.map((_, i) => portableLane(result, i, perLane) as PortableLane) };
}

/** One lane's part of `portableCheckpoints`, with at most `maxKeyStates` key states (null: a fleet). */
export function portableLane(
  result: SimResult,
  i: number,
  maxKeyStates = Number.POSITIVE_INFINITY,
): PortableLane | null {
  if (isFleet(result.scenario.deployment)) return null;
  const lane = internalsOf(result).lanes[i];
  if (lane === undefined) throw new RangeError(`no lane ${i}`);
  const sizes = lane.checkpoints.map((cp) =>
    (cp.snapshot as EngineSnapshot).stores.reduce((a, store) => {
      let n = 0;
      const keys = store.keys();
      while (keys.next().done !== true) n += 1;
      return a + n;
    }, 0),
  );
  // Every stride-th checkpoint (the first, the smallest, always kept), the stride doubled
  // until they fit, in key states and in number.
  let stride = 1;
  const keptSize = () => sizes.reduce((a, n, j) => (j % stride === 0 ? a + n : a), 0);
  while (
    stride < sizes.length &&
    (Math.ceil(sizes.length / stride) > PORTABLE_CHECKPOINTS || keptSize() > maxKeyStates)
  )
    stride *= 2;
  const kept = lane.checkpoints.filter((_, j) => j % stride === 0);
  return {
    every: lane.every,
    checkpoints: kept.map((cp) => ({
      row: cp.row,
      bytes: cp.bytes,
      stores: (cp.snapshot as EngineSnapshot).stores.map((store) =>
        [...store.keys()].map((key): [string, KeyState] => [key, store.getState(key) as KeyState]),
      ),
      writes: (cp.snapshot as EngineSnapshot).writes,
    })),
  };
}

/** What seeking lane `i` of a result uses (to hand to `adoptResult` for the same lane elsewhere). */
export function laneSeekData(result: SimResult, i: number): LaneInternals {
  const lane = internalsOf(result).lanes[i];
  if (lane === undefined) throw new RangeError(`no lane ${i}`);
  return lane;
}

/**
 * Makes a result that was copied from another thread (a worker's `simulate`, structured-cloned)
 * seekable here. With its `portableCheckpoints` (or a lane's `kept` seek data), each checkpoint's stores are rebuilt the first time
 * a seek restores it; without them, the seeker records new checkpoints as it replays (every
 * `every` rows, at most ~256 per lane). Returns the same object; a result of this thread's
 * `simulate` is returned unchanged. The states it draws are the same either way.
 */
export function adoptResult(
  result: SimResult,
  portable?: PortableCheckpoints,
  options: {
    /** Lanes this thread already holds (the same lane result): their seek data, used as it is. */
    kept?: ReadonlyArray<LaneInternals | undefined>;
    /** The content keys the result was made with (`resultKeys` on the other thread). */
    keys?: ResultKeys;
  } = {},
): SimResult {
  if (hasInternals(result)) return result;
  const { kept, keys } = options;
  attachInternals(result, {
    ...(keys === undefined ? {} : { keys }),
    clock: new WallClock(result.scenario.clock),
    lanes: result.lanes.map((lane, i) => {
      const held = kept?.[i];
      if (held !== undefined) return held;
      const given = portable?.lanes[i];
      if (given === undefined) {
        return {
          checkpoints: [],
          every: Math.max(CHECKPOINT_EVERY, Math.ceil(lane.columns.rows / 256)),
          lazy: true,
        };
      }
      return {
        every: given.every,
        checkpoints: given.checkpoints.map((cp): Checkpoint => {
          let snapshot: EngineSnapshot | null = null;
          return {
            row: cp.row,
            bytes: cp.bytes,
            get snapshot(): EngineSnapshot {
              snapshot ??= {
                stores: cp.stores.map((entries) => {
                  // As LaneEngine makes them: shared state's store is createSharedLimiter's.
                  const at = { originMs: result.originMs ?? 0 };
                  const store =
                    result.scenario.deployment.state === 'local'
                      ? createLimiter(lane.config, at)
                      : createSharedLimiter(lane.config, at);
                  for (const [key, state] of entries) store.setState(key, state);
                  return store;
                }),
                writes: cp.writes,
              };
              return snapshot;
            },
          };
        }),
      };
    }),
  });
  return result;
}

const seekers = new WeakMap<SimResult, Seeker>();

/** The shared seeker of a result (made on first use). */
export function seekerFor(result: SimResult): Seeker {
  let seeker = seekers.get(result);
  if (seeker === undefined) {
    seeker = new Seeker(result);
    seekers.set(result, seeker);
  }
  return seeker;
}

/** Every lane's state for `key` at virtual time tMs, via the result's shared seeker. */
export function stateAt(result: SimResult, tMs: number, key?: string): SimState {
  return seekerFor(result).stateAt(tMs, key);
}
