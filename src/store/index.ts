export { createPlaygroundStore, MAX_FRAME_MS, MAX_LIMITERS } from './store';
export type { PlaygroundStoreApi } from './store';
export { DEFAULT_LIMITERS, SPEEDS, defaultInputs } from './defaults';
export { simulationOf, simLimiters, seekerFor, laneStateAtTime } from './derived';
export type { SimOutcome } from './derived';
export type * from './types';
export { configOf, experimentInputs, isExperimentAsWritten } from './config';
