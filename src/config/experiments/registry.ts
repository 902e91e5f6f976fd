/**
 * Where the rest of the app looks experiments up without loading the library: the library (about
 * 10 kB gzip with its measurements) is a chunk of its own (issue 11: initial JavaScript), fetched as
 * the page opens, or before the first render when the start needs it (a link or saved settings
 * naming an experiment; see `main.tsx`). Evaluating the library registers it here.
 */
import type { Experiment } from './define';

let library: readonly Experiment[] | null = null;

/** Called once by the library module (`./index`) as it is evaluated. */
export function registerExperiments(experiments: readonly Experiment[]): void {
  library = experiments;
}

/** Fetches the library (once; later calls reuse the module). */
export function loadExperiments(): Promise<readonly Experiment[]> {
  return import('./index').then((m) => m.EXPERIMENTS);
}

/** Whether the library has been loaded, so `experimentById` can answer. */
export function experimentsLoaded(): boolean {
  return library !== null;
}

/** The experiment with this id; undefined for an unknown id, or while the library is not loaded. */
export function experimentById(id: string): Experiment | undefined {
  return library?.find((e) => e.id === id);
}
