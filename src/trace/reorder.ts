/**
 * The reorder window: requests come in line order, nearly in time order (a server writes a line
 * when a request ends, so a slow request's line comes after quicker ones that arrived later), and
 * leave in arrival order — sorted by time, ties in line order — once nothing can come before them
 * any more. A request is held at least until the latest arrival seen is REORDER_WINDOW_MS past it
 * (requests are let out in runs, so often longer; when the window holds REORDER_MAX_HELD requests
 * the oldest leave early), so memory is bounded by the requests of one window, not by the log.
 *
 * A request earlier than one that has already left is *outside the window*: it cannot be put in
 * its place. The window counts them, remembers the first one's line and hands them to the caller
 * (the trace builder keeps them apart and merges them into place at the end, so the trace stays
 * exact, and names them in its notes). Everything inside the window leaves in exactly the order a
 * stable sort of the whole log by time would give (tests/trace/reorder.test.ts).
 */

/** How far back in time a line may be and still be sorted into place, ms (5 minutes). */
export const REORDER_WINDOW_MS = 5 * 60_000;
/** Requests the window holds at most (16 MB of columns); past it the oldest leave early. */
export const REORDER_MAX_HELD = 1 << 20;
/** Requests gathered before they are sorted and merged into the held run. */
const TAIL = 1 << 15;
/** Requests in a row from which copying them as one block (five typed-array sets) is cheaper. */
const BLOCK_COPY_MIN = 32;

/**
 * Receives requests in arrival order, `count` of them at [from, from + count) of the arrays
 * (views the window reuses: copy what must be kept).
 */
export type OrderedSink = (
  cols: {
    t: Float64Array;
    key: Uint32Array;
    cost: Uint16Array;
    status: Uint16Array;
    line: Float64Array;
  },
  from: number,
  count: number,
) => void;

/** What the window saw. */
export interface ReorderReport {
  /** Requests earlier than a line before them (sorted into place or not). */
  outOfOrder: number;
  /** The largest step back in time, ms. */
  maxBackstepMs: number;
  /** Requests earlier than a request that had already left the window. */
  outside: number;
  /** The line of the first of them (0 when none). */
  firstOutsideLine: number;
  /** The largest step back of those, ms. */
  maxOutsideMs: number;
}

/** Columns of requests, grown on demand. */
export class Columns {
  t: Float64Array;
  key: Uint32Array;
  cost: Uint16Array;
  status: Uint16Array;
  line: Float64Array;
  constructor(n: number) {
    this.t = new Float64Array(n);
    this.key = new Uint32Array(n);
    this.cost = new Uint16Array(n);
    this.status = new Uint16Array(n);
    this.line = new Float64Array(n);
  }
  get capacity(): number {
    return this.t.length;
  }
  /** Grows to at least `n`, keeping [from, to) at [0, to − from). */
  reserve(n: number, from: number, to: number): void {
    if (n <= this.capacity && from === 0) return;
    if (n <= this.capacity) {
      // Room enough: the held requests move to the front in place (no new arrays to fill and
      // collect; the window does this once a tail of requests).
      this.t.copyWithin(0, from, to);
      this.key.copyWithin(0, from, to);
      this.cost.copyWithin(0, from, to);
      this.status.copyWithin(0, from, to);
      this.line.copyWithin(0, from, to);
      return;
    }
    const c = n <= this.capacity ? this.capacity : Math.max(n, this.capacity * 2);
    const next = new Columns(c);
    next.t.set(this.t.subarray(from, to));
    next.key.set(this.key.subarray(from, to));
    next.cost.set(this.cost.subarray(from, to));
    next.status.set(this.status.subarray(from, to));
    next.line.set(this.line.subarray(from, to));
    this.t = next.t;
    this.key = next.key;
    this.cost = next.cost;
    this.status = next.status;
    this.line = next.line;
  }
  set(i: number, t: number, key: number, cost: number, status: number, line: number): void {
    this.t[i] = t;
    this.key[i] = key;
    this.cost[i] = cost;
    this.status[i] = status;
    this.line[i] = line;
  }
  /** Copies `from`'s [j, j + n) to [i, i + n). */
  copyRange(i: number, from: Columns, j: number, n: number): void {
    this.t.set(from.t.subarray(j, j + n), i);
    this.key.set(from.key.subarray(j, j + n), i);
    this.cost.set(from.cost.subarray(j, j + n), i);
    this.status.set(from.status.subarray(j, j + n), i);
    this.line.set(from.line.subarray(j, j + n), i);
  }
  copy(i: number, from: Columns, j: number): void {
    this.t[i] = from.t[j] as number;
    this.key[i] = from.key[j] as number;
    this.cost[i] = from.cost[j] as number;
    this.status[i] = from.status[j] as number;
    this.line[i] = from.line[j] as number;
  }
}

export class ReorderWindow {
  /** Held requests, sorted, at [head, end). */
  private run = new Columns(TAIL * 2);
  private head = 0;
  private end = 0;
  /** Requests not yet sorted in, in line order. */
  private tail = new Columns(TAIL);
  private tailN = 0;
  private tailSorted = true;
  /**
   * The latest arrival seen and the arrival of the last request that left (−∞ before any), in a
   * typed array: written per request out of order, a number field holding a value past 2^30 may
   * take a new heap number on each write; a typed array's slot never does.
   */
  private readonly bounds = new Float64Array([-Infinity, -Infinity]);
  private get maxT(): number {
    return this.bounds[0] as number;
  }
  private set maxT(t: number) {
    this.bounds[0] = t;
  }
  /** Arrival of the last request that left (−∞ before any). */
  private get lastOut(): number {
    return this.bounds[1] as number;
  }
  private set lastOut(t: number) {
    this.bounds[1] = t;
  }
  private order = new Float64Array(TAIL);
  private positions = new Int32Array(TAIL);
  private scratch = new Columns(TAIL);
  private readonly sorted = new Columns(TAIL);
  readonly report: ReorderReport = {
    outOfOrder: 0,
    maxBackstepMs: 0,
    outside: 0,
    firstOutsideLine: 0,
    maxOutsideMs: 0,
  };

  constructor(
    private readonly sink: OrderedSink,
    /** Called for each request outside the window, instead of the sink. */
    private readonly outsider: (
      t: number,
      key: number,
      cost: number,
      status: number,
      line: number,
    ) => void = () => {},
    private readonly windowMs = REORDER_WINDOW_MS,
    private readonly maxHeld = REORDER_MAX_HELD,
  ) {}

  /** Requests held now. */
  get held(): number {
    return this.end - this.head + this.tailN;
  }

  push(t: number, key: number, cost: number, status: number, line: number): void {
    this.one[0] = t;
    this.pushAt(this.one, 0, key, cost, status, line);
  }

  /** The arrival `push` was given, as a column of one (see `pushAt`). */
  private readonly one = new Float64Array(1);

  /**
   * `push` of the request arriving at `times[at]`: the arrival is read from its column here, since
   * a number past 2^30 handed to a call is boxed — a heap number for each request `pushMany` hands
   * on one by one (every one earlier than the latest before it).
   */
  private pushAt(
    times: Float64Array,
    at: number,
    key: number,
    cost: number,
    status: number,
    line: number,
  ): void {
    const t = times[at] as number;
    if (t < this.maxT) {
      const r = this.report;
      r.outOfOrder += 1;
      if (this.maxT - t > r.maxBackstepMs) r.maxBackstepMs = this.maxT - t;
      if (t < this.lastOut) {
        if (r.outside === 0) r.firstOutsideLine = line;
        r.outside += 1;
        if (this.lastOut - t > r.maxOutsideMs) r.maxOutsideMs = this.lastOut - t;
        this.outsider(t, key, cost, status, line);
        return;
      }
    } else {
      this.maxT = t;
    }
    const i = this.tailN;
    const c = this.tail;
    if (i > 0 && t < (c.t[i - 1] as number)) this.tailSorted = false;
    c.t[i] = t;
    c.key[i] = key;
    c.cost[i] = cost;
    c.status[i] = status;
    c.line[i] = line;
    this.tailN = i + 1;
    if (this.tailN === TAIL) this.settle(false);
  }

  /**
   * The same as `push` of requests [0, n) of the columns given, each key id mapped through `map`
   * and `lineOffset` added to each line — in one loop: a request not earlier than every one before
   * it (most of a log) is written straight into the tail.
   */
  pushMany(
    t: Float64Array,
    key: Uint32Array,
    map: Uint32Array,
    cost: Uint16Array,
    status: Uint16Array,
    line: Float64Array,
    lineOffset: number,
    n: number,
  ): void {
    let i = 0;
    while (i < n) {
      const c = this.tail;
      let at = this.tailN;
      let maxT = this.maxT;
      const stop = Math.min(n, i + (TAIL - at));
      // In time order: every held request is ≤ maxT ≤ x, so the tail stays sorted.
      for (; i < stop; i += 1) {
        const x = t[i] as number;
        if (x < maxT) break;
        maxT = x;
        c.t[at] = x;
        c.key[at] = map[key[i] as number] as number;
        c.cost[at] = cost[i] as number;
        c.status[at] = status[i] as number;
        c.line[at] = (line[i] as number) + lineOffset;
        at += 1;
      }
      this.maxT = maxT;
      this.tailN = at;
      if (at === TAIL) {
        this.settle(false);
        continue;
      }
      if (i < n) {
        this.pushAt(
          t,
          i,
          map[key[i] as number] as number,
          cost[i] as number,
          status[i] as number,
          (line[i] as number) + lineOffset,
        );
        i += 1;
      }
    }
  }

  /** Everything held leaves (the end of the log). */
  flush(): void {
    this.settle(true);
  }

  /** Sorts the tail into the run, then lets out what can no longer be preceded. */
  private settle(all: boolean): void {
    this.mergeTail();
    const run = this.run;
    let stop = this.end;
    if (!all) {
      // Out: arrivals more than the window before the latest one.
      const before = this.maxT - this.windowMs;
      let lo = this.head;
      let hi = this.end;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((run.t[mid] as number) < before) lo = mid + 1;
        else hi = mid;
      }
      stop = lo;
      // Never more than maxHeld stay.
      if (this.end - stop > this.maxHeld) stop = this.end - this.maxHeld;
    }
    if (stop > this.head) {
      this.lastOut = run.t[stop - 1] as number;
      this.sink(run, this.head, stop - this.head);
      this.head = stop;
    }
    if (this.head === this.end) {
      this.head = 0;
      this.end = 0;
    }
  }

  /** Sorts the tail (by time, then line order) and merges it into the run. */
  private mergeTail(): void {
    const n = this.tailN;
    if (n === 0) return;
    const tail = this.tail;
    let src = tail;
    if (!this.tailSorted) {
      src = this.sortedTail(n);
    }
    const run = this.run;
    // Where the tail's first request goes: after every held request not later than it.
    const first = src.t[0] as number;
    let lo = this.head;
    let hi = this.end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((run.t[mid] as number) <= first) lo = mid + 1;
      else hi = mid;
    }
    const overlap = this.end - lo;
    // Room for the tail at the end (moving the held run to the front when it has drifted).
    const need = this.end - this.head + n;
    if (this.end + n > run.capacity) {
      run.reserve(need + TAIL, this.head, this.end);
      lo -= this.head;
      this.end -= this.head;
      this.head = 0;
    }
    if (overlap === 0) {
      run.copyRange(this.end, src, 0, n);
    } else {
      // Merge run[lo, end) (earlier lines) with the tail into run[lo, end + n).
      const keep = this.scratch;
      if (keep.capacity < overlap) this.scratch.reserve(overlap, 0, 0);
      keep.copyRange(0, run, lo, overlap);
      let a = 0;
      let b = 0;
      let o = lo;
      while (a < overlap && b < n) {
        // Ties: the held (earlier) line first.
        if ((keep.t[a] as number) <= (src.t[b] as number)) run.copy(o++, keep, a++);
        else run.copy(o++, src, b++);
      }
      run.copyRange(o, keep, a, overlap - a);
      o += overlap - a;
      run.copyRange(o, src, b, n - b);
    }
    this.end += n;
    this.tailN = 0;
    this.tailSorted = true;
  }

  /** The tail sorted by (time, line order), as a Columns of its own. */
  private sortedTail(n: number): Columns {
    const tail = this.tail;
    const out = this.sorted;
    // Nearly sorted (the usual log: a few lines a little late): an insertion sort of positions,
    // stable, stopped when it has moved more than a few entries a request.
    const pos = this.positions;
    for (let i = 0; i < n; i += 1) pos[i] = i;
    let moves = 0;
    const budget = 8 * n;
    for (let i = 1; i < n && moves <= budget; i += 1) {
      const x = pos[i] as number;
      const tx = tail.t[x] as number;
      let j = i - 1;
      while (j >= 0 && (tail.t[pos[j] as number] as number) > tx) {
        pos[j + 1] = pos[j] as number;
        j -= 1;
        moves += 1;
      }
      pos[j + 1] = x;
    }
    if (moves <= budget) {
      // Most of a nearly sorted tail stays where it was, in runs of consecutive positions between
      // the few late lines: a long run is copied as a block, a short one request by request.
      for (let i = 0; i < n;) {
        const from = pos[i] as number;
        let j = i + 1;
        while (j < n && pos[j] === from + (j - i)) j += 1;
        if (j - i >= BLOCK_COPY_MIN) out.copyRange(i, tail, from, j - i);
        else for (let k = i; k < j; k += 1) out.copy(k, tail, from + (k - i));
        i = j;
      }
      return out;
    }
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i += 1) {
      const t = tail.t[i] as number;
      if (t < min) min = t;
      if (t > max) max = t;
    }
    // Pack (time − min, position) into one exact double and sort natively: positions take 15 bits,
    // times 38 (over 8 years); whole-ms times only (a fraction would not survive the packing).
    let packable = max - min < 2 ** 38;
    for (let i = 0; i < n && packable; i += 1) packable = Number.isInteger(tail.t[i]);
    if (packable) {
      const ord = this.order.subarray(0, n);
      for (let i = 0; i < n; i += 1) ord[i] = ((tail.t[i] as number) - min) * TAIL + i;
      ord.sort();
      for (let i = 0; i < n; i += 1) out.copy(i, tail, (ord[i] as number) % TAIL);
    } else {
      const idx = Array.from({ length: n }, (_, i) => i);
      idx.sort((x, y) => (tail.t[x] as number) - (tail.t[y] as number) || x - y);
      for (let i = 0; i < n; i += 1) out.copy(i, tail, idx[i] as number);
    }
    return out;
  }
}
