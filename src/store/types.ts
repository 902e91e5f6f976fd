import type { AlgorithmConfig, AlgorithmKind } from '../core';
import type { LimiterEntry, PlaygroundConfig, ScenarioConfig, Selection } from '../config';
import type { Scenario } from '../sim';

export type { LimiterEntry, Selection };

/** Everything the playground shows is a function of these inputs (and `tMs`). */
export interface PlaygroundInputs {
  /** 1 – 6 limiters; compare mode shows them all, single mode shows `activeLane`. */
  limiters: LimiterEntry[];
  /** The scenario; `metrics.windowMs` is W in "the most passed in any interval of W". */
  scenario: ScenarioConfig;
  /** Length of the simulated run, ms. */
  untilMs: number;
  mode: 'single' | 'compare';
}

export interface ClockState {
  /** The virtual time drawn, ms (fractional while playing; events are at whole ms). */
  tMs: number;
  playing: boolean;
  /** Virtual ms per real ms: 0.1 – 100. */
  speed: number;
}

export interface PlaygroundState extends PlaygroundInputs, ClockState {
  selected: Selection | null;
  /** The limiter being edited (and shown in single mode). */
  activeLane: number;
  /** The key whose state the views draw. null: the first key of the run. */
  inspectKey: string | null;
  /** The source index of the stream started with "Start stream", while it runs. */
  streamSource: number | null;
  /** The experiment whose card is shown (its inputs may since have been edited). */
  experiment: ExperimentRef | null;
}

/** An experiment of the library, and which of its variants. */
export interface ExperimentRef {
  id: string;
  /** null: the experiment's own inputs (its first variant when it has variants). */
  variant: string | null;
}

export interface PlaygroundActions {
  // limiters
  setLimiterConfig: (lane: number, config: AlgorithmConfig) => void;
  setLimiterKind: (lane: number, kind: AlgorithmKind) => void;
  addLimiter: (kind: AlgorithmKind) => void;
  /** Lane `lane` becomes a new limiter of system `id` (its default config). */
  setLimiterSystem: (lane: number, id: string) => void;
  /** Adds a limiter of system `id` and switches to compare mode. */
  addSystem: (id: string) => void;
  /** The lane's "add standard rate-limit headers" option. */
  setStandardHeaders: (lane: number, on: boolean) => void;
  removeLimiter: (lane: number) => void;
  setActiveLane: (lane: number) => void;
  setMode: (mode: 'single' | 'compare') => void;
  // scenario
  /** A new scenario (metrics options kept from the current one when `scenario` has none). */
  setScenario: (scenario: Scenario) => void;
  setUntil: (untilMs: number) => void;
  setChartWindow: (windowMs: number) => void;
  setInspectKey: (key: string | null) => void;
  /** Fires `count` requests at the current time (a manual source). */
  fire: (count?: number) => void;
  /** Starts a constant stream at `ratePerSec` from now to the end of the run. */
  startStream: (ratePerSec: number) => void;
  /** Ends the running stream now. */
  stopStream: () => void;
  // clock
  play: () => void;
  pause: () => void;
  togglePlay: () => void;
  setSpeed: (speed: number) => void;
  /** Moves the clock to tMs (clamped to the run) and pauses. */
  seek: (tMs: number) => void;
  /** Moves the clock by deltaMs and pauses. */
  stepBy: (deltaMs: number) => void;
  /** Advances the clock by real elapsed ms × speed (the animation loop). */
  tick: (realElapsedMs: number) => void;
  /** Moves the clock to the next arrival, release or clock jump, and pauses. */
  stepToNextEvent: () => void;
  /** Back to t = 0, paused. */
  rewind: () => void;
  select: (selection: Selection | null) => void;
  /** Replaces every input at once (a preset), with the clock at `clock` (default: 0, paused). */
  load: (inputs: PlaygroundInputs, clock?: Partial<ClockState>) => void;
  /** Replaces everything with a decoded link or saved config: inputs, clock, selection. */
  loadConfig: (config: PlaygroundConfig) => void;
  /** Loads an experiment (or one of its variants) paused at its moment, and shows its card. */
  loadExperiment: (id: string, variant?: string | null) => void;
  /** Shows (or hides, with null) an experiment's card without loading anything. */
  setExperiment: (ref: ExperimentRef | null) => void;
}

export type PlaygroundStore = PlaygroundState & PlaygroundActions;
