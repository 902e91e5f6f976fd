/**
 * What the lane loops share (simulate.ts runs fleets, lanePlain.ts everything else): the growable
 * columns, the retry queue, the checkpoints with the memory budget, and the lane's inputs and
 * outputs. Split from simulate.ts so the single-limiter loop can live in a small function of its
 * own (V8 inlines the decision path into a loop it can see whole).
 */
import type { AlgorithmConfig, Decision } from '../core';
import type { WallClock } from './clock';
import type { EngineSnapshot } from './deployment';
import type { FleetSnapshot } from './fleet';
import type { Checkpoint, LaneInternals } from './internal';
import type { LaneRunStats } from './metrics';
import type { StateTracker } from './state-tracker';
import type { ArrivalTable, EmptyKeyLaneOutcome, LaneColumns, LaneFleet, Scenario } from './types';

/**
 * Rows between checkpoints to start with; doubled (and every other checkpoint dropped) when a
 * lane's checkpoints pass their share of CHECKPOINT_BUDGET_BYTES. Replaying 512 rows in each of six
 * lanes takes about half a millisecond here.
 */
export const CHECKPOINT_EVERY = 512;
/**
 * The widest checkpoint spacing, in rows: thinning stops here (a run that would need wider is cut
 * by the memory budget instead), so seeking replays at most this many rows per lane.
 */
export const MAX_CHECKPOINT_EVERY = 4096;
/** Bytes of one row of a lane's columns: outcome, remaining, waitMs and resetMs (32-bit until widened). */
export const ROW_BYTES_OWN_FIRST = 4 + 4 + 1;
export const ROW_BYTES = 1 + 4 + 4 + 4;
/** What widening waitMs and resetMs to 64 bits adds to a row. */
export const ROW_BYTES_WIDE = 8;
export const INT32_MAX = 2147483647;
/**
 * Bytes a key costs in a checkpoint beyond its state (Map entry, object headers, boxed numbers):
 * measured with `npm run bench` (retained memory of 64 instances × 10,000 keys) on 64-bit Node,
 * which does not compress pointers as browsers do.
 */
export const KEY_OVERHEAD_BYTES = 160;
/** Rows between checks whether a fleet's oracle holds the store's state again (see runLane). */
export const RESYNC_ROWS = 4096;
/** Keys a run may address by index in its limiters (each limiter then keeps an array this long). */
export const MAX_SLOT_KEYS = 4096;
/** Bytes of a checkpoint's own objects (the snapshot, its store list, the stores' maps). */
export const SNAPSHOT_OVERHEAD_BYTES = 1024;

/** Rows a finished lane keeps allocated for `rows` rows (ColumnBuilder.finish trims to this). */
export function keptRows(rows: number): number {
  return rows + (rows >> 3) + 1024;
}

/** Rows between progress reports. */
export const PROGRESS_ROWS = 65_536;

/** A binary min-heap of scheduled retries, ordered by (time, scheduling order). */
export class RetryQueue {
  private time: number[] = [];
  private seq: number[] = [];
  private origin: number[] = [];
  private attempt: number[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.time.length;
  }

  peekTime(): number {
    return this.time.length > 0 ? (this.time[0] as number) : Number.POSITIVE_INFINITY;
  }

  peekOrigin(): number {
    return this.origin[0] as number;
  }

  peekAttempt(): number {
    return this.attempt[0] as number;
  }

  private less(i: number, j: number): boolean {
    const ti = this.time[i] as number;
    const tj = this.time[j] as number;
    return ti < tj || (ti === tj && (this.seq[i] as number) < (this.seq[j] as number));
  }

  private swap(i: number, j: number): void {
    for (const a of [this.time, this.seq, this.origin, this.attempt]) {
      const x = a[i] as number;
      a[i] = a[j] as number;
      a[j] = x;
    }
  }

  push(time: number, origin: number, attempt: number): void {
    this.time.push(time);
    this.seq.push(this.nextSeq++);
    this.origin.push(origin);
    this.attempt.push(attempt);
    let i = this.time.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      this.swap(i, p);
      i = p;
    }
  }

  pop(): void {
    const last = this.time.length - 1;
    if (last > 0) this.swap(0, last);
    this.time.pop();
    this.seq.pop();
    this.origin.pop();
    this.attempt.pop();
    const n = this.time.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
}

/**
 * Columns every lane can share instead of storing: without retries a lane's rows are the first
 * attempts one for one (arrival, origin, attempt 1), and with one instance every row goes to 0.
 */
export interface SharedColumns {
  firstAttempts: { arrivalMs: Int32Array; origin: Int32Array; attempt: Uint8Array } | null;
  /** One instance: the lanes get one all-zero column, sized after the run. */
  oneInstance: boolean;
}

/**
 * Memory for a lane's own row columns: an ArrayBuffer of exactly `bytes` bytes, all zero, or null
 * for a fresh one (see installColumnMemory).
 */
export type ColumnMemory = (bytes: number) => ArrayBuffer | null;
let columnMemory: ColumnMemory | null = null;

/**
 * Where ColumnBuilder's own columns get their memory: fresh (`new`, zeros) unless a source is
 * installed. The simulation worker installs one that hands out the page's spent column buffers
 * (on the bench machine the first writes to 13 MB of fresh memory, a 1,000,000-row
 * lane's columns, cost ~45 ms of page faults per edit; written again, under 1 ms). The columns
 * start as zeros either way, so results are the same.
 */
export function installColumnMemory(source: ColumnMemory | null): void {
  columnMemory = source;
}

function zeroedBuffer(bytes: number): ArrayBuffer | null {
  const b = columnMemory === null ? null : columnMemory(bytes);
  return b !== null && b.byteLength === bytes ? b : null;
}

function int32Zeros(n: number): Int32Array {
  const b = zeroedBuffer(n * 4);
  return b === null ? new Int32Array(n) : new Int32Array(b);
}

function uint8Zeros(n: number): Uint8Array {
  const b = zeroedBuffer(n);
  return b === null ? new Uint8Array(n) : new Uint8Array(b);
}

/** A copy of `a` with room for `capacity` values (or cut to it). */
export function resized<T extends Int32Array | Uint8Array | Float64Array>(
  a: T,
  capacity: number,
): T {
  const b = new (a.constructor as new (n: number) => T)(capacity);
  b.set(a.subarray(0, Math.min(a.length, capacity)));
  return b;
}

/**
 * Growable lane columns; shared columns are referenced, never written or resized. Fields are
 * assigned by name only (no computed keys), so the object keeps one fast shape in the hot loop.
 */
export class ColumnBuilder {
  arrivalMs: Int32Array;
  origin: Int32Array;
  attempt: Uint8Array;
  outcome: Uint8Array;
  instance: Uint8Array;
  waitMs: Int32Array | Float64Array;
  remaining: Int32Array;
  resetMs: Int32Array | Float64Array;
  /** Fleet lanes only (empty otherwise): WHY_* per row, store round trip, beyond the global limit. */
  why: Uint8Array;
  storeMs: Int32Array;
  beyond: Uint8Array;
  private readonly ownFirst: boolean;
  private readonly ownInstance: boolean;

  constructor(
    public capacity: number,
    private readonly max: number,
    shared: SharedColumns,
    private readonly fleet = false,
  ) {
    const first = shared.firstAttempts;
    const fleetCapacity = fleet ? capacity : 0;
    this.why = new Uint8Array(fleetCapacity);
    this.storeMs = new Int32Array(fleetCapacity);
    this.beyond = new Uint8Array(fleetCapacity);
    this.ownFirst = first === null;
    this.ownInstance = !shared.oneInstance;
    this.arrivalMs = first?.arrivalMs ?? new Int32Array(capacity);
    this.origin = first?.origin ?? new Int32Array(capacity);
    this.attempt = first?.attempt ?? new Uint8Array(capacity);
    this.instance = this.ownInstance ? uint8Zeros(capacity) : new Uint8Array(0);
    this.outcome = uint8Zeros(capacity);
    this.waitMs = int32Zeros(capacity);
    this.remaining = int32Zeros(capacity);
    this.resetMs = int32Zeros(capacity);
  }

  /** Grows to at least one more row (up to `max`). */
  grow(): void {
    this.resize(Math.min(this.max, Math.max(1024, this.capacity * 2)));
  }

  private resize(capacity: number): void {
    if (this.ownFirst) {
      this.arrivalMs = resized(this.arrivalMs, capacity);
      this.origin = resized(this.origin, capacity);
      this.attempt = resized(this.attempt, capacity);
    }
    if (this.ownInstance) this.instance = resized(this.instance, capacity);
    this.outcome = resized(this.outcome, capacity);
    this.waitMs = resized(this.waitMs, capacity);
    this.remaining = resized(this.remaining, capacity);
    this.resetMs = resized(this.resetMs, capacity);
    if (this.fleet) {
      this.why = resized(this.why, capacity);
      this.storeMs = resized(this.storeMs, capacity);
      this.beyond = resized(this.beyond, capacity);
    }
    this.capacity = capacity;
  }

  /**
   * Switches waitMs and resetMs to Float64Array, keeping their values: called the first time a
   * value would not fit an Int32Array (over 2^31 − 1 ms), so nothing is ever stored wrapped.
   */
  widen(): void {
    if (this.waitMs instanceof Float64Array) return;
    this.waitMs = Float64Array.from(this.waitMs);
    this.resetMs = Float64Array.from(this.resetMs);
  }

  finish(rows: number): LaneColumns {
    // Give back spare capacity when it is worth a copy.
    if (this.capacity > rows + (rows >> 3) + 1024) this.resize(rows);
    return {
      rows,
      arrivalMs: this.arrivalMs,
      origin: this.origin,
      attempt: this.attempt,
      outcome: this.outcome,
      instance: this.instance,
      waitMs: this.waitMs,
      remaining: this.remaining,
      resetMs: this.resetMs,
    };
  }
}

/** What one lane's event loop produced. */
export interface LaneRun {
  columns: LaneColumns;
  completeUntilMs: number;
  cut: boolean;
  /** The cut was the memory budget's (else the decision cap's). */
  overBudget: boolean;
  /** Estimated bytes of the in-flight writes its checkpoints keep alive. */
  writeBytes: number;
  internals: LaneInternals;
  stats: LaneRunStats;
  fleet: LaneFleet | undefined;
}

export interface LaneContext {
  config: AlgorithmConfig;
  scenario: Scenario;
  /** The epoch ms time 0 stands for (a trace's origin; 0 for synthetic traffic). */
  originMs: number;
  arrivals: ArrivalTable;
  keyNames: string[];
  clientKey: Uint16Array | Uint32Array;
  clock: WallClock;
  horizonMs: number;
  maxRows: number;
  checkpointBudget: number;
  /** Bytes this lane may retain (columns, checkpoints, writes they keep): MAX_RETAINED_BYTES' share. */
  retainBudget: number;
  shared: SharedColumns;
  /** Called with this lane's decided rows every PROGRESS_ROWS rows. */
  progress?: (rows: number) => void;
  /** The fleet store's jitter per first attempt, made once for all lanes (null: no jitter). */
  firstJitter: () => Int32Array | null;
  /**
   * The key index (in `clientKey`'s terms) whose requests skip the limiter (a trace's empty key,
   * `LaneResult.emptyKey`): −1 for none. Compared per row as a number, never as a key name; by
   * key, not client, so the empty-key requests a trace keeps addresses for (their own clients,
   * `keysWithTrace`) skip it too.
   */
  emptyKeyIndex: number;
  /** The outcome those requests get (`NamedLimiter.emptyKey`); read only when emptyKeyIndex ≥ 0. */
  emptyOutcome: EmptyKeyLaneOutcome;
}

/**
 * The row a lane writes for a trace request whose key is empty when its system keeps such
 * requests from its limiter (`NamedLimiter.emptyKey`): admitted with no wait, or denied. No
 * limiter decided it, so it has no quota, no wait before a retry and no reset: those are 0.
 */
export function emptyKeyDecision(outcome: EmptyKeyLaneOutcome): Decision {
  return {
    outcome: outcome === 'admit' ? 'admit' : 'reject',
    delayMs: 0,
    retryAfterMs: 0,
    remaining: 0,
    limit: 0,
    resetMs: 0,
  };
}

/**
 * A lane's checkpoints and its memory budget: every `every` rows the loop calls `take`, which
 * measures the state, stops the lane (false) when the columns, checkpoints and the writes they
 * keep would pass the lane's share of the budget, else keeps a checkpoint, thins them out when
 * they pass their own budget, and sets the next row to call it at (`nextCheck`).
 */
export class Checkpointer {
  readonly checkpoints: Checkpoint[] = [];
  every = CHECKPOINT_EVERY;
  /** The row the loop calls `take` at next (a multiple of `every`: a counter, not a division). */
  nextCheck = 0;
  /** In-flight writes kept alive by checkpoints (racy state): only ever added to (conservative). */
  writeBytes = 0;
  private bytes = 0;

  constructor(
    /** Bytes of one row of the lane's own columns. */
    private readonly rowBytes: number,
    private readonly retainBudget: number,
    private readonly checkpointBudget: number,
  ) {}

  /** At row `row` (virtual `tMs`, wall `wallMs`): false when the memory budget stops the lane here. */
  take(
    row: number,
    tMs: number,
    wallMs: number,
    tracker: StateTracker,
    engine: { takeWriteCharge(): number; snapshot(): EngineSnapshot | FleetSnapshot },
    wide: boolean,
  ): boolean {
    const sample = tracker.measure(tMs, wallMs);
    // In-flight writes (racy state) are charged by takeWriteCharge, once each.
    const bytes = sample.bytes + sample.keys * KEY_OVERHEAD_BYTES + SNAPSHOT_OVERHEAD_BYTES;
    const charge = engine.takeWriteCharge();
    // The budget, checked before the checkpoint is kept: the lane stops here, complete before t.
    if (
      row > 0 &&
      keptRows(row) * (this.rowBytes + (wide ? ROW_BYTES_WIDE : 0)) +
        this.bytes +
        bytes +
        this.writeBytes +
        charge >
        this.retainBudget
    ) {
      return false;
    }
    this.writeBytes += charge;
    const checkpoints = this.checkpoints;
    checkpoints.push({ row, snapshot: engine.snapshot(), bytes });
    this.bytes += bytes;
    if (
      this.bytes > this.checkpointBudget &&
      checkpoints.length > 2 &&
      this.every * 2 > MAX_CHECKPOINT_EVERY
    ) {
      // Thinning further would make seeking slow: the memory budget stops the lane instead.
      return false;
    }
    if (this.bytes > this.checkpointBudget && checkpoints.length > 2) {
      // Thin out: keep the checkpoints at multiples of 2·every.
      this.every *= 2;
      let kept = 0;
      this.bytes = 0;
      for (const cp of checkpoints) {
        if (cp.row % this.every === 0) {
          checkpoints[kept++] = cp;
          this.bytes += cp.bytes;
        }
      }
      checkpoints.length = kept;
    }
    this.nextCheck = (Math.floor(row / this.every) + 1) * this.every;
    return true;
  }
}
