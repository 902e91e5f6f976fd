/**
 * The replayable trace the page holds: what `simulate` gets as `SimOptions.traces` for a
 * scenario with a trace source. Kept beside the playground store, not in it: the store holds what
 * a link carries (the trace's fingerprint), this holds the requests. Set when an access log loads;
 * a change re-runs the simulation of any scenario that replays a trace.
 */
import type { Scenario, SimTrace } from '../sim';

const NONE: readonly SimTrace[] = Object.freeze([]);
let traces: readonly SimTrace[] = NONE;
let version = 0;
const listeners = new Set<() => void>();

/** The traces the page holds (a new array whenever they change). */
export function loadedTraces(): readonly SimTrace[] {
  return traces;
}

/** Changes whenever the loaded traces change. */
export function tracesVersion(): number {
  return version;
}

export function subscribeTraces(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Holds `trace` as the page's replayable trace (null: none). */
export function setLoadedTrace(trace: SimTrace | null): void {
  if (trace === null ? traces.length === 0 : traces[0] === trace) return;
  traces = trace === null ? NONE : Object.freeze([trace]);
  version += 1;
  for (const l of listeners) l();
}

/**
 * The traces a run of `scenario` depends on: the loaded ones when it replays a trace, else none
 * (so loading a log never re-runs a scenario that does not replay it).
 */
export function tracesFor(scenario: Scenario): readonly SimTrace[] {
  return scenario.sources.some((s) => s.kind === 'trace') ? traces : NONE;
}
