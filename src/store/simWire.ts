/**
 * How a result crosses from the simulation worker to the page without a long task on the page
 * ("Large runs stay pleasant"; the replay arrival).
 *
 * - **Pieces by content key.** A result made with a SimCache has content keys (`resultKeys`): one
 *   for its traffic (arrivals, key names, client keys), one per lane. The page says which keys it
 *   holds with each request; the worker sends only the pieces it lacks, and the page builds the
 *   result from what it holds plus what came. A lane the edit did not change is the very same
 *   `LaneResult` object as before, so React's memo holds and its seek cursor goes on.
 * - **Transferred, not cloned.** A piece's typed arrays are copied in the worker (its cache keeps
 *   its own) and transferred: the page decodes a handful of objects, not megabytes.
 * - **One message per piece.** The traffic and each lane come in their own message, then a small
 *   `result` message that names them: no single decode holds a whole large run.
 * - Columns every lane shares are not sent: the first-attempt columns (origin i, attempt 1, with
 *   the arrivals' times) and an all-zero instance column are rebuilt once per traffic here.
 *
 * Pure TypeScript (no DOM): tests run both sides in one thread.
 */
import { adoptResult, laneSeekData, portableLane, resultKeys } from '../sim';
import type {
  ArrivalTable,
  LaneColumns,
  LaneResult,
  LaneSeekData,
  PortableLane,
  ResultKeys,
  SimResult,
} from '../sim';

/** The traffic of a run: what all its lanes share. */
export interface WireTraffic {
  key: string;
  arrivals: ArrivalTable;
  keyNames: string[];
  clientKey: Uint16Array | Uint32Array;
}

/** A lane's columns, with the columns every lane shares named instead of sent. */
export type WireColumns = Omit<LaneColumns, 'arrivalMs' | 'origin' | 'attempt' | 'instance'> & {
  /** 'first': the lane's rows are the first attempts (the arrivals' times, origin i, attempt 1). */
  arrivalMs: Int32Array | 'first';
  origin: Int32Array | 'first';
  attempt: Uint8Array | 'first';
  /** `{ zeros: n }`: n zeros (one instance). */
  instance: Uint8Array | { zeros: number };
};

export interface WireLane {
  key: string;
  /** The key of the traffic the lane ran on. */
  traffic: string;
  lane: Omit<LaneResult, 'columns'> & { columns: WireColumns };
  /** Its checkpoints as plain data (null: a fleet, whose seeker records them as it replays). */
  checkpoints: PortableLane | null;
}

/** A piece of a result, in a message of its own. */
export type WirePiece = { traffic: WireTraffic } | { lane: WireLane };

/** A result without its pieces: what the `result` message carries. */
export type ResultShell = Omit<SimResult, 'arrivals' | 'keyNames' | 'clientKey' | 'lanes'>;

/** The `result` message's outcome when the run worked: the shell and the keys of its pieces. */
export interface WireResult {
  shell: ResultShell;
  keys: ResultKeys;
}

/** Content keys the page holds (sent with each request). */
export interface HeldKeys {
  traffic: readonly string[];
  lanes: readonly string[];
}

/**
 * A deep copy of plain data whose typed arrays are fresh copies, each buffer listed in
 * `transfer` (an array met twice is copied once, so sharing inside a piece is kept).
 */
function copyOut<T>(value: T, transfer: ArrayBuffer[], seen: Map<unknown, unknown>): T {
  if (typeof value !== 'object' || value === null) return value;
  const known = seen.get(value);
  if (known !== undefined) return known as T;
  let copy: unknown;
  if (ArrayBuffer.isView(value)) {
    const view = (value as unknown as Uint8Array).slice();
    transfer.push(view.buffer);
    copy = view;
  } else if (Array.isArray(value)) {
    copy = value.map((v: unknown) => copyOut(v, transfer, seen));
  } else {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = copyOut(v, transfer, seen);
    copy = out;
  }
  seen.set(value, copy);
  return copy as T;
}

/**
 * `view` itself, its buffer listed in `transfer` (no copy: the buffer is detached here once
 * posted), when the view spans its whole buffer; else a copy, as copyOut makes.
 */
function handOver<T extends Int32Array | Uint8Array | Float64Array>(
  view: T,
  transfer: ArrayBuffer[],
): T {
  const buffer = view.buffer;
  if (
    !(buffer instanceof ArrayBuffer) ||
    view.byteOffset !== 0 ||
    view.byteLength !== buffer.byteLength
  ) {
    const copy = view.slice() as T;
    transfer.push(copy.buffer as ArrayBuffer);
    return copy;
  }
  transfer.push(buffer);
  return view;
}

let uniqueKeys = 0;

/**
 * Splits a result into the messages that carry it to a thread holding the pieces `held`: first
 * the pieces it lacks (each with its transfer list), then the result itself. `maxKeyStates`: key
 * states the checkpoints sent may hold, over all lanes sent (see PORTABLE_KEY_STATES).
 * `handOverLanes`: the lanes' own columns are transferred as they are, not copied (13 MB
 * per 1,000,000-row lane); this thread must not read them once posted (see forgetLaneRuns).
 */
export function encodeResult(
  result: SimResult,
  held: HeldKeys,
  maxKeyStates = Number.POSITIVE_INFINITY,
  handOverLanes = false,
): {
  pieces: Array<{ piece: WirePiece; transfer: ArrayBuffer[] }>;
  result: WireResult;
  /** The lanes sent (by index), whose own columns were handed over with `handOverLanes`. */
  sentLanes: number[];
} {
  // A result made without a cache has no content keys: keys no one holds, so all of it is sent.
  const keys = resultKeys(result) ?? {
    traffic: `unique ${(uniqueKeys += 1)}`,
    lanes: result.lanes.map((_, i) => `unique ${uniqueKeys} lane ${i}`),
    zeros: false,
  };
  const heldTraffic = new Set(held.traffic);
  const heldLanes = new Set(held.lanes);
  const pieces: Array<{ piece: WirePiece; transfer: ArrayBuffer[] }> = [];
  if (!heldTraffic.has(keys.traffic)) {
    const transfer: ArrayBuffer[] = [];
    const seen = new Map<unknown, unknown>();
    pieces.push({
      piece: {
        traffic: {
          key: keys.traffic,
          arrivals: copyOut(result.arrivals, transfer, seen),
          keyNames: result.keyNames,
          clientKey: copyOut(result.clientKey, transfer, seen),
        },
      },
      transfer,
    });
  }
  const toSend = result.lanes.flatMap((lane, i) => {
    const key = keys.lanes[i] as string;
    return heldLanes.has(key) ? [] : [{ lane, i, key }];
  });
  for (const { lane, i, key } of toSend) {
    const { columns, ...rest } = lane;
    const first = columns.arrivalMs === result.arrivals.timeMs;
    const transfer: ArrayBuffer[] = [];
    const seen = new Map<unknown, unknown>();
    // The lane's own columns (never the shared ones: 'first', zeros), handed over or copied.
    // (A fleet lane's other arrays may share them: copied together, as before.)
    const give = handOverLanes && lane.fleet === undefined;
    const own = <T extends Int32Array | Uint8Array | Float64Array>(view: T): T =>
      give ? handOver(view, transfer) : copyOut(view, transfer, seen);
    const wireColumns: WireColumns = {
      rows: columns.rows,
      outcome: own(columns.outcome),
      waitMs: own(columns.waitMs),
      remaining: own(columns.remaining),
      resetMs: own(columns.resetMs),
      arrivalMs: first ? 'first' : own(columns.arrivalMs),
      origin: first ? 'first' : own(columns.origin),
      attempt: first ? 'first' : own(columns.attempt),
      instance: keys.zeros ? { zeros: columns.instance.length } : own(columns.instance),
    };
    pieces.push({
      piece: {
        lane: {
          key,
          traffic: keys.traffic,
          lane: { ...copyOut(rest, transfer, seen), columns: wireColumns },
          checkpoints: portableLane(result, i, maxKeyStates / toSend.length),
        },
      },
      transfer,
    });
  }
  const shell: ResultShell = {
    scenario: result.scenario,
    untilMs: result.untilMs,
    completeUntilMs: result.completeUntilMs,
    truncated: result.truncated,
    truncation: result.truncation,
    instances: result.instances,
    divergence: result.divergence,
    pairDivergence: result.pairDivergence,
    memory: result.memory,
  };
  return { pieces, result: { shell, keys }, sentLanes: toSend.map(({ i }) => i) };
}

interface TrafficPiece {
  arrivals: ArrivalTable;
  keyNames: string[];
  clientKey: Uint16Array | Uint32Array;
  /** The first-attempt columns (origin i, attempt 1), made on first use. */
  first: { origin: Int32Array; attempt: Uint8Array } | null;
  /** All-zero instance columns by length. */
  zeros: Map<number, Uint8Array>;
}

interface LanePiece {
  lane: LaneResult;
  /** Its seek data once a result holding it was adopted here; else its checkpoints as sent. */
  seek: LaneSeekData | null;
  checkpoints: PortableLane | null;
}

/**
 * The pieces of results this thread holds, by content key: the results it shows (`register`) and
 * the pieces the worker sent (`accept`). `assemble` builds a result from them; `keepOnly` drops
 * what the result shown no longer uses.
 */
export class HeldPieces {
  private readonly traffic = new Map<string, TrafficPiece>();
  private readonly lanes = new Map<string, LanePiece>();
  /**
   * Column buffers the worker sent, each with weak references to its views: once every view has
   * been collected nothing on the page can read the buffer, and it goes back to the worker with
   * the next request (recycling: fresh memory's page faults were half of a
   * 1,000,000-row edit). Oldest first; at most SPENT_BUFFERS are tracked.
   */
  private readonly spent = new Map<ArrayBuffer, Array<WeakRef<object>>>();

  /** Tracks the buffers of a lane's own columns for recycling (see `spent`). */
  private trackSpent(c: WireColumns): void {
    if (typeof WeakRef === 'undefined') return;
    for (const view of [
      c.outcome,
      c.waitMs,
      c.remaining,
      c.resetMs,
      c.arrivalMs,
      c.origin,
      c.attempt,
      c.instance,
    ]) {
      if (!ArrayBuffer.isView(view) || !(view.buffer instanceof ArrayBuffer)) continue;
      const refs = this.spent.get(view.buffer);
      if (refs === undefined) this.spent.set(view.buffer, [new WeakRef(view)]);
      else refs.push(new WeakRef(view));
    }
    for (const b of this.spent.keys()) {
      if (this.spent.size <= SPENT_BUFFERS) break;
      this.spent.delete(b);
    }
  }

  /** The tracked buffers no view of which is left on the page (they stop being tracked). */
  collectSpent(): ArrayBuffer[] {
    const out: ArrayBuffer[] = [];
    for (const [buffer, refs] of this.spent) {
      if (buffer.byteLength === 0) this.spent.delete(buffer);
      else if (refs.every((r) => r.deref() === undefined)) {
        this.spent.delete(buffer);
        out.push(buffer);
      }
    }
    return out;
  }

  /** The keys held, for the next request. */
  held(): HeldKeys {
    return { traffic: [...this.traffic.keys()], lanes: [...this.lanes.keys()] };
  }

  /** Holds the pieces of a result shown here (made here or assembled here). */
  register(result: SimResult): void {
    const keys = resultKeys(result);
    if (keys === null) return;
    let traffic = this.traffic.get(keys.traffic);
    if (traffic === undefined) {
      traffic = {
        arrivals: result.arrivals,
        keyNames: result.keyNames,
        clientKey: result.clientKey,
        first: null,
        zeros: new Map(),
      };
      this.traffic.set(keys.traffic, traffic);
    }
    result.lanes.forEach((lane, i) => {
      const c = lane.columns;
      // Share the columns this result's lanes share, so lanes built later share them too.
      if (traffic.first === null && c.arrivalMs === result.arrivals.timeMs) {
        traffic.first = { origin: c.origin, attempt: c.attempt };
      }
      if (keys.zeros && !traffic.zeros.has(c.instance.length)) {
        traffic.zeros.set(c.instance.length, c.instance);
      }
      const key = keys.lanes[i] as string;
      const piece = this.lanes.get(key);
      if (piece === undefined || piece.lane !== lane) {
        this.lanes.set(key, { lane, seek: laneSeekData(result, i), checkpoints: null });
      } else if (piece.seek === null) {
        piece.seek = laneSeekData(result, i);
        piece.checkpoints = null;
      }
    });
  }

  /** Holds a piece sent by the worker (a lane after the traffic it ran on). */
  accept(piece: WirePiece): void {
    if ('traffic' in piece) {
      const { key, arrivals, keyNames, clientKey } = piece.traffic;
      if (!this.traffic.has(key)) {
        this.traffic.set(key, { arrivals, keyNames, clientKey, first: null, zeros: new Map() });
      }
      return;
    }
    const { key, traffic: trafficKey, lane, checkpoints } = piece.lane;
    this.trackSpent(lane.columns);
    // Held already (a stale answer's copy): keep the object the page has, so identity holds.
    if (this.lanes.has(key)) return;
    const traffic = this.traffic.get(trafficKey);
    if (traffic === undefined) return; // cannot happen: the worker sends the traffic first
    const w = lane.columns;
    let first = traffic.first;
    if (w.arrivalMs === 'first' && first === null) {
      const n = traffic.arrivals.count;
      const origin = new Int32Array(n);
      for (let i = 0; i < n; i += 1) origin[i] = i;
      first = { origin, attempt: new Uint8Array(n).fill(1) };
      traffic.first = first;
    }
    let instance: Uint8Array;
    if (w.instance instanceof Uint8Array) instance = w.instance;
    else {
      instance = traffic.zeros.get(w.instance.zeros) ?? new Uint8Array(w.instance.zeros);
      traffic.zeros.set(instance.length, instance);
    }
    const columns: LaneColumns = {
      ...w,
      arrivalMs: w.arrivalMs === 'first' ? traffic.arrivals.timeMs : w.arrivalMs,
      origin: w.origin === 'first' ? (first as { origin: Int32Array }).origin : w.origin,
      attempt: w.attempt === 'first' ? (first as { attempt: Uint8Array }).attempt : w.attempt,
      instance,
    };
    this.lanes.set(key, { lane: { ...lane, columns }, seek: null, checkpoints });
  }

  /**
   * The result the worker described, from the pieces held (the same objects for pieces held
   * before), seekable here; null if a piece is missing (then ask again with nothing held).
   */
  assemble(wire: WireResult): SimResult | null {
    const traffic = this.traffic.get(wire.keys.traffic);
    const pieces = wire.keys.lanes.map((key) => this.lanes.get(key));
    if (traffic === undefined || pieces.some((p) => p === undefined)) return null;
    const held = pieces as LanePiece[];
    const result: SimResult = {
      ...wire.shell,
      keyNames: traffic.keyNames,
      clientKey: traffic.clientKey,
      arrivals: traffic.arrivals,
      lanes: held.map((p) => p.lane),
    };
    adoptResult(
      result,
      { lanes: held.map((p) => p.checkpoints ?? undefined) as PortableLane[] },
      { kept: held.map((p) => p.seek ?? undefined), keys: wire.keys },
    );
    this.register(result);
    return result;
  }

  /** Drops every piece. */
  clear(): void {
    this.traffic.clear();
    this.lanes.clear();
  }

  /** Drops every piece `result` does not use (all of them when it has no content keys). */
  keepOnly(result: SimResult): void {
    const keys = resultKeys(result);
    if (keys === null) {
      this.clear();
      return;
    }
    this.register(result);
    for (const k of [...this.traffic.keys()]) if (k !== keys.traffic) this.traffic.delete(k);
    const used = new Set(keys.lanes);
    for (const k of [...this.lanes.keys()]) if (!used.has(k)) this.lanes.delete(k);
  }
}

/** Column buffers tracked for recycling at most (a 1,000,000-row lane has four). */
const SPENT_BUFFERS = 32;
