/**
 * The simulation off the main thread: runs `simulate` for the newest request it has been sent and
 * posts the result back in pieces (simWire.ts): only the traffic and lanes the page does not hold
 * yet, each in its own message with its typed arrays copied here and transferred (the cache here
 * keeps its own for the next edit), each lane with its checkpoints as plain data (so seeking there
 * restores a checkpoint instead of replaying from the start). Requests that arrive while a run
 * computes queue up; only the newest of them runs next. The worker keeps its own SimCache, so an
 * edit to one limiter re-runs that lane only and the arrivals are made once per traffic.
 */
import {
  PORTABLE_KEY_STATES,
  SimulationInputError,
  createSimCache,
  forgetLaneRuns,
  simulate,
  validateRun,
} from '../sim';
import type { LaneResult, SimResult, SimTrace } from '../sim';
import { installColumnMemory } from '../sim/laneParts';
import { runPlainLane } from '../sim/lanePlain';
import { installPlainLaneLoop } from '../sim/simulate';
import { ColumnPool } from './columnPool';
import { detachEarly } from './detachEarly';
import type { SimAnswer, SimRequest } from './simProtocol';
import { encodeResult } from './simWire';

// Before anything is compiled: this worker transfers buffers (detachEarly.ts).
detachEarly();
// The lean loop for lanes that are not fleets (kept out of the page's first chunk).
installPlainLaneLoop(runPlainLane);
const cache = createSimCache();

/**
 * Column buffers the page has finished with (SimRunner sends them back with a request): the next
 * runs' columns are made in them instead of in fresh memory (columnPool.ts).
 */
const pool = new ColumnPool(64 * 1024 * 1024);
installColumnMemory(pool.take);
/** The traces the page sent last (it sends them again only when they change). */
let traces: readonly SimTrace[] = [];
let next: SimRequest | null = null;
/**
 * The run last answered (its inputs, and the traces it ran with): the page warms the worker up
 * with the result it shows, which may be that answer. Its lanes may have been handed over (and
 * forgotten), so a warm-up would run them again for nothing; it is skipped.
 */
let answered: { key: string; traces: readonly SimTrace[] } | null = null;
const runKey = (req: SimRequest): string =>
  JSON.stringify([req.limiters, req.scenario, req.untilMs]);
let scheduled = false;

/**
 * Idle work after a one-lane run (not a fleet), a slice per task so a request waits at most one
 * slice, and dropped for a request (run() plans it again after). First, after a warm-up only,
 * JIT_RUNS runs of the same limiter over the first 1/JIT_FRACTION of the time: on its first
 * calls V8 optimises the lane loop, deoptimises it at paths it had not seen and optimises it
 * again (in Node, a 1,000,000-row edit's CPU was 230–310 ms for the first edit after a warm-up,
 * 40–70 ms once settled; with these runs first, 36–44 ms). They go through the same call as a
 * request's run (`simulateHere`). In the browser, 4 paired bench rounds of 0, 6 × 1/8 and
 * 16 × 1/16 of these runs gave the same worker CPU per 1M edit (medians 41–44.5 ms): measure
 * again before relying on them. Then the pool stocks STOCK_SETS sets of the lane's column
 * buffers (fewer when they would pass STOCK_MAX_BYTES: two sets of a 1,000,000-row lane's are
 * 26 MB), written in slices of about STOCK_SLICE_MS (steps of STOCK_SLICE_BYTES): the page hands a
 * result's buffers back only once its garbage collector has freed their views, several edits
 * later, and until then each edit made its columns in fresh memory (page faults). Two sets: an
 * edit that comes before the stock the one before it took is made again still finds one.
 * Measured in the browser (largeEditProfile, 8 runs each, interleaved, load 7–13): worker
 * simulate per timed edit median 193 → 140 ms (edits 4–8: 141 → 82), edit → drawn median
 * 308 → 221 ms; the first three timed edits did not move (276 → 295), nor the p95. The slices
 * were 2 MB each at first: 8–40 ms of page faults, which an edit arriving meanwhile waited for
 * (largeEditProfile: its run began 12–18 ms after the input in two of four edits); slices of
 * ~3 ms, one message apart, keep that wait to a few ms.
 */
const JIT_RUNS = 6;
const JIT_FRACTION = 8;
const STOCK_MAX_BYTES = 32 * 1024 * 1024;
const STOCK_SLICE_BYTES = 256 * 1024;
const STOCK_SLICE_MS = 3;
const STOCK_SETS = 2;
let idleScheduled = false;
/** The warm-up the JIT runs repeat (over a shorter time), and how many are left. */
let jit: { req: SimRequest; traces: readonly SimTrace[]; left: number } | null = null;
function idle(): void {
  idleScheduled = false;
  // A request waiting comes first.
  if (next !== null) return;
  if (jit !== null && jit.left > 0) {
    jit.left -= 1;
    jitRun(jit.req, jit.traces);
    scheduleIdle();
  } else {
    const began = performance.now();
    let more = pool.stockStep(STOCK_SLICE_BYTES);
    while (more && performance.now() - began < STOCK_SLICE_MS)
      more = pool.stockStep(STOCK_SLICE_BYTES);
    if (more) scheduleIdle();
  }
}
/**
 * The next slice of idle work is a message to this worker, not a timer: nested timers wait at
 * least 4 ms each, which would leave the short slices above idle half of the time.
 */
const idleChannel = new MessageChannel();
idleChannel.port1.onmessage = idle;
function scheduleIdle(delayMs = 0): void {
  if (idleScheduled) return;
  idleScheduled = true;
  if (delayMs > 0) setTimeout(idle, delayMs);
  else idleChannel.port2.postMessage(null);
}
/**
 * How long after a run its idle work waits to begin: meanwhile the page decodes and draws the
 * result, and on two cores the stock's page faults took CPU from it (largeEditProfile
 * showed the first 2 MB slices, as they were then, 8 ms each, running beside the page's drawing of the 1M edit).
 */
const IDLE_AFTER_RUN_MS = 120;
/**
 * A run reports progress only once it has taken this long: the page shows how far a long run is,
 * and a short one (a 1,000,000-row edit, ~50 ms) posts no hundred messages for the page to
 * render while it waits (each moved the "updating" note's percentage: a layout and paint a frame).
 */
const PROGRESS_AFTER_MS = 150;
/**
 * A run only for the JIT, as a request's is made and encoded (a cache of its own, the wire's
 * hand-over), on fresh column memory (not the stock); nothing is posted and the result is dropped.
 */
function jitRun(req: SimRequest, runTraces: readonly SimTrace[]): void {
  installColumnMemory(null);
  try {
    const result = simulateHere(
      req,
      Math.max(1, Math.floor(req.untilMs / JIT_FRACTION)),
      createSimCache(),
      runTraces,
      null,
    );
    encodeResult(result, { traffic: [], lanes: [] }, PORTABLE_KEY_STATES, true);
  } catch (e) {
    if (jit !== null) jit.left = 0;
    if (!(e instanceof SimulationInputError)) throw e;
  } finally {
    installColumnMemory(pool.take);
  }
}
/** After a run of one lane that is not a fleet: idle work for the edits to come (see above). */
function afterRun(req: SimRequest, result: SimResult): void {
  if (result.lanes.length !== 1 || result.lanes[0]?.fleet !== undefined) return;
  if (req.warm === true) jit = { req, traces, left: JIT_RUNS };
  if (pool.planStock(STOCK_MAX_BYTES, STOCK_SETS) > 0 || jit !== null)
    scheduleIdle(IDLE_AFTER_RUN_MS);
}

const post = (answer: SimAnswer, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(answer, transfer);

/**
 * Every run here (a request's, a warm-up's, the JIT's) goes through this one call, with a
 * progress callback made in one place: V8 compiles the lane loop with the callback inlined, and a
 * closure from another place (the JIT runs had their own) threw that code away at the first real
 * edit ("wrong feedback cell", in tests/bench/deoptTrace.ts's PER_EDIT log). `gen` null: reports
 * nothing. A request's run reports about a hundred times at most, and not before
 * PROGRESS_AFTER_MS.
 */
function simulateHere(
  req: SimRequest,
  untilMs: number,
  runCache: ReturnType<typeof createSimCache>,
  runTraces: readonly SimTrace[],
  gen: number | null,
): SimResult {
  const began = performance.now();
  let reported = -1;
  return simulate(req.limiters, req.scenario, untilMs, {
    cache: runCache,
    traces: runTraces,
    onProgress: (fraction) => {
      // The same steps in every run up to `gen` (a step that only requests' runs took had no
      // feedback, and its first use deoptimised the lane loop at the first edit).
      const due =
        (fraction - reported >= 0.01 || fraction >= 1) &&
        performance.now() - began >= PROGRESS_AFTER_MS;
      if (!due || gen === null) return;
      reported = fraction;
      post({ type: 'progress', gen, fraction });
    },
  });
}

function run(): void {
  scheduled = false;
  const req = next;
  next = null;
  if (req === null) return;
  const began = performance.now();
  const issues = validateRun(req.limiters, req.scenario, req.untilMs);
  if (issues.length > 0) {
    post({ type: 'result', gen: req.gen, outcome: { ok: false, issues }, tookMs: 0 });
    return;
  }
  pool.beginRun();
  try {
    if (req.warm === true) {
      if (answered?.traces === traces && answered.key === runKey(req)) return;
      afterRun(req, simulateHere(req, req.untilMs, cache, traces, null));
      return;
    }
    const result = simulateHere(req, req.untilMs, cache, traces, req.gen);
    const tookMs = performance.now() - began;
    // Checkpoints bounded: the page rebuilds every key state sent, in one task.
    // One lane: its columns are handed over, not copied (13 MB per 1,000,000 rows), and
    // its run leaves the cache here (its arrays are detached once posted); going back to that
    // config runs it again. With several lanes the cache keeps them all (an edit to one limiter
    // re-runs that lane only, and the others' outcomes are compared with it): copies are sent.
    const handOver = result.lanes.length === 1 && result.lanes[0]?.fleet === undefined;
    const wire = encodeResult(
      result,
      req.held ?? { traffic: [], lanes: [] },
      PORTABLE_KEY_STATES,
      handOver,
    );
    if (handOver)
      forgetLaneRuns(
        cache,
        wire.sentLanes.map((i) => result.lanes[i] as LaneResult),
      );
    for (const { piece, transfer } of wire.pieces) {
      post({ type: 'piece', gen: req.gen, piece }, transfer);
    }
    post({ type: 'result', gen: req.gen, outcome: { ok: true, ...wire.result }, tookMs });
    answered = { key: runKey(req), traces };
    afterRun(req, result);
  } catch (e) {
    if (!(e instanceof SimulationInputError)) throw e;
    post({ type: 'result', gen: req.gen, outcome: { ok: false, issues: e.issues }, tookMs: 0 });
  }
}

self.onmessage = (e: MessageEvent<SimRequest>) => {
  // Traces come in order with the requests: keep them even if this request is skipped.
  if (e.data.traces !== undefined) traces = e.data.traces;
  if (e.data.spent !== undefined) pool.keep(e.data.spent);
  // A warm-up never replaces a real request waiting to run.
  if (e.data.warm === true && next !== null) return;
  next = e.data;
  // Messages already queued are delivered before this timer fires: the newest of them runs.
  if (!scheduled) {
    scheduled = true;
    setTimeout(run, 0);
  }
};
