/**
 * The PlaygroundConfig: everything a link reproduces (limiters, scenario, view), its types and its
 * limits. Its valibot schema, which checks untrusted input against these limits, is
 * ./valibot-schema.ts: only the repair of links and saved settings runs it, so the page fetches it
 * with them, not in its first load (this file is part of it).
 *
 * Units: every time and duration is a whole number of virtual milliseconds (`…Ms`).
 */
import type { AlgorithmConfig } from '../core';
import type { Scenario, TrafficSource } from '../sim';

/** The kinds of traffic source a config holds (each has its schema: SOURCE_SCHEMAS). */
export type SourceKind = TrafficSource['kind'];

// ---------------------------------------------------------------------------------------------
// Version and limits
// ---------------------------------------------------------------------------------------------

/** The schema version links are written in (`v=1`). Bump it with a migration (migrate.ts). */
export const CONFIG_VERSION = 1;
/** Limiters in one config (lanes compared side by side). */
export const MAX_LIMITERS = 6;
/** Longest limiter name, in UTF-16 code units. */
export const MAX_NAME_LENGTH = 40;
/**
 * What a name may hold: letters and digits of any script, combining marks, spaces and `- _ . ( ) /`.
 * No quotes, angle brackets, `&`, `=`, `,`, `:` or invisible characters: a name is plain text and can
 * sit in a link, a header or a config snippet without escaping.
 */
export const NAME_PATTERN = /^[\p{L}\p{M}\p{N} _.()/-]+$/u;
/** The name rule, as messages state it. */
export const NAME_RULE = `must be 1 to ${MAX_NAME_LENGTH} characters: letters, digits, spaces and - _ . ( ) /`;
/** The largest seed: seeds are unsigned 32-bit (src/sim/validate.ts checks the same bound). */
export const MAX_SEED = 0xffff_ffff;
/** Playback speed: virtual ms per real ms. */
export const MIN_SPEED = 0.1;
export const MAX_SPEED = 100;

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

/** One limiter of the comparison. */
export interface LimiterEntry {
  /**
   * Shown in the UI and used as the policy name in RateLimit headers. Optional (default: the
   * algorithm's name). Plain text, 1 – 40 characters, see `NAME_PATTERN`.
   */
  name?: string;
  /** The algorithm and its parameters, as the core takes them. */
  config: AlgorithmConfig;

  // ---- Systems (src/systems) -------------------------------------------------------------
  /**
   * The real system this limiter models (`SYSTEM_IDS`, e.g. 'traefik'), built on `config.kind`.
   * Absent: the system the algorithm stood for before systems existed (nginx for the leaky bucket,
   * Envoy for the token bucket …), so old links open unchanged. Never the default one (absent then).
   */
  system?: string;
  /**
   * "Add standard rate-limit headers": show (and export) the IETF RateLimit / RateLimit-Policy,
   * Retry-After and X-RateLimit-* headers as the system can be made to send them, labelled as
   * added. Absent: false (what the system sends by itself).
   */
  standardHeaders?: boolean;
}

/** Parameters of the metrics (the simulator's `MetricsOptions`, with the window required). */
export interface MetricsConfig {
  /**
   * W in "the most requests passed in any interval of length W" (the chart's peak marker).
   * 1 – 86,400,000. Default 1000.
   */
  windowMs: number;
  /** Rate-chart bin width; absent means automatic (at most 600 bins). 1 – 86,400,000, ≤ 100,000 bins. */
  binMs?: number;
}

/** The simulator's `Scenario`, with the metrics window always present. */
export interface ScenarioConfig extends Omit<Scenario, 'metrics'> {
  metrics: MetricsConfig;
}

/** A request picked for its details: lane = index into `limiters`, row = request id in that lane. */
export interface Selection {
  /** 0 – limiters.length − 1. */
  lane: number;
  /** 0 – 3,999,999 (MAX_DECISIONS − 1); rows past the lane's end select nothing. */
  row: number;
}

/** What the page shows; none of it changes a decision. */
export interface ViewConfig {
  /** Run length: the simulation covers virtual time [0, untilMs). 1 – 86,400,000. Default 60,000. */
  untilMs: number;
  /**
   * The virtual time drawn, in whole ms: 0 – untilMs. Default 0. Playing moves time in fractions
   * of a ms; round it when storing it here (a link holds whole ms).
   */
  tMs: number;
  /** Whether the clock stands still. Default false. */
  paused: boolean;
  /** Virtual ms per real ms while playing. 0.1 – 100. Default 1. */
  speed: number;
  /** The request whose details are open. Default null. */
  selected: Selection | null;
  /** 'single': one limiter at a time; 'compare': every lane side by side. Default 'single'. */
  mode: 'single' | 'compare';
}

/** Everything a link reproduces. Plain data: JSON round-trips it unchanged. */
export interface PlaygroundConfig {
  /** Always CONFIG_VERSION: older links are migrated on load (migrate.ts). */
  version: typeof CONFIG_VERSION;
  /** 1 – 6 limiters, all facing the same arrivals. Default: one Envoy token bucket (10, 5 per 1s). */
  limiters: LimiterEntry[];
  /** Traffic, clients, retries, deployment, clock, seed and metrics. Default: see defaults.ts. */
  scenario: ScenarioConfig;
  view: ViewConfig;
}
