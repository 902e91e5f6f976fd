/**
 * Rate Limit Lab simulation: a scenario (traffic, clients, retries, deployment, clock) run through
 * one or more limiters against a virtual clock, deterministically, with metrics and seeking.
 * Pure TypeScript on top of src/core: no DOM, React, clocks or ambient randomness.
 *
 * "Every limiter sees the same arrivals" means the same first attempts: retries depend on each
 * limiter's own rejections, so each lane has its own.
 */
export {
  simulate,
  createSimCache,
  forgetLaneRuns,
  PROGRESS_ROWS,
  defaultBinMs,
  CHECKPOINT_EVERY,
  CHECKPOINT_BUDGET_BYTES,
  MAX_CHECKPOINT_EVERY,
  MAX_RETAINED_BYTES,
  traceSpan,
} from './simulate';
export type { SimCache, SimOptions } from './simulate';
export {
  validateScenario,
  validateLimiters,
  validateRun,
  racyFleetProblem,
  SimulationInputError,
  configOf,
} from './validate';
export {
  PORTABLE_CHECKPOINTS,
  PORTABLE_KEY_STATES,
  Seeker,
  adoptResult,
  laneSeekData,
  portableCheckpoints,
  portableLane,
  seekerFor,
  stateAt,
} from './seek';
export type { PortableCheckpoints, PortableLane } from './seek';
export { resultKeys } from './internal';
export type { LaneInternals as LaneSeekData, ResultKeys } from './internal';
export type { SimState, LaneState, StoreState } from './seek';
export {
  rowRange,
  rowsDecidedBy,
  nextEventAfter,
  decisionAt,
  requestAt,
  responseAt,
  attemptsOf,
} from './query';
export type { RequestInfo } from './query';
export { SHARED_KEY, keysOf, keysWithTrace } from './clients';
export { WallClock } from './clock';
export { nearestRank, peakWindow } from './metrics';
export { Rng, hash32, lnUnit } from './random';
export {
  defaultScenario,
  MAX_UNTIL_MS,
  MAX_FIRST_ATTEMPTS,
  MAX_DECISIONS,
  MAX_LANES,
  MAX_SOURCES,
  MAX_MANUAL_TIMES,
  MAX_TRACE_SOURCE_REQUESTS,
  MAX_BURST,
  MAX_RATE_PER_SEC,
  MIN_RATE_PER_SEC,
  MAX_CLIENTS,
  MAX_INSTANCES,
  MAX_ATTEMPTS,
  MAX_CLOCK_JUMPS,
  MAX_BINS,
  MAX_WAIT_MS,
  OUTCOME_ADMIT,
  OUTCOME_DELAY,
  OUTCOME_REJECT,
  OUTCOMES,
  MAX_WEIGHT,
  MAX_SCALE_EVENTS,
  MAX_OUTAGES,
  WHY_REPLICA,
  WHY_STORE,
  WHY_LAYER_LOCAL,
  WHY_DOWN_OPEN,
  WHY_DOWN_CLOSED,
  WHY_DOWN_LOCAL,
  WHY_CACHE,
  WHY_BATCHED,
  WHY_KONG_READ,
  WHY_TEXT,
} from './types';
export { isFleet, scaleConfig, outageAt, DEFAULT_STORE } from './fleet';
export type * from './types';
