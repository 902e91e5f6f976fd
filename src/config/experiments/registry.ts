/**
 * Where the rest of the app looks experiments up without loading the library: the library (about
 * 10 kB gzip with its measurements) is a chunk of its own, kept out of the initial JavaScript,
 * fetched as the page opens, or before the first render when the start needs it (a link or saved
 * settings naming an experiment; see `main.tsx`). Loading it here, or importing `./index`,
 * registers it. Nothing here imports the library statically: no import circle.
 */
import type { Experiment } from './define';

let library: readonly Experiment[] | null = null;

/** Called by `loadExperiments` and by `./index` as it is evaluated. */
export function registerExperiments(experiments: readonly Experiment[]): void {
  library = experiments;
}

/** Fetches the library (once; later calls reuse the module). */
export function loadExperiments(): Promise<readonly Experiment[]> {
  return import('./library').then((m) => {
    registerExperiments(m.EXPERIMENTS);
    return m.EXPERIMENTS;
  });
}

/** Whether the library has been loaded, so `experimentById` can answer. */
export function experimentsLoaded(): boolean {
  return library !== null;
}

/** The experiment with this id; undefined for an unknown id, or while the library is not loaded. */
export function experimentById(id: string): Experiment | undefined {
  return library?.find((e) => e.id === id);
}
