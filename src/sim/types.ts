// Long file on purpose: every type the simulator exposes, each documented with units; one place to
// read the contract.
/**
 * The scenario a simulation runs (plain, JSON-serialisable data: src/config carries it in the URL)
 * and the result it produces (columnar typed arrays the UI indexes by time).
 *
 * Units: every time and duration is a whole number of virtual milliseconds and carries an `Ms`
 * suffix; rates are requests per second. Virtual time starts at 0.
 */
import type { AlgorithmConfig, Outcome } from '../core';

// ---------------------------------------------------------------------------------------------
// Limits (validate.ts checks them; the UI can show them as slider bounds)
// ---------------------------------------------------------------------------------------------

/** The longest run: one day of virtual time. `untilMs` is 1 – MAX_UNTIL_MS. */
export const MAX_UNTIL_MS = 86_400_000;
/**
 * First attempts per run. Above it the run is cut at the first arrival past the cap (everything
 * before that instant is complete) and the result says so (`truncated`). About 7 bytes each.
 */
export const MAX_FIRST_ATTEMPTS = 1_000_000;
/**
 * Decisions (attempts × limiters) per run, shared evenly by the limiters: retries multiply
 * attempts, so each lane stops at ⌊MAX_DECISIONS / lanes⌋ rows and says so. About 23 bytes each,
 * so a full run stays under 100 MB.
 */
export const MAX_DECISIONS = 4_000_000;
/** Limiters compared in one run. */
export const MAX_LANES = 12;
export const MAX_SOURCES = 32;
/** Times in one manual source. */
export const MAX_MANUAL_TIMES = 10_000;
/** Requests a replayed trace may hold (src/trace keeps its traces under it). */
export const MAX_TRACE_SOURCE_REQUESTS = 5_000_000;
/** Requests in one burst (or on each side of a boundary burst). */
export const MAX_BURST = 100_000;
/** Requests per second of one source. */
export const MAX_RATE_PER_SEC = 100_000;
export const MIN_RATE_PER_SEC = 0.001;
export const MAX_CLIENTS = 10_000;
export const MAX_INSTANCES = 64;
export const MAX_ATTEMPTS = 100;
export const MAX_CLOCK_JUMPS = 32;
/** Bins in the rate-over-time metrics. */
export const MAX_BINS = 100_000;
/** The longest round trip, backoff, turnaround or spread. */
export const MAX_WAIT_MS = 3_600_000;

// ---------------------------------------------------------------------------------------------
// Scenario
// ---------------------------------------------------------------------------------------------

interface SourceBase {
  /**
   * Send every request of this source from this client (0-based index below `clients.count`).
   * Default: the source's requests are spread over all clients by `clients.assign`.
   */
  client?: number;
}

/** Requests at the listed times (a person clicking "send"). */
export interface ManualSource extends SourceBase {
  kind: 'manual';
  /** Arrival times, any order, duplicates allowed. At most 10,000, each 0 – 86,400,000. */
  timesMs: number[];
}

/** `count` requests at `atMs`, or spread evenly over [atMs, atMs + spreadMs). */
export interface BurstSource extends SourceBase {
  kind: 'burst';
  atMs: number;
  /** 1 – 100,000. */
  count: number;
  /** Default 0: all at the same millisecond. 0 – 3,600,000. */
  spreadMs?: number;
}

/** Evenly spaced requests: the n-th at startMs + ⌊n·1000 / ratePerSec⌋, while before endMs. */
export interface ConstantSource extends SourceBase {
  kind: 'constant';
  /** 0.001 – 100,000. */
  ratePerSec: number;
  startMs: number;
  /** Exclusive; greater than startMs. */
  endMs: number;
}

/**
 * A Poisson process: exponential gaps with mean 1000 / ratePerSec ms, each arrival floored to a
 * whole millisecond, in [startMs, endMs). Drawn from the scenario's seed and this source's index.
 */
export interface PoissonSource extends SourceBase {
  kind: 'poisson';
  ratePerSec: number;
  startMs: number;
  endMs: number;
}

/**
 * A square wave: `ratePerSec` evenly spaced for onMs, silence for offMs, repeated from startMs
 * until endMs. Each on-phase restarts the spacing, so its first request is at the phase start.
 */
export interface OnOffSource extends SourceBase {
  kind: 'on-off';
  ratePerSec: number;
  /** 1 – 3,600,000. */
  onMs: number;
  /** 0 – 3,600,000. */
  offMs: number;
  startMs: number;
  endMs: number;
}

/**
 * The boundary burst: `count` requests just before `boundaryMs` (ending at boundaryMs − 1) and
 * `count` from `boundaryMs` on. With spreadMs = 0 (default) they are all at boundaryMs − 1 and
 * boundaryMs; otherwise each half is spread evenly over spreadMs on its side. Through a fixed window
 * whose window ends at boundaryMs this admits twice the limit within two milliseconds.
 */
export interface BoundaryBurstSource extends SourceBase {
  kind: 'boundary-burst';
  /** 1 – 86,400,000. */
  boundaryMs: number;
  /** Requests on each side, 1 – 100,000. */
  count: number;
  spreadMs?: number;
}

/**
 * Requests replayed from an access log: every request of the trace at its own time (ms
 * since the trace's first request, floored) with its own key. The scenario (and so the link)
 * carries only the trace's fingerprint; the requests themselves come with `SimOptions.traces`
 * (matched by `hash`). Without them the source sends nothing and the result says which file to drop
 * (`truncation`). Its requests keep the trace's keys: the client model applies to other sources.
 * At most one trace source per scenario.
 */
export interface TraceSource {
  kind: 'trace';
  /** The file's name (1 – 200 characters), to say which file to drop. */
  name: string;
  /** The file's size in bytes, 0 – 2^40. */
  bytes: number;
  /** Requests in the trace, 1 – 5,000,000. */
  requests: number;
  /** `traceHash` of the replayed times and keys: 16 lowercase hex digits. */
  hash: string;
  /**
   * Where the replayed span starts, ms after the trace's first request (0 – 2^31 − 1): the run
   * replays the requests in [fromMs, fromMs + untilMs), each `fromMs` earlier, with its limiters
   * idle at the span's start. Absent: from the first request.
   */
  fromMs?: number;
  /**
   * The key the log was read with (the fingerprint covers the keys, so the same file keyed
   * otherwise is another trace), as src/trace/keys.ts writes it: `xff-first`, `xff-last`, `path`,
   * `client+path`, `all`, or `field:<name>`. Absent: the client address (every link before it).
   */
  key?: string;
  /**
   * The span of the named file the trace was read out of, epoch ms [spanFromMs, spanToMs): a log
   * too large to hold is replayed a span at a time, and the fingerprint is the span's. Absent: the
   * trace is the whole file.
   */
  spanFromMs?: number;
  spanToMs?: number;
}

/** The requests of a trace source, as the simulator replays them. */
export interface SimTrace {
  /** The fingerprint a TraceSource names. */
  hash: string;
  /** Whole ms since the trace's first request, ascending. */
  timeMs: Int32Array;
  /**
   * The epoch ms `timeMs` 0 stands for (the first request's whole ms, or a span's start): windows
   * on the clock are placed from it (createLimiter's originMs). Absent: 0.
   */
  originMs?: number;
  /** Index into `keys`, per request. */
  keyId: Uint32Array;
  keys: readonly string[];
  /**
   * The id in `keys` of the key the trace gives a request whose key is empty (marked once when
   * the trace is read, so a run compares ids, not strings); absent or −1: no request has one.
   */
  emptyKeyId?: number;
  /**
   * The client address of each empty-key request, when the log has them: `client[e]` is 0 when
   * the e-th request of the empty key (in trace order) has no address, else 1 + an index into
   * `names`. A lane whose system keys such a request by its address (`NamedLimiter.emptyKey`
   * `'client'`) counts it with that address's other requests.
   */
  emptyClients?: { client: Uint32Array; names: readonly string[] };
}

export type TrafficSource =
  | ManualSource
  | BurstSource
  | ConstantSource
  | PoissonSource
  | OnOffSource
  | BoundaryBurstSource
  | TraceSource;

export type TrafficKind = TrafficSource['kind'];

/**
 * Who sends and which key the limiter sees.
 * - one client: `{ count: 1 }`;
 * - K clients, each its own key (limiting by API key or by IP when each has its own address):
 *   `{ count: K, keying: 'per-client' }`, keys `client-1` … `client-K`;
 * - many users behind one NAT address (limiting by IP): `{ count: K, keying: 'shared' }`, every
 *   request has the key `nat-gateway`.
 */
export interface ClientModel {
  /** 1 – 10,000. Default 1. */
  count: number;
  /** Default 'per-client'. */
  keying: 'per-client' | 'shared';
  /**
   * How requests of sources without a `client` are spread over the clients, in arrival order:
   * in turn, or by a seeded draw per request. Default 'round-robin'.
   */
  assign: 'round-robin' | 'random';
}

/**
 * What a client does when rejected. Every retry is a new arrival at the limiter, marked with its
 * attempt number. Retries depend on each limiter's own rejections, so each lane has its own.
 */
export interface RetryPolicy {
  /**
   * - 'give-up': never retry (default);
   * - 'immediate': retry after `turnaroundMs` only;
   * - 'retry-after': wait ⌈retryAfterMs / 1000⌉ s, as the `Retry-After` header says, then retry;
   * - 'backoff': exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff
   *   And Jitter"): after the n-th rejected attempt wait a seeded uniform whole ms in
   *   [0, min(backoffCapMs, backoffBaseMs · 2^(n−1))].
   */
  onReject: 'give-up' | 'immediate' | 'retry-after' | 'backoff';
  /** Attempts per request, the first included: 1 – 100. Default 4. */
  maxAttempts: number;
  /** 1 – 3,600,000. Default 100. */
  backoffBaseMs: number;
  /** backoffBaseMs – 3,600,000. Default 10,000. */
  backoffCapMs: number;
  /** Added to every retry's wait (the client's own round trip). 0 – 3,600,000. Default 0. */
  turnaroundMs: number;
}

/**
 * Instances of the limited service behind a load balancer, and where their limiter state lives.
 * - 'local': each instance has its own limiter, so N instances admit up to N× the limit;
 * - 'shared-atomic': one store updated atomically (a Redis script, say): 1× the limit;
 * - 'shared-racy': each instance reads the key's state at arrival, decides on its copy and writes
 *   it back `roundTripMs` later, overwriting whatever another instance wrote in between (GET, then
 *   SET). A rejected request writes nothing (except a sliding log with `logRejected`).
 */
export interface Deployment {
  /** 1 – 64. Default 1. With `fleet.scale`, the replica count at t = 0. */
  instances: number;
  /**
   * 'round-robin' counts every attempt of the lane in turn; 'random' is a seeded draw per attempt.
   * Fleet balancers (src/sim/fleet.ts): 'least-outstanding' (Envoy LEAST_REQUEST, power
   * of two choices), 'hash' (Envoy RING_HASH on the key: a client always lands on one replica),
   * 'weighted' (nginx smooth weighted round-robin over `fleet.weights`).
   */
  balancer: 'round-robin' | 'random' | FleetBalancer;
  /**
   * Default 'local'. Fleet kinds: 'local-divided' (each replica runs the lane's limit ÷ N, N =
   * `instances` at t = 0: the common way to spread a global limit) and 'layered' (that local limit
   * in front of the global one in the shared store, as Envoy deployments layer local_ratelimit
   * before the ratelimit service). With a fleet, 'shared-atomic' is the global limit reached
   * through `fleet.store`.
   */
  state: 'local' | 'shared-atomic' | 'shared-racy' | FleetState;
  /** Read-to-write delay for 'shared-racy'. 0 – 3,600,000. Default 5. 0 behaves as atomic. */
  roundTripMs: number;
  /** Replicas that come and go, and the shared store. Absent: today's deployment. */
  fleet?: Fleet;
}

// ---- Fleet -------------------------------------------------------------------------

export type FleetBalancer = 'least-outstanding' | 'hash' | 'weighted';
export type FleetState = 'local-divided' | 'layered';

/** Replicas per fleet: slots 0 – 63 (a pod that comes back in a slot starts fresh). */
export const MAX_WEIGHT = 1000;
export const MAX_SCALE_EVENTS = 32;
export const MAX_OUTAGES = 16;

/** How long a passed request holds its replica (for 'least-outstanding'). */
export interface ServiceTime {
  /** 'fixed': meanMs; 'uniform': a seeded whole ms in [0, 2·meanMs]; 'exponential': mean meanMs. */
  kind: 'fixed' | 'uniform' | 'exponential';
  /** 0 – 3,600,000. */
  meanMs: number;
}

/** At `atMs` the fleet becomes `instances` replicas: new slots start fresh, removed ones lose state. */
export interface ScaleEvent {
  /** 0 – 86,400,000. */
  atMs: number;
  /** 1 – 64. */
  instances: number;
}

/**
 * A simple autoscaler (the shape of a Kubernetes HPA on a load metric): every `everyMs` it sets the
 * replica count to ⌈load / perReplicaRps⌉ clamped to [min, max], where load is the requests per
 * second over the last period that were passed (what the backend works on: a limit that rejects
 * never adds load, so it never scales out) or offered.
 */
export interface Autoscaler {
  /** 0.001 – 100,000. */
  perReplicaRps: number;
  /** 1 – 3,600,000. */
  everyMs: number;
  /** 1 – 64. */
  min: number;
  /** min – 64. */
  max: number;
  /** Default 'passed'. */
  on?: 'passed' | 'offered';
}

/** The store is unreachable during [fromMs, toMs). */
export interface Outage {
  fromMs: number;
  /** Greater than fromMs, at most the run's end. */
  toMs: number;
}

/**
 * The shared store behind 'shared-atomic' and 'layered' fleets: how far away it is, when it is
 * down, and what replicas do then.
 */
export interface StoreModel {
  /** Round trip to the store, ms (0 – 3,600,000). Default 1. */
  rttMs: number;
  /** Each call adds a seeded whole ms in [0, jitterMs] (0 – 3,600,000). Default 0. */
  jitterMs: number;
  /**
   * A call whose round trip exceeds it counts as failed (Envoy's ratelimit filter `timeout`,
   * default 20 ms there). Absent: no timeout. 1 – 3,600,000.
   */
  timeoutMs?: number;
  /** At most 16 windows. */
  outages: Outage[];
  /**
   * When the store cannot be reached: 'open' lets the request through (Envoy
   * `failure_mode_deny: false`, the default); 'closed' rejects it with `downStatus`; 'local' decides
   * on the replica's own limit (the lane's limit ÷ N).
   */
  onDown: 'open' | 'closed' | 'local';
  /**
   * The status of a request rejected because the store is down. 500: Envoy's ratelimit filter
   * with `failure_mode_deny: true` answers `status_on_error`, 500 unless set (as seen in
   * envoyproxy/ratelimit #333); 429: the istio/Mixer setup of istio #12115. Default 500.
   */
  downStatus?: 429 | 500;
  /**
   * Kong `sync_rate`-style batching: replicas decide on their own copy of the store, refreshed and
   * written back (their admitted requests applied to the store in time order) every syncMs at
   * k·syncMs. Absent: every request asks the store. 1 – 3,600,000.
   */
  syncMs?: number;
  /**
   * envoyproxy/ratelimit's local cache of over-limit keys: a key the store rejected is rejected
   * without asking the store until its retry-after passes. Default false.
   */
  cacheOverLimit?: boolean;
  /**
   * Kong's rate-limiting `policy` for a Kong (calendar-windows) lane whose replicas are Kong nodes
   * (kong/plugins/rate-limiting/policies/init.lua and handler.lua, Kong 3.10.0, master 22246ef):
   * - 'cluster': each node reads the count from the database (`usage`: a select) and decides on it;
   *   a passed request's increment is written by a timer after the check
   *   (`timer_at(0, increment)`; policies/cluster.lua: an upsert adding 1), modelled as landing in
   *   the store `rttMs` after the read. Requests read in between see the old count and pass
   *   beyond the limit (Kong #2629). Rejected requests are not counted.
   * - 'redis' (sync_rate −1, the default): `usage` runs INCR before comparing, for every
   *   configured period, so every request is counted at once, atomically — rejected ones too.
   * When the store cannot be reached, `onDown` 'open' is `fault_tolerant: true` (the default: the
   * request passes, without rate-limit headers, and is not counted) and 'closed' with status 500 is
   * `fault_tolerant: false` (handler.lua: error(err) → 500). Absent: not a Kong policy.
   */
  kong?: 'cluster' | 'redis';
}

export interface Fleet {
  /** 'weighted': weight of replica slot i, whole 0 – 1000; slots past the list weigh 1. */
  weights?: number[];
  /** 'least-outstanding': how long a passed request holds its replica. Default fixed 50 ms. */
  service?: ServiceTime;
  /** Replica counts set at given times, at most 32. */
  scale?: ScaleEvent[];
  autoscale?: Autoscaler;
  /** For 'shared-atomic' and 'layered'. Absent: a store 1 ms away that never fails. */
  store?: StoreModel;
}

/** The wall clock jumps by `byMs` (forward if > 0) at virtual time `atMs`. */
export interface ClockJump {
  /** 0 – 86,400,000. */
  atMs: number;
  /** Non-zero, −86,400,000 – 86,400,000. */
  byMs: number;
}

/**
 * The time the limiters are given. The timeline (arrivals, retries, releases, metrics) is always
 * virtual time t; with mode 'wall' the limiters decide at wall(t) = t + Σ byMs of jumps at or before
 * t, so a backward jump stalls refill and a forward jump hands out a fresh window.
 */
export interface ClockModel {
  /** Default 'monotonic' (the jumps are kept but ignored, so toggling loses nothing). */
  mode: 'monotonic' | 'wall';
  /** At most 32. Jumps at the same atMs add up. */
  jumps: ClockJump[];
}

/** Parameters of the metrics. */
export interface MetricsOptions {
  /**
   * W in "the most requests passed in any interval of length W". Default 1000 (one second).
   * 1 – 86,400,000.
   */
  windowMs?: number;
  /**
   * Width of a rate-over-time bin. Default: the smallest of 1, 2, 5, 10, 20, 50 … ms that gives at
   * most 600 bins. 1 – 86,400,000, and at most 100,000 bins.
   */
  binMs?: number;
}

/** Everything about the world a limiter faces. Plain data: JSON round-trips it unchanged. */
export interface Scenario {
  /** Seeds every random draw (Poisson gaps, random balancing and assignment, jitter). 0 – 2^32 − 1. */
  seed: number;
  /** Combined: the arrivals are all sources' requests merged in time order. At most 32. */
  sources: TrafficSource[];
  clients: ClientModel;
  retry: RetryPolicy;
  deployment: Deployment;
  clock: ClockModel;
  metrics?: MetricsOptions;
}

/** A limiter in a comparison: a bare config, or one with a display name. */
export type SimLimiter = AlgorithmConfig | NamedLimiter;

export interface NamedLimiter {
  /** Shown in the UI and used as the policy name in RateLimit headers. Default: the kind. */
  name: string;
  config: AlgorithmConfig;
  /**
   * What this lane's system does with a replayed trace request whose key is empty
   * (`SimTrace.emptyKeyId`): `'admit'` — passes it without its limiter (not limited, not counted);
   * `'reject'` — denies it without its limiter (not counted, and not retried: a denial is not a
   * rate-limit answer). `'client'` — the limiter decides it under its client address
   * (`SimTrace.emptyClients`), with that address's other requests; one without an address stays
   * under the empty key. Absent: the limiter decides it under the empty key like any other key.
   */
  emptyKey?: EmptyKeyLaneOutcome | 'client';
}

/** See `NamedLimiter.emptyKey`. */
export type EmptyKeyLaneOutcome = 'admit' | 'reject';

/** One problem with the input: the field's path and a sentence with the accepted range. */
export interface ScenarioIssue {
  /** E.g. 'sources[2].ratePerSec', 'limiters[0].burst', 'untilMs'. */
  path: string;
  /** E.g. 'sources[2].ratePerSec must be a number from 0.001 to 100000, got -5'. */
  message: string;
}

// ---------------------------------------------------------------------------------------------
// Result
// ---------------------------------------------------------------------------------------------

/** Outcome codes in `LaneColumns.outcome`. */
export const OUTCOME_ADMIT = 0;
export const OUTCOME_DELAY = 1;
export const OUTCOME_REJECT = 2;
/** `OUTCOMES[code]` is the core's outcome name. */
export const OUTCOMES: readonly Outcome[] = ['admit', 'delay', 'reject'];

/**
 * The first attempts, identical for every limiter ("same arrivals" means same first attempts),
 * sorted by time; ties keep source order, then each source's own order. Index = origin id.
 */
export interface ArrivalTable {
  count: number;
  /** Virtual arrival time. */
  timeMs: Int32Array;
  /**
   * Client index (0-based). The key is `keyNames[clientKey[client]]`. With a trace source each of
   * the trace's keys is a client after the client model's (Uint32Array when they pass 65,535).
   */
  client: Uint16Array | Uint32Array;
  /** Index of the source in `scenario.sources`. */
  source: Uint8Array;
}

/**
 * Every attempt one limiter saw, in the order it decided them (by arrival time; at one instant
 * first attempts come before retries, retries in the order they were scheduled). Row index = request
 * id within the lane. The arrays may be longer than `rows` (spare capacity): read only [0, rows).
 * Read-only: to save memory, columns that are the same for every lane are one shared array (without
 * retries arrivalMs is `ArrivalTable.timeMs` and origin/attempt are shared; with one instance,
 * `instance` is one zero array).
 */
export interface LaneColumns {
  rows: number;
  /** Virtual arrival time at the limiter; ascending. */
  arrivalMs: Int32Array;
  /** The first attempt this row belongs to (index into `ArrivalTable`). */
  origin: Int32Array;
  /** 1 for a first attempt, 2 for its first retry … */
  attempt: Uint8Array;
  /** OUTCOME_ADMIT, OUTCOME_DELAY or OUTCOME_REJECT. */
  outcome: Uint8Array;
  /** The instance the balancer sent it to (0-based). */
  instance: Uint8Array;
  /**
   * delayMs when delayed, retryAfterMs when rejected, 0 when admitted (the core makes the other 0).
   * Int32Array, or Float64Array in a lane where some value passed 2^31 − 1 ms (24.8 days: possible
   * with extreme configs such as 1r/m with a huge burst).
   */
  waitMs: Int32Array | Float64Array;
  /** Decision.remaining. */
  remaining: Int32Array;
  /** Decision.resetMs. Int32Array, or Float64Array as for waitMs. */
  resetMs: Int32Array | Float64Array;
}

/** Counts of one lane's attempts by outcome. */
export interface OutcomeCounts {
  /** Attempts, first and retries. */
  offered: number;
  admitted: number;
  delayed: number;
  rejected: number;
}

/** The most requests in any half-open interval [t, t + windowMs). */
export interface PeakWindow {
  windowMs: number;
  count: number;
  /** Start of the first interval that holds `count` (−1 when count is 0). */
  startMs: number;
}

/** Per-lane metrics. */
export interface LaneMetrics {
  /** All attempts. */
  total: OutcomeCounts;
  /** First attempts only (comparable across lanes). */
  first: OutcomeCounts;
  /** Retries only. */
  retries: OutcomeCounts;
  /** Requests whose last attempt was rejected and that retried no more (policy or maxAttempts). */
  gaveUp: number;
  /** Requests that were rejected at first but passed on a retry. */
  passedOnRetry: number;
  /** Retries that would have happened at or after the end of the run. */
  retriesAfterEnd: number;
  /** Rates over time, by arrival bin [k·binMs, (k+1)·binMs): attempts of each outcome. */
  bins: {
    binMs: number;
    offered: Uint32Array;
    admitted: Uint32Array;
    delayed: Uint32Array;
    rejected: Uint32Array;
    retries: Uint32Array;
    /** Requests reaching the backend in each bin: admitted at arrival, delayed at release. */
    backend: Uint32Array;
  };
  /** Delayed requests released at or after the end of the run (not in `bins.backend`). */
  backendAfterEnd: number;
  /** Admitted or delayed requests by decision time: exposes the fixed window's 2× boundary burst. */
  peakPassed: PeakWindow;
  /** Requests reaching the backend (after delays). */
  peakBackend: PeakWindow;
  /** Over delayed requests (nearest rank); all 0 when none was delayed. */
  delay: { count: number; p50Ms: number; p95Ms: number; maxMs: number; meanMs: number };
  /** Per key (index as in `keyNames`): attempts and passed (admitted or delayed). */
  perKey: { offered: Uint32Array; passed: Uint32Array };
  /** Per client. */
  perClient: { offered: Uint32Array; passed: Uint32Array; firstAttempts: Uint32Array };
  /**
   * Limiter memory in the reference system's layout (core `stateSize`), summed over stores: the
   * exact maximum over every decision of the run (and the end), not a sample.
   */
  state: {
    peakBytes: number;
    peakEntries: number;
    peakAtMs: number;
    endBytes: number;
    endEntries: number;
    /** Largest bytes each key (index as in `keyNames`) held just after a decision. */
    perKeyPeakBytes: Float64Array;
    /** Largest entries each key held just after a decision. */
    perKeyPeakEntries: Float64Array;
  };
}

// ---- Fleet results ------------------------------------------------------------------

/** Why a fleet row was decided as it was (`LaneFleet.why`). */
export const WHY_REPLICA = 0;
export const WHY_STORE = 1;
export const WHY_LAYER_LOCAL = 2;
export const WHY_DOWN_OPEN = 3;
export const WHY_DOWN_CLOSED = 4;
export const WHY_DOWN_LOCAL = 5;
export const WHY_CACHE = 6;
export const WHY_BATCHED = 7;
export const WHY_KONG_READ = 8;
/** `WHY_TEXT[code]`: what decided the row, in words. */
export const WHY_TEXT: readonly string[] = [
  "the replica's own limiter",
  'the shared store',
  'the local limit in front of the store',
  'store unreachable: failed open',
  'store unreachable: failed closed',
  "store unreachable: the replica's fallback limit",
  'the over-limit cache (store not asked)',
  "the replica's batched copy of the store (not yet synced)",
  "Kong cluster: the store's count as read (increments in flight)",
];

/** Per replica slot and fleet-wide numbers of one fleet lane. */
export interface FleetMetrics {
  /** By replica slot (0 – 63): attempts, passed, rejected. */
  perReplica: { offered: Uint32Array; passed: Uint32Array; rejected: Uint32Array };
  /** Rows by `why` code. */
  byWhy: Uint32Array;
  /**
   * Passed rows that an ideal global limiter (`globalConfig`, one atomic store, fed exactly the
   * lane's passed rows in order) would have rejected: admitted beyond the global limit.
   */
  beyond: { count: number; firstMs: number; lastMs: number; byWhy: Uint32Array };
  /** Calls that reached the store. */
  storeCalls: number;
  /** The most replicas alive at once. */
  maxReplicas: number;
}

/** What a fleet lane adds to its result. */
export interface LaneFleet {
  /** Per row: a WHY_* code. */
  why: Uint8Array;
  /** Per row: the store call's round trip, ms, or −1 when the store was not asked. */
  storeMs: Int32Array;
  /** Per row: 1 when passed beyond the global limit (see `FleetMetrics.beyond`). */
  beyond: Uint8Array;
  /** Replica count over time: one entry at 0 and one at every change. */
  replicas: Array<{ atMs: number; count: number }>;
  /** The limit each replica runs (local, local-divided, layered's front, the fallback). */
  replicaConfig: AlgorithmConfig;
  /** The limit the fleet as a whole is meant to keep (the per-replica limit × N for 'local'). */
  globalConfig: AlgorithmConfig;
  metrics: FleetMetrics;
}

/** One limiter's run. */
export interface LaneResult {
  /** Display name (unique within the result). */
  name: string;
  config: AlgorithmConfig;
  columns: LaneColumns;
  metrics: LaneMetrics;
  /** Every event before this virtual time was simulated (untilMs unless the lane was cut). */
  completeUntilMs: number;
  /** Release times of the delayed rows, ascending (for "next event" and backend drawing). */
  releasesMs: Float64Array;
  /** Fleet deployments only. */
  fleet?: LaneFleet;
  /**
   * Present when this lane decided the trace's empty-key requests without its limiter
   * (`NamedLimiter.emptyKey`): the client those requests come from (`ArrivalTable.client`) and
   * the outcome each got. Rows of that client changed no state.
   */
  emptyKey?: { client: number; outcome: EmptyKeyLaneOutcome };
  /**
   * Present when this lane keyed the trace's empty-key requests by their client address
   * (`NamedLimiter.emptyKey` `'client'`): the lane's own key index per client, read instead of
   * `SimResult.clientKey` (see `laneClientKey`). The other lanes count those requests' clients
   * under the empty key.
   */
  clientKey?: Uint16Array | Uint32Array;
}

/** Where two limiters first decide differently on the same first attempt. */
export interface Divergence {
  /** Origin id (index into the arrival table). */
  origin: number;
  atMs: number;
  /** Lane indices. */
  lanes: [number, number];
  outcomes: [Outcome, Outcome];
}

/** What the run cost in memory. */
export interface MemoryReport {
  /** Typed arrays of the result (allocated capacity). */
  resultBytes: number;
  /**
   * Estimated bytes of the seeking checkpoints, with the in-flight writes (racy state) they keep
   * alive. Results plus checkpoints stay within MAX_RETAINED_BYTES (simulate.ts): a lane that would
   * pass it is cut.
   */
  checkpointBytes: number;
  /** resultBytes / first attempts. */
  bytesPerArrival: number;
  /** resultBytes / decisions (rows over all lanes). */
  bytesPerDecision: number;
}

export interface SimResult {
  /** The scenario as simulated (defaults filled in). */
  scenario: Scenario;
  /**
   * The epoch ms the run's time 0 stands for when it replays a trace (SimTrace.originMs): every
   * limiter's windows on the clock are placed from it. Absent: 0 (synthetic traffic).
   */
  originMs?: number;
  untilMs: number;
  /** Every event before this time was simulated in every lane. */
  completeUntilMs: number;
  /** True when a cap cut the run; `truncation` says which and where. */
  truncated: boolean;
  truncation: string[];
  /** Key names; index = key index. */
  keyNames: string[];
  /** For each client, its key index (the trace's keys' clients included). */
  clientKey: Uint16Array | Uint32Array;
  /** Instances actually used (scenario.deployment.instances). */
  instances: number;
  arrivals: ArrivalTable;
  lanes: LaneResult[];
  /** The first first-attempt on which any two lanes decide differently (null when none). */
  divergence: Divergence | null;
  /** For each pair of lanes (a < b), its first divergence, or null. */
  pairDivergence: Array<Divergence | null>;
  memory: MemoryReport;
}

/**
 * A small, valid scenario: one client sending Poisson traffic at 12 requests/s for a minute to one
 * instance with local state, no retries, a monotonic clock. A fresh object each call.
 */
export function defaultScenario(): Scenario {
  return {
    seed: 1,
    sources: [{ kind: 'poisson', ratePerSec: 12, startMs: 0, endMs: 60_000 }],
    clients: { count: 1, keying: 'per-client', assign: 'round-robin' },
    retry: {
      onReject: 'give-up',
      maxAttempts: 4,
      backoffBaseMs: 100,
      backoffCapMs: 10_000,
      turnaroundMs: 0,
    },
    deployment: { instances: 1, balancer: 'round-robin', state: 'local', roundTripMs: 5 },
    clock: { mode: 'monotonic', jumps: [] },
  };
}
