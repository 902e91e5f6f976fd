// Long file on purpose: the fleet engine: balancers, scale events, the shared store and its failure
// modes interact on every request and share the engine's state.
/**
 * Fleets: replicas behind real balancers, replicas that come and go, local, global and
 * layered limits, and a shared store that can be slow or down.
 *
 * One `FleetEngine` per lane both routes (the balancer) and decides. Everything that changes a
 * decision — replicas created and lost at scale events and autoscaler ticks, the store, the
 * replicas' batched copies, the over-limit cache — is advanced by time inside `decide`/`flush` and
 * kept in the snapshot, so seeking (seek.ts) replays a row exactly as the run decided it. Balancer
 * state (round-robin counters, outstanding requests) is only used while routing during the run:
 * the chosen replica is recorded per row.
 *
 * Every new replica's limiter starts as the core starts a key: idle, which for all six algorithms
 * means the whole allowance is there (Envoy's token bucket starts full — envoy
 * source/common/common/token_bucket_impl.cc; nginx limit_req's first request finds excess 0;
 * redis-cell's tat starts at now; the windows start empty, i.e. with the full limit available).
 * None of the modelled systems starts a new replica with an empty allowance.
 */
import { createLimiter, createSharedLimiter, isTraefikBucket, quotaOf } from '../core';
import type { AlgorithmConfig, Decision, Limiter } from '../core';
import { hash32, lnUnit, mix32, toUnit } from './random';
import {
  OUTCOME_REJECT,
  WHY_TEXT,
  WHY_BATCHED,
  WHY_CACHE,
  WHY_DOWN_CLOSED,
  WHY_DOWN_LOCAL,
  WHY_DOWN_OPEN,
  WHY_KONG_READ,
  WHY_LAYER_LOCAL,
  WHY_REPLICA,
  WHY_STORE,
} from './types';
import type { Deployment, Fleet, LaneColumns, LaneFleet, ScaleEvent, StoreModel } from './types';

/** Draw streams (beside clients.ts's 1 – 3). */
const DRAW_LOR = 11;
const DRAW_SERVICE = 12;
const DRAW_STORE_RTT = 13;

/** Slots a fleet can use (the instance column is a Uint8Array; MAX_INSTANCES is 64). */
export const FLEET_SLOTS = 64;

/** Default store: 1 ms away, never down. */
export const DEFAULT_STORE: StoreModel = { rttMs: 1, jitterMs: 0, outages: [], onDown: 'open' };

/** True when a deployment needs the fleet engine (anything beyond what LaneEngine models). */
export function isFleet(d: Deployment): boolean {
  return (
    d.fleet !== undefined ||
    d.balancer === 'least-outstanding' ||
    d.balancer === 'hash' ||
    d.balancer === 'weighted' ||
    d.state === 'local-divided' ||
    d.state === 'layered'
  );
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/**
 * The config whose rate is `config`'s × num / den: exact where the algorithm's rate is a fraction
 * (token bucket tokens_per_fill / fill_interval, GCRA count / period, both reduced), floored to a
 * whole number (at least 1) where it is a count (window limits, bucket sizes, bursts); nginx's
 * rate switches to r/m when r/s would not be whole, as people write it. Dividing a global limit by
 * N replicas is num = 1, den = N.
 */
export function scaleConfig(config: AlgorithmConfig, num: number, den: number): AlgorithmConfig {
  const count = (x: number, min = 1): number => Math.max(min, Math.floor((x * num) / den));
  switch (config.kind) {
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-window-counter':
    case 'anchored-window':
      return { ...config, limit: count(config.limit) };
    case 'calendar-windows': {
      const scaled = { ...config };
      for (const unit of ['second', 'minute', 'hour', 'day', 'month', 'year'] as const) {
        const limit = config[unit];
        if (limit !== undefined) scaled[unit] = count(limit);
      }
      return scaled;
    }
    case 'token-bucket': {
      const p = config.tokensPerFill * num;
      const q = config.fillIntervalMs * den;
      const g = gcd(p, q);
      return {
        ...config,
        maxTokens: count(config.maxTokens),
        tokensPerFill: p / g,
        fillIntervalMs: q / g,
      };
    }
    case 'gcra': {
      const p = config.count * num;
      const q = config.periodMs * den;
      const g = gcd(p, q);
      return { ...config, count: p / g, periodMs: q / g, burst: count(config.burst, 0) };
    }
    case 'leaky-bucket': {
      const perMin = config.rateUnit === 'r/s' ? config.rate * 60 : config.rate;
      const scaled = (perMin * num) / den;
      const burst = count(config.burst, 0);
      const delay =
        config.delay === 'nodelay' ? 'nodelay' : Math.min(burst, count(config.delay, 0));
      if (config.rateUnit === 'r/s' && scaled % 60 === 0)
        return { ...config, rate: scaled / 60, burst, delay };
      return { ...config, rate: Math.max(1, Math.floor(scaled)), rateUnit: 'r/m', burst, delay };
    }
  }
}

/** A 32-bit hash of a key (FNV-1a, then mixed): where the ring hash balancer places a client. */
export function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

/**
 * Consistent hashing on the key, as nginx `hash $key consistent` builds it (ketama:
 * src/http/modules/ngx_http_upstream_hash_module.c, nginx 1.22, 160 points per server of weight 1;
 * Envoy's RING_HASH is the same idea with a ring of at least 1,024 points): a request goes to the
 * first point at or after its key's hash, wrapping. nginx hashes with CRC32; this uses a 32-bit
 * mix, so which replica a given key lands on differs from nginx, while the behaviour — a key sticks
 * to one replica, and adding a replica moves only keys onto it — is the same. Point positions do
 * not depend on the seed: a client lands on the same replica in every run.
 */
export class HashRing {
  private readonly points: Uint32Array;
  private readonly owners: Uint8Array;

  constructor(replicas: number) {
    const per = 160;
    const n = per * replicas;
    const pairs: Array<[number, number]> = [];
    for (let r = 0; r < replicas; r += 1)
      for (let v = 0; v < per; v += 1) pairs.push([hash32(0x7a11, r, v), r]);
    pairs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    this.points = new Uint32Array(n);
    this.owners = new Uint8Array(n);
    pairs.forEach(([p, r], i) => {
      this.points[i] = p;
      this.owners[i] = r;
    });
  }

  /** The replica owning `hash`. */
  lookup(hash: number): number {
    const pts = this.points;
    let lo = 0;
    let hi = pts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((pts[mid] as number) < hash) lo = mid + 1;
      else hi = mid;
    }
    return this.owners[lo === pts.length ? 0 : lo] as number;
  }
}

const rings = new Map<number, HashRing>();

/** The ring for n replicas (built once: it depends on n only). */
function ringOf(n: number): HashRing {
  let ring = rings.get(n);
  if (ring === undefined) {
    ring = new HashRing(n);
    rings.set(n, ring);
  }
  return ring;
}

/** A whole-ms service time for (origin, attempt). */
export function serviceTimeMs(
  fleet: Fleet | undefined,
  seed: number,
  origin: number,
  attempt: number,
): number {
  const s = fleet?.service ?? { kind: 'fixed', meanMs: 50 };
  if (s.kind === 'fixed') return s.meanMs;
  const u = toUnit(hash32(seed, DRAW_SERVICE, origin, attempt));
  if (s.kind === 'uniform') return Math.floor(u * (2 * s.meanMs + 1));
  return Math.floor(-lnUnit(1 - u) * s.meanMs);
}

/**
 * A pending batched admit: applied to the store at the next sync; or (Kong cluster) an increment
 * in flight, landing in the store at virtual `landMs`.
 */
interface Pending {
  wallMs: number;
  key: string;
  replica: number;
  landMs?: number;
}

/**
 * The store's config for a Kong policy: the database row / Redis key is incremented whatever the
 * count (cluster: the upsert adds 1; redis: INCR before the comparison), so it counts like a
 * calendar window that counts every hit.
 */
function kongStoreConfig(config: AlgorithmConfig): AlgorithmConfig {
  return config.kind === 'calendar-windows' ? { ...config, countRejected: true } : config;
}

/** What must survive a snapshot: everything that changes a decision. */
export interface FleetSnapshot {
  /** null: a replica holding no key (restored as a fresh limiter). */
  replicas: Array<Limiter | null>;
  store: Limiter | null;
  copies: Limiter[];
  copyEpoch: Array<Map<string, number>>;
  pending: Pending[];
  cache: Map<string, number>;
  alive: number;
  epoch: number;
  nextSyncMs: number;
  eventIndex: number;
  nextTickMs: number;
  periodCount: number;
  nowMs: number;
}

/** The scale events sorted by time (stable), for the engine. */
function sortedEvents(events: readonly ScaleEvent[] | undefined): ScaleEvent[] {
  return (events ?? [])
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.atMs - b.e.atMs || a.i - b.i)
    .map((x) => x.e);
}

export class FleetEngine {
  /** Per slot: the replica's own limiter (local, local-divided, layered front, fallback). */
  private replicas: Limiter[];
  private store: Limiter | null;
  private copies: Limiter[];
  private copyEpoch: Array<Map<string, number>>;
  private pending: Pending[];
  private cache: Map<string, number>;
  private alive: number;
  private epoch: number;
  private nextSyncMs: number;
  private eventIndex: number;
  private nextTickMs: number;
  private periodCount: number;
  private nowMs: number;

  readonly replicaConfig: AlgorithmConfig;
  readonly globalConfig: AlgorithmConfig;
  private readonly usesReplicas: boolean;
  /**
   * Per slot: 1 when the replica's limiter may have changed since the last snapshot. A clean
   * replica's snapshot is the previous snapshot's clone (snapshots are never mutated: restoring
   * clones them again), so a checkpoint copies only the replicas that decided since the last.
   */
  private readonly dirty = new Uint8Array(FLEET_SLOTS).fill(1);
  private lastSnap: Array<Limiter | null> = [];
  private readonly usesStore: boolean;
  private readonly storeModel: StoreModel;
  /** What a request gets when the store cannot be reached (the model's, or Traefik's own). */
  private readonly onDown: StoreModel['onDown'];
  /** Kong cluster: reads are decided on this scratch copy (emptied after each decision). */
  private readonly scratch: Limiter | null;
  /**
   * Keys whose store state changed outside a decision (Kong increments landed, batched admits
   * synced) since taken.
   */
  private landed: string[] = [];
  private readonly events: ScaleEvent[];
  private readonly fleet: Fleet | undefined;

  // ---- Routing (run only) ----
  private rr = 0;
  private ring: HashRing | null = null;
  private ringSize = 0;
  /** Key index → replica, for the current ring. */
  private ringCache: Int16Array;
  private readonly weights: Float64Array;
  private readonly current: Float64Array;
  private readonly outstanding: Int32Array;
  /** Outstanding holds: end time and slot, as a binary heap on end time. */
  private holdEnd: number[] = [];
  private holdSlot: number[] = [];

  // ---- What the last decide did ----
  why = 0;
  storeMs = -1;
  /** Replica count changes (recorded only when `record`). */
  readonly changes: Array<{ atMs: number; count: number }> = [];
  storeCalls = 0;

  /** createLimiter's options for every limiter of this fleet. */
  private get at(): { originMs: number } {
    return { originMs: this.originMs };
  }

  constructor(
    readonly config: AlgorithmConfig,
    readonly deployment: Deployment,
    readonly seed: number,
    keyCount: number,
    private readonly record: boolean,
    from?: FleetSnapshot,
    /** The epoch ms time 0 stands for (createLimiter's originMs): every limiter here takes it. */
    private readonly originMs = 0,
  ) {
    const d = deployment;
    this.fleet = d.fleet;
    const n0 = d.instances;
    const divided = scaleConfig(config, 1, n0);
    this.storeModel = d.fleet?.store ?? DEFAULT_STORE;
    // Traefik's Redis limiter has no failure policy: a failed script call is an error, answered
    // 500 (rate_limiter.go ServeHTTP, traefik v3.7.9), so its lanes fail closed whatever is chosen.
    this.onDown = isTraefikBucket(config) ? 'closed' : this.storeModel.onDown;
    this.usesStore = d.state === 'shared-atomic' || d.state === 'layered';
    this.usesReplicas = !this.usesStore || d.state === 'layered' || this.onDown === 'local';
    this.scratch = this.storeModel.kong === 'cluster' ? createLimiter(config, this.at) : null;
    this.replicaConfig = d.state === 'local' ? config : divided;
    this.globalConfig = d.state === 'local' ? scaleConfig(config, n0, 1) : config;
    this.events = sortedEvents(d.fleet?.scale);
    this.ringCache = new Int16Array(keyCount).fill(-1);
    this.weights = new Float64Array(FLEET_SLOTS);
    for (let i = 0; i < FLEET_SLOTS; i += 1) this.weights[i] = d.fleet?.weights?.[i] ?? 1;
    this.current = new Float64Array(FLEET_SLOTS);
    this.outstanding = new Int32Array(FLEET_SLOTS);
    if (from !== undefined) {
      this.replicas = from.replicas.map(
        (l) => l?.clone() ?? createLimiter(this.replicaConfig, this.at),
      );
      this.store = from.store?.clone() ?? null;
      this.copies = from.copies.map((l) => l.clone());
      this.copyEpoch = from.copyEpoch.map((m) => new Map(m));
      this.pending = from.pending.slice();
      this.cache = new Map(from.cache);
      this.alive = from.alive;
      this.epoch = from.epoch;
      this.nextSyncMs = from.nextSyncMs;
      this.eventIndex = from.eventIndex;
      this.nextTickMs = from.nextTickMs;
      this.periodCount = from.periodCount;
      this.nowMs = from.nowMs;
    } else {
      this.replicas = [];
      if (this.usesReplicas)
        for (let i = 0; i < FLEET_SLOTS; i += 1)
          this.replicas.push(createLimiter(this.replicaConfig, this.at));
      this.store = this.usesStore
        ? this.storeModel.kong === undefined
          ? createSharedLimiter(config, this.at)
          : createLimiter(kongStoreConfig(config), this.at)
        : null;
      const sync = this.storeModel.syncMs;
      this.copies = [];
      this.copyEpoch = [];
      if (this.usesStore && sync !== undefined) {
        for (let i = 0; i < FLEET_SLOTS; i += 1) {
          this.copies.push(createSharedLimiter(config, this.at));
          this.copyEpoch.push(new Map());
        }
      }
      this.pending = [];
      this.cache = new Map();
      this.alive = n0;
      this.epoch = 0;
      this.nextSyncMs = sync ?? Number.POSITIVE_INFINITY;
      this.eventIndex = 0;
      this.nextTickMs = d.fleet?.autoscale?.everyMs ?? Number.POSITIVE_INFINITY;
      this.periodCount = 0;
      this.nowMs = 0;
      if (record) this.changes.push({ atMs: 0, count: n0 });
    }
  }

  /**
   * True when the store runs the global limit and sees every request that passes through it
   * (a sliding log that logs rejections is the exception: its store also holds rejected requests).
   */
  get storeIsGlobal(): boolean {
    return (
      this.store !== null &&
      this.storeModel.kong === undefined &&
      !(this.config.kind === 'sliding-log' && this.config.logRejected === true)
    );
  }

  /** True when the shared store decides from wall time `nowMs` on exactly as `other` (sameStateAs). */
  storeSameAs(other: Limiter, nowMs: number): boolean {
    return this.store !== null && this.store.sameStateAs(other, nowMs);
  }

  /** A copy of the shared store (the run's oracle starts from it). */
  storeClone(): Limiter {
    return (this.store as Limiter).clone();
  }

  /**
   * Bumped whenever the replicas change (a scale event or an autoscaler tick replaces them): the
   * simulator's state tracker then re-reads all. Keys changed in the store outside a decision are
   * listed instead (takeLanded).
   */
  generation = 0;

  /**
   * The limiter a batched decision at replica `instance` reads for `key` now: a copy of that
   * replica's copy of the store, refreshed from the store first when the replica has not read `key`
   * in this sync epoch (as `decide` does). Undefined when the store is not batched.
   */
  batchedCopy(instance: number, key: string): Limiter | undefined {
    const view = this.copies[instance]?.clone();
    if (this.copyEpoch[instance]?.get(key) !== this.epoch)
      view?.setState(key, this.store?.getState(key));
    return view;
  }

  /** Replicas alive now. */
  get replicaCount(): number {
    return this.alive;
  }

  /** The limiters to draw: each replica's (slots 0 – 63), then the shared store's. */
  get stores(): Limiter[] {
    return this.store === null ? this.replicas : [...this.replicas, this.store];
  }

  /**
   * The indexes in `stores` the last decision (at replica `instance`) may have changed, by what
   * decided it (`why`): the replica's own limiter, the shared store, or both (layered). The batched
   * copies and the over-limit cache are charged apart (takeWriteCharge); other replicas' limiters
   * are untouched. When the request passed, every store listed decided it and passed it (the
   * state tracker relies on this).
   */
  touched(instance: number): readonly number[] {
    const w = this.why;
    const store = this.store !== null && w === WHY_STORE;
    const replica =
      this.deployment.state === 'layered' || w === WHY_REPLICA || w === WHY_DOWN_LOCAL;
    const sets = this.touchedSets;
    const i = (replica ? instance * 2 + 2 : 0) + (store ? 1 : 0);
    let t = sets[i];
    if (t === undefined) {
      const built: number[] = [];
      if (replica) built.push(instance);
      if (store) built.push(this.replicas.length);
      sets[i] = t = built;
    }
    return t;
  }

  /** touched's answers, built once: (replica ? slot · 2 + 2 : 0) + (store ? 1 : 0). */
  private readonly touchedSets: Array<readonly number[]> = [];

  /** The replica a store of `stores` belongs to, or null for the shared store. */
  storeOwner(index: number): number | null {
    return index < this.replicas.length ? index : null;
  }

  /** Writes still to sync (batched admits not yet applied to the store). */
  get inFlight(): number {
    return this.pending.length;
  }

  private setAlive(count: number, atMs: number): void {
    if (count === this.alive) return;
    if (count < this.alive) {
      // Scale-in: the removed replicas' state is lost (a pod that comes back starts fresh).
      for (let s = count; s < this.alive; s += 1) {
        if (this.usesReplicas) {
          const fresh = createLimiter(this.replicaConfig, this.at);
          if (this.keySlots !== null) fresh.useKeyIndex(this.keySlots);
          this.replicas[s] = fresh;
          this.dirty[s] = 1;
        }
        if (this.copies.length > 0) {
          this.copies[s] = createSharedLimiter(this.config, this.at);
          (this.copyEpoch[s] as Map<string, number>).clear();
        }
        this.outstanding[s] = 0;
        this.current[s] = 0;
      }
      // Their batched admits die with them.
      if (this.pending.length > 0) this.pending = this.pending.filter((p) => p.replica < count);
    }
    this.alive = count;
    this.ring = null;
    this.generation += 1;
    if (this.record) this.changes.push({ atMs, count });
  }

  /** Applies every batched admit to the store, in time order (ties: replica order). */
  private sync(): void {
    const store = this.store as Limiter;
    const p = this.pending;
    p.sort((a, b) => a.wallMs - b.wallMs || a.replica - b.replica);
    for (const w of p) {
      store.decide(w.wallMs, w.key);
      this.landed.push(w.key);
    }
    this.pending = [];
    this.epoch += 1;
  }

  private down(tMs: number): boolean {
    for (const o of this.storeModel.outages) if (tMs >= o.fromMs && tMs < o.toMs) return true;
    return false;
  }

  /** The first time at or after `tMs` when the store is up (`tMs` unless an outage covers it). */
  private upAt(tMs: number): number {
    let t = tMs;
    for (let o = outageAt(this.deployment, t); o !== null; o = outageAt(this.deployment, t))
      t = o.toMs;
    return t;
  }

  /**
   * Kong cluster: lands the increments due by `tMs` (in landing order, which is request order: the
   * lag is the fixed rttMs), each counted at its request's own wall time, so in its own period
   * (the row's key carries period_date: policies/cluster.lua). An increment landing while the
   * store is down is lost (the timer's query fails and is only logged: policies/init.lua).
   */
  private land(tMs: number): void {
    const p = this.pending;
    let i = 0;
    while (i < p.length && ((p[i] as Pending).landMs as number) <= tMs) {
      const w = p[i] as Pending;
      if (!this.down(w.landMs as number)) {
        (this.store as Limiter).decide(w.wallMs, w.key);
        this.landed.push(w.key);
      }
      i += 1;
    }
    if (i > 0) this.pending = p.slice(i);
  }

  /**
   * The keys Kong increments or syncs changed in the store since the last call (for the state
   * tracker: only they are read again, not every key of every store).
   */
  takeLanded(): string[] {
    const l = this.landed;
    if (l.length > 0) this.landed = [];
    return l;
  }

  /**
   * The time of the earliest scale event, autoscaler tick or sync not yet processed, as advance
   * last found it (-∞: not known yet): until then advance has nothing to do but move the clock.
   */
  private dueMs = Number.NEGATIVE_INFINITY;

  /** Processes scale events, autoscaler ticks and syncs at or before `tMs`, in time order. */
  advance(tMs: number): void {
    if (this.scratch !== null && this.pending.length > 0) this.land(tMs);
    if (tMs < this.dueMs) {
      if (tMs > this.nowMs) this.nowMs = tMs;
      return;
    }
    for (;;) {
      const ev = this.events[this.eventIndex];
      const tEv = ev?.atMs ?? Number.POSITIVE_INFINITY;
      const tNext = Math.min(tEv, this.nextTickMs, this.nextSyncMs);
      if (tNext > tMs) {
        this.dueMs = tNext;
        break;
      }
      if (tEv === tNext && ev !== undefined) {
        this.eventIndex += 1;
        this.setAlive(ev.instances, tEv);
      } else if (this.nextTickMs === tNext) {
        const a = this.fleet?.autoscale;
        if (a !== undefined) {
          const rate = (this.periodCount * 1000) / a.everyMs;
          const want = Math.min(a.max, Math.max(a.min, Math.ceil(rate / a.perReplicaRps)));
          this.setAlive(want, tNext);
          this.periodCount = 0;
          this.nextTickMs += a.everyMs;
          // Ticks that see no request leave `min` replicas: past the first, each changes nothing.
          if (want === a.min) this.nextTickMs = skipIdle(this.nextTickMs, a.everyMs, tMs, tEv);
        }
      } else {
        // A sync the store cannot take (outage) waits for the next one; the admits stay pending.
        const syncMs = this.storeModel.syncMs as number;
        const before = Math.min(tEv, this.nextTickMs);
        const upMs = this.upAt(tNext);
        if (upMs === tNext) {
          this.sync();
          this.syncedSinceDecide = true;
        }
        this.nextSyncMs += syncMs;
        // Skipped in one step rather than one by one (a 1 ms sync over 24 h of virtual time is
        // 86,400,000 of them): the syncs due before the store is back, which do nothing; and once
        // a sync has run since the last decision, the next ones until a decision, which have
        // nothing to apply and nothing to refresh (every copy already reads the store again, its
        // epoch changed, and the store cannot change).
        if (upMs > tNext || (this.syncedSinceDecide && this.pending.length === 0))
          this.nextSyncMs = skipIdle(
            this.nextSyncMs,
            syncMs,
            tMs,
            upMs > tNext ? Math.min(before, upMs) : before,
          );
      }
    }
    this.nowMs = Math.max(this.nowMs, tMs);
  }

  /**
   * True when a sync has bumped the epoch since the last decision: a later sync before the next
   * decision would only bump it again (skipped, see advance). Not kept in snapshots: an engine
   * restored from one starts false, and its next sync runs as the run's did.
   */
  private syncedSinceDecide = false;

  /** Lands everything due by `tMs` (for drawing the state at a time). */
  flush(tMs: number): void {
    this.advance(tMs);
  }

  private popHolds(tMs: number): void {
    const end = this.holdEnd;
    const slot = this.holdSlot;
    while (end.length > 0 && (end[0] as number) <= tMs) {
      const s = slot[0] as number;
      if ((this.outstanding[s] as number) > 0)
        this.outstanding[s] = (this.outstanding[s] as number) - 1;
      const lastE = end.pop() as number;
      const lastS = slot.pop() as number;
      const n = end.length;
      if (n === 0) break;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && (end[r] as number) < (end[l] as number) ? r : l;
        if ((end[c] as number) >= lastE) break;
        end[i] = end[c] as number;
        slot[i] = slot[c] as number;
        i = c;
      }
      end[i] = lastE;
      slot[i] = lastS;
    }
  }

  /** Records that `slot` is busy until `untilMs` (least-outstanding). */
  hold(slot: number, untilMs: number): void {
    this.outstanding[slot] = (this.outstanding[slot] as number) + 1;
    const end = this.holdEnd;
    const sl = this.holdSlot;
    let i = end.length;
    end.push(untilMs);
    sl.push(slot);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((end[p] as number) <= untilMs) break;
      end[i] = end[p] as number;
      sl[i] = sl[p] as number;
      i = p;
    }
    end[i] = untilMs;
    sl[i] = slot;
  }

  /** Picks the replica for an attempt at tMs (run only; the pick is recorded per row). */
  route(tMs: number, origin: number, attempt: number, keyIndex: number): number {
    this.advance(tMs);
    const n = this.alive;
    if (n === 1) {
      if (this.deployment.balancer === 'least-outstanding') this.popHolds(tMs);
      return 0;
    }
    switch (this.deployment.balancer) {
      case 'round-robin': {
        const i = this.rr % n;
        this.rr = i + 1;
        return i;
      }
      case 'random':
        return hash32(this.seed, 2, origin, attempt) % n;
      case 'hash': {
        if (this.ring === null || this.ringSize !== n) {
          this.ring = ringOf(n);
          this.ringSize = n;
          this.ringCache.fill(-1);
        }
        let r = this.ringCache[keyIndex] as number;
        if (r < 0) {
          r = this.ring.lookup(this.keyHashes?.[keyIndex] ?? 0);
          this.ringCache[keyIndex] = r;
        }
        return r;
      }
      case 'weighted': {
        // nginx smooth weighted round-robin (src/http/ngx_http_upstream_round_robin.c,
        // ngx_http_upstream_get_peer, nginx 1.22): every peer gains its weight, the one with the
        // most current weight wins (the first on ties) and gives back the total.
        let total = 0;
        let best = -1;
        for (let s = 0; s < n; s += 1) {
          const w = this.weights[s] as number;
          if (w === 0) continue;
          this.current[s] = (this.current[s] as number) + w;
          total += w;
          if (best < 0 || (this.current[s] as number) > (this.current[best] as number)) best = s;
        }
        if (best < 0) return 0;
        this.current[best] = (this.current[best] as number) - total;
        return best;
      }
      case 'least-outstanding': {
        // Envoy LEAST_REQUEST with the default choice_count 2 (source/extensions/load_balancing_
        // policies/least_request/least_request_lb.cc, Envoy 1.31): two random hosts (with
        // replacement), the one with fewer active requests; on a tie the first drawn.
        this.popHolds(tMs);
        const a = hash32(this.seed, DRAW_LOR, origin, attempt * 2) % n;
        const b = hash32(this.seed, DRAW_LOR, origin, attempt * 2 + 1) % n;
        return (this.outstanding[b] as number) < (this.outstanding[a] as number) ? b : a;
      }
    }
  }

  /** Key → index (simulate's keyNames), given to every replica and the store; null: not used. */
  private keySlots: ReadonlyMap<string, number> | null = null;

  /**
   * Lets the replicas' and the store's limiters find a key by its index (Limiter.useKeyIndex),
   * now and after scale events: `decide` then takes the key's index. Run only (a snapshot's
   * clones do not carry it).
   */
  useKeyIndex(index: ReadonlyMap<string, number>): void {
    this.keySlots = index;
    for (const l of this.replicas) l.useKeyIndex(index);
    this.store?.useKeyIndex(index);
  }

  /** Key hashes by key index, set by the run (hash balancer). */
  keyHashes: Uint32Array | null = null;

  /**
   * Each first attempt's store jitter by origin (storeFirstJitters), set by the run: the draw is
   * the same in every lane, so a run makes it once. Null: drawn per call (retries always are).
   */
  firstJitter: Int32Array | null = null;

  private static open(config: AlgorithmConfig): Decision {
    const limit =
      config.kind === 'token-bucket'
        ? config.maxTokens
        : config.kind === 'leaky-bucket'
          ? config.burst + 1
          : config.kind === 'gcra'
            ? config.burst + 1
            : config.kind === 'calendar-windows'
              ? quotaOf(config).limit
              : config.limit;
    return { outcome: 'admit', delayMs: 0, retryAfterMs: 0, remaining: 0, limit, resetMs: 0 };
  }

  /**
   * Decides a request arriving at virtual tMs (wall wallMs) at replica `instance` for `key`; sets
   * `why` and `storeMs`. `k`: the key's index given to useKeyIndex, or -1.
   */
  decide(
    tMs: number,
    wallMs: number,
    instance: number,
    key: string,
    origin: number,
    attempt: number,
    k = -1,
  ): Decision {
    this.advance(tMs);
    this.syncedSinceDecide = false;
    this.storeMs = -1;
    const d = this.decideInner(tMs, wallMs, instance, key, origin, attempt, k);
    if (d.outcome !== 'reject' || this.fleet?.autoscale?.on === 'offered') this.periodCount += 1;
    return d;
  }

  private decideInner(
    tMs: number,
    wallMs: number,
    instance: number,
    key: string,
    origin: number,
    attempt: number,
    k: number,
  ): Decision {
    const state = this.deployment.state;
    if (!this.usesStore) {
      this.why = WHY_REPLICA;
      this.dirty[instance] = 1;
      return (this.replicas[instance] as Limiter).decideKey(wallMs, key, k);
    }
    if (state === 'layered') {
      this.dirty[instance] = 1;
      const local = (this.replicas[instance] as Limiter).decideKey(wallMs, key, k);
      if (local.outcome === 'reject') {
        this.why = WHY_LAYER_LOCAL;
        return local;
      }
    }
    const m = this.storeModel;
    if (m.cacheOverLimit === true) {
      const until = this.cache.get(key);
      if (until !== undefined) {
        if (until > wallMs) {
          this.why = WHY_CACHE;
          return {
            outcome: 'reject',
            delayMs: 0,
            retryAfterMs: until - wallMs,
            remaining: 0,
            limit: FleetEngine.open(this.config).limit,
            resetMs: until - wallMs,
          };
        }
        this.cache.delete(key);
      }
    }
    if (m.syncMs !== undefined) {
      // Batched: decide on this replica's copy, refreshed from the store once per sync epoch.
      const copy = this.copies[instance] as Limiter;
      const seen = this.copyEpoch[instance] as Map<string, number>;
      if (seen.get(key) !== this.epoch) {
        copy.setState(key, (this.store as Limiter).getState(key));
        seen.set(key, this.epoch);
      }
      const d = copy.decide(wallMs, key);
      if (d.outcome !== 'reject') this.pending.push({ wallMs, key, replica: instance });
      this.why = WHY_BATCHED;
      return d;
    }
    let reachable = !this.down(tMs);
    if (reachable) {
      const first = this.firstJitter;
      const rtt =
        m.rttMs +
        (m.jitterMs === 0
          ? 0
          : attempt === 1 && first !== null && origin < first.length
            ? (first[origin] as number)
            : storeJitterMs(this.seed, m.jitterMs, origin, attempt));
      this.storeMs = rtt;
      this.storeCalls += 1;
      if (m.timeoutMs !== undefined && rtt > m.timeoutMs) reachable = false;
    }
    if (!reachable) {
      if (this.onDown === 'open') {
        this.why = WHY_DOWN_OPEN;
        // Kong (fault_tolerant): the pass still schedules its increment, which counts if the
        // store is back when it lands (handler.lua: the timer is created after a failed usage).
        if (this.scratch !== null)
          this.pending.push({ wallMs, key, replica: instance, landMs: tMs + m.rttMs });
        return FleetEngine.open(this.config);
      }
      if (this.onDown === 'closed') {
        this.why = WHY_DOWN_CLOSED;
        // The error response carries no Retry-After: clients that honour it wait as for 1 s.
        return { ...FleetEngine.open(this.config), outcome: 'reject', retryAfterMs: 1000 };
      }
      this.why = WHY_DOWN_LOCAL;
      // In a layered fleet the local limit already counted this request.
      if (state === 'layered') return FleetEngine.open(this.config);
      this.dirty[instance] = 1;
      return (this.replicas[instance] as Limiter).decideKey(wallMs, key, k);
    }
    if (this.scratch !== null) {
      // Kong cluster (handler.lua access → get_usage, then the increment in a timer): decide on
      // the count the store holds now; a pass is counted only when its increment lands.
      const scratch = this.scratch;
      scratch.setState(key, (this.store as Limiter).getState(key));
      const d = scratch.decide(wallMs, key);
      scratch.setState(key, undefined);
      if (d.outcome !== 'reject')
        this.pending.push({ wallMs, key, replica: instance, landMs: tMs + m.rttMs });
      this.why = WHY_KONG_READ;
      return d;
    }
    this.why = WHY_STORE;
    const d = (this.store as Limiter).decideKey(wallMs, key, k);
    if (d.outcome === 'reject' && m.cacheOverLimit === true)
      this.cache.set(key, wallMs + d.retryAfterMs);
    return d;
  }

  /**
   * Bytes a snapshot keeps beyond the stores the state tracker counts (the memory budget charges
   * them at every checkpoint, each snapshot holding its own copy): batched admits, the over-limit
   * cache and the replicas' local copies of the global state. Estimates per entry, on the high side.
   */
  takeWriteCharge(): number {
    let bytes = this.pending.length * 64 + this.cache.size * 96;
    for (const copy of this.copies) {
      for (const key of copy.keys()) bytes += copy.stateSize(this.nowMs, key).bytes + 64;
    }
    return bytes;
  }

  snapshot(): FleetSnapshot {
    return {
      replicas: this.replicas.map((l, i) => {
        if (this.dirty[i] === 0 && i < this.lastSnap.length)
          return this.lastSnap[i] as Limiter | null;
        this.dirty[i] = 0;
        return (this.lastSnap[i] = l.size === 0 ? null : l.clone());
      }),
      store: this.store?.clone() ?? null,
      copies: this.copies.map((l) => l.clone()),
      copyEpoch: this.copyEpoch.map((m) => new Map(m)),
      pending: this.pending.slice(),
      cache: new Map(this.cache),
      alive: this.alive,
      epoch: this.epoch,
      nextSyncMs: this.nextSyncMs,
      eventIndex: this.eventIndex,
      nextTickMs: this.nextTickMs,
      periodCount: this.periodCount,
      nowMs: this.nowMs,
    };
  }
}

let idleSkipping = true;

/**
 * Turns the skipping of idle syncs and autoscaler ticks off (tests: the same run must decide the
 * same with it off, one sync and one tick at a time).
 */
export function setIdleSkipping(on: boolean): void {
  idleSkipping = on;
}

/**
 * The first of the times `nextMs`, `nextMs + everyMs`, … that advance must still process, given
 * that those before `beforeMs` (and up to `tMs`) have nothing to do: the first after `tMs`, or the
 * first at or after `beforeMs` (when a scale event or tick is due, or the store is back).
 */
function skipIdle(nextMs: number, everyMs: number, tMs: number, beforeMs: number): number {
  if (!idleSkipping) return nextMs;
  const last = Math.min(tMs, beforeMs - 1);
  if (nextMs > last) return nextMs;
  return nextMs + (Math.floor((last - nextMs) / everyMs) + 1) * everyMs;
}

/** The seeded jitter (0 – jitterMs) of the store call of attempt `attempt` of `origin`. */
function storeJitterMs(seed: number, jitterMs: number, origin: number, attempt: number): number {
  return Math.floor(toUnit(hash32(seed, DRAW_STORE_RTT, origin, attempt)) * (jitterMs + 1));
}

/** Every first attempt's store jitter (storeJitterMs), by origin: shared by a run's lanes. */
export function storeFirstJitters(seed: number, jitterMs: number, count: number): Int32Array {
  const out = new Int32Array(count);
  for (let i = 0; i < count; i += 1) out[i] = storeJitterMs(seed, jitterMs, i, 1);
  return out;
}

/** The store model's outage covering tMs, or null. */
export function outageAt(
  deployment: Deployment,
  tMs: number,
): { fromMs: number; toMs: number } | null {
  for (const o of deployment.fleet?.store?.outages ?? [])
    if (tMs >= o.fromMs && tMs < o.toMs) return o;
  return null;
}

/** The fleet part of a lane's result: the per-row columns cut to size, and the fleet metrics. */
export function fleetResult(
  engine: FleetEngine,
  columns: LaneColumns,
  whyAll: Uint8Array,
  storeMsAll: Int32Array,
  beyondAll: Uint8Array,
  measured: boolean,
): LaneFleet {
  const rows = columns.rows;
  const why = whyAll.slice(0, rows);
  const storeMs = storeMsAll.slice(0, rows);
  const beyondRows = beyondAll.slice(0, rows);
  const offered = new Uint32Array(FLEET_SLOTS);
  const passed = new Uint32Array(FLEET_SLOTS);
  const rejected = new Uint32Array(FLEET_SLOTS);
  const byWhy = new Uint32Array(WHY_TEXT.length);
  const beyondByWhy = new Uint32Array(WHY_TEXT.length);
  let beyond = 0;
  let firstMs = -1;
  let lastMs = -1;
  const inst = columns.instance;
  const sharedZero = inst.length < rows;
  for (let r = 0; r < rows; r += 1) {
    const s = sharedZero ? 0 : (inst[r] as number);
    const w = why[r] as number;
    offered[s] = (offered[s] as number) + 1;
    byWhy[w] = (byWhy[w] as number) + 1;
    if (columns.outcome[r] === OUTCOME_REJECT) rejected[s] = (rejected[s] as number) + 1;
    else passed[s] = (passed[s] as number) + 1;
    if (beyondRows[r] === 1) {
      beyond += 1;
      beyondByWhy[w] = (beyondByWhy[w] as number) + 1;
      const t = columns.arrivalMs[r] as number;
      if (firstMs < 0) firstMs = t;
      lastMs = t;
    }
  }
  const replicas = engine.changes.slice();
  return {
    why,
    storeMs,
    beyond: beyondRows,
    replicas,
    replicaConfig: engine.replicaConfig,
    globalConfig: engine.globalConfig,
    metrics: {
      perReplica: { offered, passed, rejected },
      byWhy,
      beyond: measured
        ? { count: beyond, firstMs, lastMs, byWhy: beyondByWhy }
        : { count: 0, firstMs: -1, lastMs: -1, byWhy: beyondByWhy },
      storeCalls: engine.storeCalls,
      maxReplicas: Math.max(...replicas.map((c) => c.count)),
    },
  };
}
