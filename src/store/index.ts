/**
 * Rate Limit Lab store: one zustand store holding the inputs (limiters, scenario, run length, mode),
 * the clock and the selection, with its actions; the simulation derived from the inputs (large runs
 * in a Web Worker, ./sim.worker.ts); and the workers behind an access log: reading it, its
 * statistics, the dry run, the sweep, and keeping it in this browser.
 */
export { createPlaygroundStore, MAX_FRAME_MS, MAX_LIMITERS } from './store';
export type { PlaygroundStoreApi } from './store';
export { DEFAULT_LIMITERS, SPEEDS, defaultInputs } from './defaults';
export { simulationOf, simLimiters, seekerFor, laneStateAtTime } from './derived';
export type { SimOutcome } from './derived';
export type * from './types';
export { configOf, experimentInputs, isExperimentAsWritten } from './config';
