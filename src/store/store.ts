import { createStore } from 'zustand/vanilla';
import type { AlgorithmKind } from '../core';
import { MAX_MANUAL_TIMES, MAX_UNTIL_MS, nextEventAfter, rowRange } from '../sim';
import type { Scenario, SimResult, TrafficSource } from '../sim';
import { DEFAULT_LIMITERS, SPEEDS, defaultInputs, inputsOf } from './defaults';
import { experimentById } from '../config/experiments/registry';
import { simulationOf } from './derived';
import { isDefaultSystem, systemById } from '../systems';
import type { LimiterEntry } from '../config';
import type { PlaygroundInputs, PlaygroundState, PlaygroundStore } from './types';

/**
 * A new limiter of system `id`: a system that is its algorithm's default (nginx for the leaky
 * bucket, Envoy for the token bucket …) starts from the link format's defaults, so links stay short;
 * any other starts from its own `defaultConfig`.
 */
function entryOfSystem(id: string): LimiterEntry {
  const system = systemById(id);
  if (system === undefined) return { config: DEFAULT_LIMITERS['token-bucket'] };
  if (isDefaultSystem(id, system.kind)) return { config: DEFAULT_LIMITERS[system.kind] };
  return { system: id, config: system.defaultConfig };
}

/** At most this much real time passes in one frame: a tab coming back from the background resumes. */
export const MAX_FRAME_MS = 100;
/** Compare mode shows up to six limiters side by side. */
export const MAX_LIMITERS = 6;

function clampTime(tMs: number, untilMs: number): number {
  return Math.min(Math.max(0, tMs), untilMs);
}

/** The last row of `lane` that is a first attempt from source `source` arriving at `atMs`, or −1. */
function lastRowOf(result: SimResult, lane: number, source: number, atMs: number): number {
  const columns = result.lanes[lane]?.columns;
  if (columns === undefined) return -1;
  const [start, end] = rowRange(columns, atMs, atMs + 1);
  for (let row = end - 1; row >= start; row -= 1) {
    const origin = columns.origin[row] as number;
    if (columns.attempt[row] === 1 && result.arrivals.source[origin] === source) return row;
  }
  return -1;
}

function initialState(inputs: PlaygroundInputs): PlaygroundState {
  return {
    ...inputs,
    tMs: 0,
    playing: false,
    speed: 1,
    selected: null,
    activeLane: 0,
    inspectKey: null,
    streamSource: null,
    experiment: null,
    burstSize: 10,
  };
}

/** The one store: the inputs, the clock, the selection, and the actions that change them. */
export function createPlaygroundStore(inputs: PlaygroundInputs = defaultInputs()) {
  return createStore<PlaygroundStore>()((set, get) => {
    /** A new scenario; the selection no longer points at the same request, so it goes. */
    const setScenario = (scenario: Scenario) =>
      set((s) => ({
        scenario: { ...scenario, metrics: { ...s.scenario.metrics, ...scenario.metrics } },
        selected: null,
      }));
    const withSources = (sources: TrafficSource[]) => setScenario({ ...get().scenario, sources });

    return {
      ...initialState(inputs),

      setBurstSize: (n) =>
        set({ burstSize: Number.isInteger(n) ? Math.min(1000, Math.max(1, n)) : 10 }),
      setLimiterConfig: (lane, config) =>
        set((s) => ({
          // An edited limiter drops its preset name ("5-token bucket passes …" would go stale):
          // it is then called by its algorithm again.
          // It keeps its system (a Traefik or HAProxy limiter stays one while its fields are
          // edited) and its added-headers flag while the algorithm is the same.
          limiters: s.limiters.map((l, i) =>
            i !== lane
              ? l
              : JSON.stringify(l.config) === JSON.stringify(config)
                ? l
                : l.config.kind !== config.kind
                  ? { config }
                  : {
                      ...(l.system === undefined ? {} : { system: l.system }),
                      ...(l.standardHeaders === undefined
                        ? {}
                        : { standardHeaders: l.standardHeaders }),
                      config,
                    },
          ),
          selected: null,
        })),
      setLimiterKind: (lane, kind) =>
        set((s) => ({
          limiters: s.limiters.map((l, i) => (i === lane ? { config: DEFAULT_LIMITERS[kind] } : l)),
          selected: null,
        })),
      addLimiter: (kind: AlgorithmKind) =>
        set((s) =>
          s.limiters.length >= MAX_LIMITERS
            ? {}
            : {
                limiters: [...s.limiters, { config: DEFAULT_LIMITERS[kind] }],
                activeLane: s.limiters.length,
                mode: 'compare',
                selected: null,
              },
        ),
      setLimiterSystem: (lane, id) =>
        set((s) => ({
          limiters: s.limiters.map((l, i) => (i === lane ? entryOfSystem(id) : l)),
          selected: null,
        })),
      addSystem: (id) =>
        set((s) =>
          s.limiters.length >= MAX_LIMITERS
            ? {}
            : {
                limiters: [...s.limiters, entryOfSystem(id)],
                activeLane: s.limiters.length,
                mode: 'compare',
                selected: null,
              },
        ),
      setStandardHeaders: (lane, on) =>
        set((s) => ({
          limiters: s.limiters.map((l, i) => {
            if (i !== lane) return l;
            const rest = { ...l };
            delete rest.standardHeaders;
            return on ? { ...rest, standardHeaders: true } : rest;
          }),
        })),
      removeLimiter: (lane) =>
        set((s) => {
          if (s.limiters.length <= 1) return {};
          const limiters = s.limiters.filter((_, i) => i !== lane);
          return {
            limiters,
            activeLane: Math.min(s.activeLane, limiters.length - 1),
            mode: limiters.length === 1 ? 'single' : s.mode,
            selected: null,
          };
        }),
      setActiveLane: (lane) =>
        set((s) => ({ activeLane: Math.min(Math.max(0, lane), s.limiters.length - 1) })),
      setMode: (mode) => set({ mode }),

      setScenario,
      setUntil: (untilMs) =>
        set((s) => ({ untilMs, tMs: clampTime(s.tMs, untilMs), selected: null })),
      setChartWindow: (windowMs) =>
        set((s) => ({ scenario: { ...s.scenario, metrics: { ...s.scenario.metrics, windowMs } } })),
      setInspectKey: (inspectKey) => set({ inspectKey }),

      fire: (count = 1) => {
        const { scenario, tMs, untilMs } = get();
        const at = Math.floor(tMs);
        const sources = scenario.sources.slice();
        let index = sources.findIndex((s) => s.kind === 'manual');
        if (index < 0) {
          sources.push({ kind: 'manual', timesMs: [] });
          index = sources.length - 1;
        }
        const manual = sources[index] as Extract<TrafficSource, { kind: 'manual' }>;
        const room = MAX_MANUAL_TIMES - manual.timesMs.length;
        if (room <= 0) return;
        sources[index] = {
          ...manual,
          timesMs: [...manual.timesMs, ...Array<number>(Math.min(count, room)).fill(at)],
        };
        // A request fired at the very end would fall outside the run: the run grows to hold it.
        if (at >= untilMs) set({ untilMs: Math.min(MAX_UNTIL_MS, at + 5000) });
        withSources(sources);
        // Show what happened to it: the last request just fired is selected for the inspector.
        const after = get();
        const sim = simulationOf(after);
        const lane = Math.min(after.activeLane, after.limiters.length - 1);
        const row = sim.ok ? lastRowOf(sim.result, lane, index, at) : -1;
        if (row >= 0) set({ selected: { lane, row } });
      },
      startStream: (ratePerSec) => {
        const { scenario, tMs, untilMs, streamSource } = get();
        if (streamSource !== null) return;
        const startMs = Math.floor(tMs);
        if (startMs >= untilMs - 1) return;
        const sources = [
          ...scenario.sources,
          { kind: 'constant' as const, ratePerSec, startMs, endMs: untilMs },
        ];
        set({ streamSource: sources.length - 1 });
        withSources(sources);
      },
      stopStream: () => {
        const { scenario, tMs, streamSource } = get();
        if (streamSource === null) return;
        const source = scenario.sources[streamSource];
        set({ streamSource: null });
        if (source?.kind !== 'constant') return;
        const endMs = Math.floor(tMs) + 1;
        const sources =
          endMs <= source.startMs + 1
            ? scenario.sources.filter((_, i) => i !== streamSource)
            : scenario.sources.map((s, i) =>
                i === streamSource ? { ...source, endMs: Math.min(source.endMs, endMs) } : s,
              );
        withSources(sources);
      },

      play: () => set((s) => ({ playing: true, tMs: s.tMs >= s.untilMs ? 0 : s.tMs })),
      pause: () => set({ playing: false }),
      togglePlay: () => (get().playing ? get().pause() : get().play()),
      setSpeed: (speed) =>
        set({ speed: Math.min(Math.max(speed, SPEEDS[0] as number), SPEEDS.at(-1) as number) }),
      seek: (tMs) => set((s) => ({ tMs: clampTime(tMs, s.untilMs), playing: false })),
      stepBy: (deltaMs) =>
        set((s) => ({ tMs: clampTime(Math.round(s.tMs) + deltaMs, s.untilMs), playing: false })),
      tick: (realElapsedMs) =>
        set((s) => {
          if (!s.playing) return {};
          const elapsed = Math.min(Math.max(0, realElapsedMs), MAX_FRAME_MS);
          const tMs = s.tMs + elapsed * s.speed;
          return tMs >= s.untilMs ? { tMs: s.untilMs, playing: false } : { tMs };
        }),
      stepToNextEvent: () => {
        const s = get();
        const sim = simulationOf(s);
        if (!sim.ok) return;
        const next = nextEventAfter(sim.result, Math.floor(s.tMs));
        if (next !== null && next <= s.untilMs) s.seek(next);
      },
      rewind: () => set({ tMs: 0, playing: false }),
      select: (selected) => set({ selected }),
      load: (next, clock) =>
        set({
          ...initialState(next),
          ...clock,
          tMs: clampTime(clock?.tMs ?? 0, next.untilMs),
        }),
      loadExperiment: (id, variant = null) => {
        const experiment = experimentById(id);
        if (experiment === undefined) return;
        const chosen = experiment.variants?.find((v) => v.id === variant);
        // A copy: the library stays as written whatever is done to the store's inputs.
        const inputs = structuredClone(chosen?.inputs ?? experiment.inputs);
        set({
          ...initialState(inputs),
          tMs: clampTime(experiment.startAtMs, inputs.untilMs),
          experiment: { id, variant: chosen?.id ?? null },
        });
      },
      setExperiment: (experiment) => set({ experiment }),
      loadConfig: (config) =>
        set({
          ...initialState(inputsOf(config)),
          tMs: clampTime(config.view.tMs, config.view.untilMs),
          playing: !config.view.paused && config.view.tMs < config.view.untilMs,
          speed: config.view.speed,
          selected: config.view.selected,
        }),
    };
  });
}

export type PlaygroundStoreApi = ReturnType<typeof createPlaygroundStore>;
