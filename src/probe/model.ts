/**
 * The model a probe is judged against: one limiter config, or several replicas behind a
 * round-robin balancer each holding its own state, or all of them sharing one state, deciding a
 * list of requests in the order they reached the gateway. The plan, the verdict and the diagnosis
 * all decide through `decideAll`, so "expected" means the same thing everywhere.
 *
 * Pure: no clocks, no randomness, no DOM. Times are whole milliseconds on the model's clock
 * (`MODEL_DAY_MS` + the time within the UTC day, see `modelTime`).
 */
import type { AlgorithmConfig, Decision, KeyState, Limiter } from '../core';
import { createLimiter } from '../core';

/** One day in ms. */
export const DAY_MS = 86_400_000;

/**
 * The model's clock starts one day after its zero, and a probe's requests keep their time of day
 * (UTC): windows aligned to whole seconds, minutes, hours or days fall where the server's fall,
 * and times stay small whole numbers.
 */
export const MODEL_DAY_MS = DAY_MS;

/**
 * The epoch ms the model's time 0 stands for in a run that began at `epochStartMs`: model time
 * `modelTime(epochStartMs, t)` is then the wall time epochStartMs + t, so a limiter made with this
 * origin (createLimiter's originMs) places calendar months and years, and windows that do not
 * divide a day, on the UTC clock where the server places them. A whole number of days, so
 * seconds to days fall where they fell from the model's own zero.
 */
export function modelOrigin(epochStartMs: number): number {
  return Math.floor(epochStartMs / DAY_MS) * DAY_MS - MODEL_DAY_MS;
}

/** The model time of a request sent `sinceStartMs` after a run that began at `epochStartMs` (ms since 1970). */
export function modelTime(epochStartMs: number, sinceStartMs: number): number {
  const phase = ((epochStartMs % DAY_MS) + DAY_MS) % DAY_MS;
  return Math.floor(MODEL_DAY_MS + phase + sinceStartMs);
}

/**
 * A configuration that may explain what a gateway did: its limiter, how many replicas decide and
 * whether each has its own state, and which key the gateway reads.
 */
export interface Hypothesis {
  /** The limiter; null: no limit applies to these requests at all. */
  config: AlgorithmConfig | null;
  /** Replicas behind a round-robin balancer, 1 – 8. */
  replicas: number;
  /** 'local': each replica keeps its own state; 'shared': one state for all (an atomic store). */
  state: 'local' | 'shared';
  /**
   * The replica the first request of the run reached (round robin), 0 – replicas − 1. Replicas
   * start idle and alike, so this only names them: every offset decides alike.
   */
  offset: number;
  /** 'planned': the gateway keys requests as the plan set them; 'one': every request counts as one key. */
  keying: 'planned' | 'one';
}

/** The key every request has under `keying: 'one'`. */
export const ONE_KEY = 'one';

/** One request as the model decides it. */
export interface ModelRequest {
  /** Model time, whole ms. */
  timeMs: number;
  /** The plan's key slot (0, 1, …). */
  slot: number;
}

/** The key the limiter sees for a slot. */
export function modelKey(h: Pick<Hypothesis, 'keying'>, slot: number): string {
  return h.keying === 'one' ? ONE_KEY : `key-${slot}`;
}

/** Keys of the first slots, made once (a plan has at most 8). */
const SLOT_KEYS: readonly string[] = Array.from({ length: 8 }, (_, s) => `key-${s}`);
const ONE_KEYS: readonly string[] = Array.from({ length: 8 }, () => ONE_KEY);

const UNLIMITED: Decision = Object.freeze(unlimitedDecision());

/** The decision given to a request when no limit applies. */
export function unlimitedDecision(): Decision {
  return { outcome: 'admit', delayMs: 0, retryAfterMs: 0, remaining: 0, limit: 0, resetMs: 0 };
}

/**
 * A running model: decide requests one at a time, in arrival order, and copy it to try another
 * time for the next one (the diagnosis does).
 */
export class ModelRun {
  /** Requests decided so far (the round robin's position). */
  private count = 0;
  /** The key of each slot, made once. */
  private readonly keys: readonly string[];

  private constructor(
    readonly h: Hypothesis,
    private readonly limiters: Limiter[],
    count: number,
  ) {
    this.count = count;
    this.keys = h.keying === 'one' ? ONE_KEYS : SLOT_KEYS;
  }

  /**
   * A model in its idle state. Throws a RangeError when `h.config` is invalid. `idle`, a fresh
   * limiter of `h.config` (made with the same origin), is copied instead of made (and checked)
   * again: the diagnosis starts thousands of models. `originMs`: the epoch ms model time 0 stands
   * for (modelOrigin), 0 for a plan made before any run.
   */
  static start(h: Hypothesis, idle?: Limiter, originMs = 0): ModelRun {
    const n = h.config === null ? 0 : h.state === 'shared' ? 1 : h.replicas;
    const limiters: Limiter[] = [];
    const first = idle ?? (h.config === null ? undefined : createLimiter(h.config, { originMs }));
    for (let i = 0; i < n; i += 1)
      limiters.push(
        i === 0 && idle === undefined ? (first as Limiter) : (first as Limiter).clone(),
      );
    return new ModelRun(h, limiters, 0);
  }

  /** The replica the next request reaches. */
  nextReplica(): number {
    return (this.h.offset + this.count) % Math.max(1, this.h.replicas);
  }

  /** Decides one request (a copy of the decision) and the replica it reached. */
  decide(r: ModelRequest): { decision: Decision; replica: number } {
    const replica = this.nextReplica();
    this.count += 1;
    if (this.h.config === null) return { decision: unlimitedDecision(), replica };
    const limiter = this.limiters[this.h.state === 'shared' ? 0 : replica] as Limiter;
    return {
      decision: { ...limiter.decide(r.timeMs, this.keys[r.slot] ?? modelKey(this.h, r.slot)) },
      replica,
    };
  }

  /**
   * What deciding the next request for `slot` may change (one key on one replica, and the round
   * robin's position), to put back with `restore`: trying another time costs no copy of the model.
   */
  snapshot(slot: number): ModelSnapshot {
    const replica = this.nextReplica();
    const key = modelKey(this.h, slot);
    const limiter = this.limiters[this.h.state === 'shared' ? 0 : replica];
    return { count: this.count, limiter, key, state: limiter?.getState(key) };
  }

  /**
   * What deciding requests of `slot` may change on every replica (its key's state on each, and the
   * round robin's position), to put back with `restoreSlot`.
   */
  snapshotSlot(slot: number): SlotSnapshot {
    const key = this.keys[slot] ?? modelKey(this.h, slot);
    return { count: this.count, key, states: this.limiters.map((l) => l.getState(key)) };
  }

  /** Puts back what `snapshotSlot` saved. */
  restoreSlot(s: SlotSnapshot): void {
    this.count = s.count;
    this.limiters.forEach((l, i) => l.setState(s.key, s.states[i]));
  }

  /** Puts back what `snapshot` saved. */
  restore(s: ModelSnapshot): void {
    this.count = s.count;
    s.limiter?.setState(s.key, s.state);
  }

  /**
   * `decide` without the copies: the limiter's own decision, valid until the model decides again
   * (the diagnosis only looks at it once).
   */
  decideNow(timeMs: number, slot: number): Decision {
    const replica = this.nextReplica();
    this.count += 1;
    if (this.h.config === null) return UNLIMITED;
    const limiter = this.limiters[this.h.state === 'shared' ? 0 : replica] as Limiter;
    return limiter.decide(timeMs, this.keys[slot] ?? modelKey(this.h, slot));
  }

  /** An independent copy (its limiters cloned). */
  clone(): ModelRun {
    return new ModelRun(
      this.h,
      this.limiters.map((l) => l.clone()),
      this.count,
    );
  }
}

/** See `ModelRun.snapshotSlot`. */
export interface SlotSnapshot {
  count: number;
  key: string;
  states: Array<KeyState | undefined>;
}

/** See `ModelRun.snapshot`. */
export interface ModelSnapshot {
  count: number;
  limiter: Limiter | undefined;
  key: string;
  state: KeyState | undefined;
}

/** Every request's decision and replica under `h`, in the order given. */
export function decideAll(
  h: Hypothesis,
  requests: readonly ModelRequest[],
): Array<{ decision: Decision; replica: number }> {
  const run = ModelRun.start(h);
  return requests.map((r) => run.decide(r));
}
