import { createContext, useContext, useState } from 'react';
import type { ReactNode } from 'react';
import { useStore } from 'zustand';
import { useShallow } from 'zustand/react/shallow';
import { simulationOf } from './derived';
import type { SimOutcome } from './derived';
import { createPlaygroundStore } from './store';
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

/** The simulation of the current inputs (memoised; recomputed only when they change). */
export function useSimulation(): SimOutcome {
  return simulationOf(usePlaygroundShallow(selectRun));
}
