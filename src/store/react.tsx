import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { cachedOutcome, lastRun, simulationOf } from './derived';
import type { SimOutcome } from './derived';
import { SYNC_DECISIONS, newDecisions, runnerFor } from './simRunner';
import type { SimStatus } from './simRunner';
import { createPlaygroundStore } from './store';
import { subscribeTraces, tracesVersion } from './traceSim';
import type { PlaygroundStoreApi } from './store';
import type { PlaygroundInputs, PlaygroundStore } from './types';

const StoreContext = createContext<PlaygroundStoreApi | null>(null);

/** Provides one playground store to the tree (a fresh one, or `store` for tests and embeds). */
export function PlaygroundProvider({
  store,
  initial,
  children,
}: {
  store?: PlaygroundStoreApi;
  initial?: PlaygroundInputs;
  children: ReactNode;
}) {
  const [api] = useState(() => store ?? createPlaygroundStore(initial));
  return <StoreContext.Provider value={api}>{children}</StoreContext.Provider>;
}

/** The store API itself, for event handlers and the animation loop (`getState`, `subscribe`). */
export function usePlaygroundApi(): PlaygroundStoreApi {
  const api = useContext(StoreContext);
  if (api === null) throw new Error('usePlaygroundApi needs a <PlaygroundProvider> above it');
  return api;
}

/** Subscribes to one slice; select narrowly (CONVENTIONS.md, "Select narrowly"). */
export function usePlayground<T>(selector: (s: PlaygroundStore) => T): T {
  return useStore(usePlaygroundApi(), selector);
}

/** Subscribes to several fields at once, re-rendering only when one of them changes. */
export function usePlaygroundShallow<T extends object>(selector: (s: PlaygroundStore) => T): T {
  return useStore(usePlaygroundApi(), useShallow(selector));
}

const selectRun = (s: PlaygroundStore) => ({
  limiters: s.limiters,
  scenario: s.scenario,
  untilMs: s.untilMs,
});

/**
 * The simulation of the current inputs (memoised; recomputed only when they change). A small run
 * (or the first one: a link opened paused draws its exact result in its first frame) is computed
 * in this render; a large edit goes to the worker and this returns the previous result until the
 * new one arrives (`useSimulationStatus` says so).
 */
export function useSimulation(): SimOutcome {
  const api = usePlaygroundApi();
  const runner = runnerFor(api);
  useSyncExternalStore(runner.subscribe, runner.getVersion, runner.getVersion);
  // A replayed access log loading (or going) changes the run of a scenario that replays it.
  const traces = useSyncExternalStore(subscribeTraces, tracesVersion, tracesVersion);
  const run = usePlaygroundShallow(selectRun);
  const cached = cachedOutcome(run);
  const shown = lastRun();
  const offThread =
    cached === null &&
    shown !== null &&
    runner.available &&
    newDecisions(run, shown.inputs) > SYNC_DECISIONS;
  useEffect(() => {
    if (offThread) runner.request(run);
    else if (cachedOutcome(run) !== null) {
      runner.cancel();
      // Computed here, and large: the worker gets it too, ready for the first edit.
      if (runner.available && newDecisions(run, null) > SYNC_DECISIONS) runner.warm(run);
    }
  }, [offThread, runner, run, traces]);
  if (cached !== null) return cached;
  return offThread && shown !== null ? shown.outcome : simulationOf(run);
}

/** Whether a newer result is computing off the main thread, and how far it is. */
export function useSimulationStatus(): SimStatus {
  const runner = runnerFor(usePlaygroundApi());
  return useSyncExternalStore(runner.subscribe, runner.getStatus, runner.getStatus);
}
