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
import type { LaneResult, SimTrace } from '../sim';
import { installColumnMemory } from '../sim/laneParts';
import { runPlainLane } from '../sim/lanePlain';
import { installPlainLaneLoop } from '../sim/simulate';
import { ColumnPool } from './columnPool';
import type { SimAnswer, SimRequest } from './simProtocol';
import { encodeResult } from './simWire';

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

const post = (answer: SimAnswer, transfer: Transferable[] = []) =>
  (self as unknown as Worker).postMessage(answer, transfer);

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
  let reported = -1;
  try {
    if (req.warm === true) {
      if (answered?.traces === traces && answered.key === runKey(req)) return;
      simulate(req.limiters, req.scenario, req.untilMs, { cache, traces });
      return;
    }
    const result = simulate(req.limiters, req.scenario, req.untilMs, {
      cache,
      traces,
      onProgress: (fraction) => {
        // About a hundred reports at most.
        if (fraction - reported < 0.01 && fraction < 1) return;
        reported = fraction;
        post({ type: 'progress', gen: req.gen, fraction });
      },
    });
    const tookMs = performance.now() - began;
    // Checkpoints bounded: the page rebuilds every key state sent, in one task.
    // One lane: its columns are handed over, not copied (issue 11: 13 MB per 1,000,000 rows), and
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
