import { checkTime } from './int';
import type { Inspection } from './inspect';
import type { AlgorithmConfig, Decision, KeyState, Limiter, Outcome, StateSize } from './types';
import { DEFAULT_KEY } from './types';

/** Builds a Decision; one constructor keeps every Decision the same shape (fast property access). */
export function decision(
  outcome: Outcome,
  delayMs: number,
  retryAfterMs: number,
  remaining: number,
  limit: number,
  resetMs: number,
): Decision {
  return { outcome, delayMs, retryAfterMs, remaining, limit, resetMs };
}

interface WrappedState<S> extends KeyState {
  readonly state: S;
}

export const NO_STATE: StateSize = Object.freeze({ entries: 0, bytes: 0 });

/**
 * One shared, frozen StateSize per fixed size: `stateSize` runs after every decision of a
 * simulation (src/sim/state-tracker.ts), so fixed-size states answer without allocating.
 */
export function fixedSize(entries: number, bytes: number): StateSize {
  return Object.freeze({ entries, bytes });
}

/** Deep equality of plain data (numbers, strings, booleans, null, arrays, plain objects). */
function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
      return false;
  }
  return true;
}

/**
 * The per-key bookkeeping every algorithm shares: a Map from key to mutable state, a one-entry cache
 * for the key seen last (most traces hit one key many times in a row), copies, pruning.
 * Subclasses implement the arithmetic.
 */
export abstract class KeyedLimiter<C extends AlgorithmConfig, S extends object> implements Limiter {
  protected readonly states = new Map<string, S>();
  private cacheKey: string | undefined = undefined;
  private cacheState: S | undefined = undefined;
  /**
   * Key slots (useKeyIndex): a key's index in `slotIndex` → its state, the same objects as in
   * `states`. decideKey passes the index to `decideAt` (-1 when unknown), so `find` and `put`
   * skip the Map.
   */
  private slotIndex: ReadonlyMap<string, number> | null = null;
  private slots: Array<S | undefined> = [];

  /**
   * `config`, and the epoch ms that virtual time 0 stands for (Limiter.originMs): windows aligned
   * to the clock are placed from it; every time the limiter takes or gives stays virtual.
   */
  constructor(
    readonly config: C,
    readonly originMs = 0,
  ) {}

  /** Fixed-size algorithms say their size here (see Limiter.keySizeMax). */
  readonly keySizeMax: StateSize | null = null;

  decide(nowMs: number, key: string = DEFAULT_KEY): Decision {
    checkTime(nowMs);
    const d = this.decideAt(nowMs, key, -1);
    // A Decision of its own (decideAt writes into the limiter's reused one).
    return decision(d.outcome, d.delayMs, d.retryAfterMs, d.remaining, d.limit, d.resetMs);
  }

  /** The decision decideAt returns, rewritten by each (see `result`). */
  private readonly out: Decision = decision('admit', 0, 0, 0, 0, 0);

  /**
   * What decideAt returns: the limiter's one reused Decision, filled in (no allocation per
   * decision). `decide` copies it; `decideKey` hands it out as is.
   */
  protected result(
    outcome: Outcome,
    delayMs: number,
    retryAfterMs: number,
    remaining: number,
    limit: number,
    resetMs: number,
  ): Decision {
    const o = this.out;
    o.outcome = outcome;
    o.delayMs = delayMs;
    o.retryAfterMs = retryAfterMs;
    o.remaining = remaining;
    o.limit = limit;
    o.resetMs = resetMs;
    return o;
  }

  useKeyIndex(index: ReadonlyMap<string, number>): void {
    this.slotIndex = index;
    this.slots = new Array<S | undefined>(index.size).fill(undefined);
    for (const [key, s] of this.states) {
      const k = index.get(key);
      if (k !== undefined) this.slots[k] = s;
    }
  }

  decideKey(nowMs: number, key: string, k: number): Decision {
    checkTime(nowMs);
    return this.decideAt(nowMs, key, this.slotIndex === null ? -1 : k);
  }

  /** Nothing promised (see Limiter.rejectsUntil); an algorithm that can say overrides it. */
  rejectsUntil(): number {
    return Number.NEGATIVE_INFINITY;
  }

  stateSizeKey(nowMs: number, key: string, k: number): StateSize {
    if (this.slotIndex === null || k < 0) return this.stateSize(nowMs, key);
    checkTime(nowMs);
    return this.sizeAt(this.slots[k], nowMs);
  }

  /** stateSize of state `s` (undefined: the key holds none) at a checked time. */
  protected sizeAt(s: S | undefined, nowMs: number): StateSize {
    return s === undefined || this.isIdle(s, nowMs) ? NO_STATE : this.sizeOf(s, nowMs);
  }

  inspect(nowMs: number, key: string = DEFAULT_KEY): Inspection {
    checkTime(nowMs);
    return this.inspectAt(nowMs, key, this.states.get(key));
  }

  /**
   * Decides at a checked time; `k` is the key's slot (useKeyIndex) or -1, for `find` and `put`.
   */
  protected abstract decideAt(nowMs: number, key: string, k: number): Decision;
  /** Draws state `s` (undefined for an unseen key) at a checked time, without changing it. */
  protected abstract inspectAt(nowMs: number, key: string, s: S | undefined): Inspection;
  /** A deep copy of one key's state. */
  protected abstract copyState(s: S): S;
  /** True when `s` at `nowMs` decides every future request exactly as a key never seen. */
  protected abstract isIdle(s: S, nowMs: number): boolean;
  /** Size of `s` at `nowMs`. */
  protected abstract sizeOf(s: S, nowMs: number): StateSize;
  /** A new, empty limiter with the same config. */
  protected abstract empty(): KeyedLimiter<C, S>;

  /** The state of `key`, whose slot is `k` (-1: unknown, found through the Map). */
  protected find(key: string, k: number): S | undefined {
    if (k >= 0) return this.slots[k];
    if (key === this.cacheKey) return this.cacheState;
    const s = this.states.get(key);
    if (s !== undefined) {
      this.cacheKey = key;
      this.cacheState = s;
    }
    return s;
  }

  /** Stores the state of `key`, whose slot is `k` (-1: unknown). */
  protected put(key: string, k: number, s: S): void {
    this.states.set(key, s);
    this.cacheKey = key;
    this.cacheState = s;
    if (k >= 0) this.slots[k] = s;
    else if (this.slotIndex !== null) {
      const i = this.slotIndex.get(key);
      if (i !== undefined) this.slots[i] = s;
    }
  }

  protected forget(key: string): void {
    this.states.delete(key);
    if (key === this.cacheKey) {
      this.cacheKey = undefined;
      this.cacheState = undefined;
    }
    if (this.slotIndex !== null) {
      const k = this.slotIndex.get(key);
      if (k !== undefined) this.slots[k] = undefined;
    }
  }

  sameStateAs(other: Limiter, nowMs: number): boolean {
    if (
      other.constructor !== this.constructor ||
      other.originMs !== this.originMs ||
      !sameData(other.config, this.config)
    )
      return false;
    const o = other as KeyedLimiter<C, S>;
    for (const [key, s] of this.states) {
      const t = o.states.get(key);
      if (t === undefined) {
        if (!this.isIdle(s, nowMs)) return false;
      } else if (!this.equalStates(s, t, nowMs) && !(this.isIdle(s, nowMs) && o.isIdle(t, nowMs)))
        return false;
    }
    for (const [key, t] of o.states) if (!this.states.has(key) && !o.isIdle(t, nowMs)) return false;
    return true;
  }

  /**
   * True when states `a` and `b` decide every request at `nowMs` and later alike (default: equal
   * as data). An algorithm whose state keeps entries that no longer count says so itself.
   */
  protected equalStates(a: S, b: S, nowMs: number): boolean {
    void nowMs;
    return sameData(a, b);
  }

  clone(): Limiter {
    const copy = this.empty();
    for (const [key, s] of this.states) copy.put(key, -1, this.copyState(s));
    return copy;
  }

  keys(): IterableIterator<string> {
    return this.states.keys();
  }

  get size(): number {
    return this.states.size;
  }

  stateSize(nowMs: number, key: string = DEFAULT_KEY): StateSize {
    checkTime(nowMs);
    // find: the key just decided (what the simulator reads next) skips the Map lookup.
    // Inline rather than through sizeAt: one call less on the single-limiter path.
    const s = this.find(key, -1);
    return s === undefined || this.isIdle(s, nowMs) ? NO_STATE : this.sizeOf(s, nowMs);
  }

  prune(nowMs: number): void {
    checkTime(nowMs);
    for (const [key, s] of this.states) if (this.isIdle(s, nowMs)) this.forget(key);
  }

  getState(key: string = DEFAULT_KEY): KeyState | undefined {
    const s = this.states.get(key);
    if (s === undefined) return undefined;
    const wrapped: WrappedState<S> = { kind: this.config.kind, state: this.copyState(s) };
    return wrapped;
  }

  setState(key: string, state: KeyState | undefined): void {
    if (state === undefined) {
      this.forget(key);
      return;
    }
    if (state.kind !== this.config.kind || !('state' in state)) {
      throw new TypeError(
        `setState: a ${state.kind} state cannot be loaded into a ${this.config.kind} limiter`,
      );
    }
    this.put(key, -1, this.copyState((state as WrappedState<S>).state));
  }
}
