/**
 * The experiment library as one import: the list (./library.ts), its types, and the look-up by id.
 * Importing this module registers the list with ./registry.ts, so the rest of the app finds an
 * experiment by id without importing the library itself.
 */
import { EXPERIMENTS } from './library';
import { registerExperiments } from './registry';

export type {
  Answer,
  AnswerFact,
  Experiment,
  ExperimentInputs,
  ExperimentLimiter,
  ExperimentVariant,
} from './define';
export { EXPERIMENTS };
export { experimentById } from './registry';

registerExperiments(EXPERIMENTS);
