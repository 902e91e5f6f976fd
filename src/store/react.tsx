import {
  createContext,
  startTransition,
  useContext,
  useEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import type { ReactNode } from 'react';
import { useStore } from 'zustand';
import { shallow } from 'zustand/vanilla/shallow';
import { cachedOutcome, lastRun, simulationOf } from './derived';
import type { SimOutcome } from './derived';
import { SYNC_DECISIONS, newDecisions, runnerFor } from './simRunner';
import type { SimRunner, SimStatus } from './simRunner';
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

/**
 * Whether two selections hold the same fields (`Object.is` each), as zustand's `shallow` decides,
 * without its two Maps of `Object.entries` per call: plain objects by their own keys, anything else
 * by `shallow`. Every store change runs each of the page's ~20 shallow selections, so a playing
 * page ran this about 20 times a frame (zustand's compare allocated ~25 kB a frame,
 * scrolled to lanes 3–4, heap sampling, and took up to ~1 ms of a frame in a CPU profile).
 */
export function sameFields(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const proto = Object.getPrototypeOf(a) as unknown;
  if (proto !== Object.prototype || Object.getPrototypeOf(b) !== proto) return shallow(a, b);
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k)) continue;
    if (!Object.hasOwn(y, k) || !Object.is(x[k], y[k])) return false;
    n += 1;
  }
  for (const k in y) if (Object.hasOwn(y, k)) n -= 1;
  return n === 0;
}

/** Subscribes to several fields at once, re-rendering only when one of them changes. */
export function usePlaygroundShallow<T extends object>(selector: (s: PlaygroundStore) => T): T {
  // zustand's useShallow, with `sameFields` for its compare.
  const prev = useRef<T | undefined>(undefined);
  return useStore(usePlaygroundApi(), (s) => {
    const next = selector(s);
    return sameFields(prev.current, next) ? (prev.current as T) : (prev.current = next);
  });
}

const selectRun = (s: PlaygroundStore) => ({
  limiters: s.limiters,
  scenario: s.scenario,
  untilMs: s.untilMs,
});

/**
 * How a worker's result reaches the page, per runner (input stays responsive while a
 * large result is drawn). A result of several lanes, or of more than URGENT_ROWS rows, is
 * rendered in a transition, which React renders in slices that yield to input (six new lanes took
 * one ~60 ms task when rendered at once); until that render commits, the page goes on drawing what
 * it drew before, and "updating" stays up. One smaller lane is rendered at once, in one task: a
 * 1,000,000-row lane's render (~25 ms) in slices let a frame in between, which only delayed it.
 */
export interface Arrivals {
  subscribe: (listener: () => void) => () => void;
  /** The runner's status, still pending while a result that has arrived is being drawn. */
  getStatus: () => SimStatus;
  /**
   * What to draw, given the outcome of the current inputs and the runner's version a render has
   * taken: the outcome drawn before, while `outcome` is what a later version brought.
   */
  hold: (outcome: SimOutcome | null, taken: number) => SimOutcome | null;
  /** After a commit: `outcome` is drawn, by a render that had taken version `taken`. */
  committed: (outcome: SimOutcome | null, taken: number) => void;
  /** Calls `take(version)` when a newer version than `taken` arrives (at once or in a transition). */
  follow: (taken: number, take: (version: number) => void) => () => void;
}

const DRAWING: SimStatus = { pending: true, progress: 1 };
/** The most rows of a one-lane result rendered at once rather than in a transition. */
export const URGENT_ROWS = 1_500_000;
/** Whether `outcome` is rendered at once: a failure, or one lane of at most URGENT_ROWS rows. */
const urgent = (outcome: SimOutcome): boolean =>
  !outcome.ok ||
  (outcome.result.lanes.length === 1 &&
    (outcome.result.lanes[0]?.columns.rows ?? 0) <= URGENT_ROWS);
const arrivals = new WeakMap<SimRunner, Arrivals>();

/** The arrivals of a runner's results (made on first use; exported for tests). */
export function arrivalsOf(runner: SimRunner): Arrivals {
  const made = arrivals.get(runner);
  if (made !== undefined) return made;
  // The newest version, the outcome it brought, and the last outcome drawn with its version.
  let seen = runner.getVersion();
  let brought: SimOutcome | undefined;
  let drawn: SimOutcome | null | undefined;
  let drawnVersion = seen;
  const listeners = new Set<() => void>();
  const tell = () => listeners.forEach((l) => l());
  runner.subscribe(() => {
    if (runner.getVersion() !== seen) {
      seen = runner.getVersion();
      brought = lastRun()?.outcome;
    }
    tell();
  });
  const a: Arrivals = {
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getStatus: () => {
      const status = runner.getStatus();
      return status.pending || drawnVersion === seen ? status : DRAWING;
    },
    hold: (outcome, taken) =>
      taken !== seen && outcome === brought ? (drawn ?? outcome) : outcome,
    committed: (outcome, taken) => {
      drawn = outcome;
      drawnVersion = taken;
      tell();
    },
    follow: (taken, take) => {
      const check = () => {
        if (seen === taken) return;
        const v = (taken = seen);
        if (brought !== undefined && urgent(brought)) take(v);
        else startTransition(() => take(v));
      };
      check();
      return runner.subscribe(check);
    },
  };
  arrivals.set(runner, a);
  return a;
}

/** The traces' version as a run that replays none sees it: never changing. */
const noTraces = (): number => -1;

/**
 * The simulation of the current inputs (memoised; recomputed only when they change). A small run
 * is computed in this render (a small link opened paused draws its exact result in its first
 * frame); a large one goes to the worker, and this returns the previous result until the new one
 * arrives (`useSimulationStatus` says so) and has been rendered (`Arrivals`) — or null when there
 * is none yet (a large link or saved settings opening: nothing large is computed in a render).
 */
export function useSimulation(): SimOutcome | null {
  const api = usePlaygroundApi();
  const runner = runnerFor(api);
  const arrived = arrivalsOf(runner);
  const [taken, setTaken] = useState(runner.getVersion);
  useEffect(() => arrived.follow(taken, setTaken), [arrived, taken]);
  const run = usePlaygroundShallow(selectRun);
  // A replayed access log loading (or going) changes the run of a scenario that replays it; a
  // scenario that replays none is not drawn again when a log loads (the stage's render would
  // otherwise join the task that shows the log's summary).
  const replays = run.scenario.sources.some((x) => x.kind === 'trace');
  const tracesSeen = replays ? tracesVersion : noTraces;
  const traces = useSyncExternalStore(subscribeTraces, tracesSeen, tracesSeen);
  const cached = cachedOutcome(run);
  const shown = lastRun();
  // The first run too (a link, saved settings): null until the worker answers.
  const offThread =
    cached === null &&
    runner.available &&
    newDecisions(run, shown?.inputs ?? null) > SYNC_DECISIONS;
  useEffect(() => {
    if (offThread) runner.request(run);
    else if (cachedOutcome(run) !== null) {
      runner.cancel();
      // Computed here, and large: the worker gets it too, ready for the first edit.
      if (runner.available && newDecisions(run, null) > SYNC_DECISIONS) runner.warm(run);
    }
  }, [offThread, runner, run, traces]);
  const outcome = arrived.hold(
    cached ?? (offThread ? (shown?.outcome ?? null) : simulationOf(run)),
    taken,
  );
  useEffect(() => arrived.committed(outcome, taken), [arrived, outcome, taken]);
  return outcome;
}

/** Whether a newer result is computing off the main thread (or being drawn), and how far it is. */
export function useSimulationStatus(): SimStatus {
  const arrived = arrivalsOf(runnerFor(usePlaygroundApi()));
  return useSyncExternalStore(arrived.subscribe, arrived.getStatus, arrived.getStatus);
}
