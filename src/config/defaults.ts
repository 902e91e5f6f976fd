/**
 * Defaults, per link version. A link omits every value equal to its version's defaults, so those
 * defaults are part of what the link means: they are written out here as literals, frozen, and
 * never changed. A new default goes into a new version (with a migration), so a `v=1` link opens
 * the same way forever.
 */
import type { AlgorithmConfig, AlgorithmKind } from '../core';
import type { TrafficSource } from '../sim';
import type { PlaygroundConfig, SourceKind } from './schema';

/** What a link version leaves out. */
export interface VersionDefaults {
  /** The config a link of this version with no other parameter than `v` opens. */
  readonly config: PlaygroundConfig;
  /** Parameters a limiter of each kind falls back to when one of its own is invalid or missing. */
  readonly limiter: Readonly<Record<AlgorithmKind, AlgorithmConfig>>;
  /** The same for traffic sources. */
  readonly source: Readonly<Record<SourceKind, TrafficSource>>;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Version 1. The config: one Envoy token bucket (max_tokens 10, tokens_per_fill 5, fill_interval
 * 1s) facing one client's Poisson traffic at 4 requests/s for 20 s with a page-load burst of 12 at
 * 2 s, seed 1, no retries, one instance with local state, a monotonic clock, a 1 s peak window; a
 * 20 s run shown from t = 0, playing at 1×, nothing selected, one lane at a time.
 */
const V1: VersionDefaults = deepFreeze({
  config: {
    version: 1,
    limiters: [
      { config: { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 } },
    ],
    scenario: {
      seed: 1,
      sources: [
        { kind: 'poisson', ratePerSec: 4, startMs: 0, endMs: 20_000 },
        { kind: 'burst', atMs: 2000, count: 12 },
      ],
      clients: { count: 1, keying: 'per-client', assign: 'round-robin' },
      retry: {
        onReject: 'give-up',
        maxAttempts: 4,
        backoffBaseMs: 100,
        backoffCapMs: 10_000,
        turnaroundMs: 0,
      },
      deployment: { instances: 1, balancer: 'round-robin', state: 'local', roundTripMs: 5 },
      clock: { mode: 'monotonic', jumps: [] },
      metrics: { windowMs: 1000 },
    },
    view: {
      untilMs: 20_000,
      tMs: 0,
      paused: false,
      speed: 1,
      selected: null,
      mode: 'single',
    },
  },
  limiter: {
    'token-bucket': { kind: 'token-bucket', maxTokens: 10, tokensPerFill: 5, fillIntervalMs: 1000 },
    'leaky-bucket': { kind: 'leaky-bucket', rate: 2, rateUnit: 'r/s', burst: 5, delay: 0 },
    'fixed-window': { kind: 'fixed-window', limit: 5, windowMs: 1000 },
    'sliding-log': { kind: 'sliding-log', limit: 5, windowMs: 1000 },
    'sliding-window-counter': { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
    gcra: { kind: 'gcra', count: 5, periodMs: 1000, burst: 4 },
    'anchored-window': { kind: 'anchored-window', limit: 5, windowMs: 1000, countRejected: true },
    'calendar-windows': { kind: 'calendar-windows', second: 5, minute: 100 },
  },
  source: {
    manual: { kind: 'manual', timesMs: [] },
    burst: { kind: 'burst', atMs: 0, count: 10 },
    constant: { kind: 'constant', ratePerSec: 10, startMs: 0, endMs: 60_000 },
    poisson: { kind: 'poisson', ratePerSec: 12, startMs: 0, endMs: 60_000 },
    'on-off': {
      kind: 'on-off',
      ratePerSec: 10,
      onMs: 1000,
      offMs: 1000,
      startMs: 0,
      endMs: 60_000,
    },
    'boundary-burst': { kind: 'boundary-burst', boundaryMs: 1000, count: 5 },
    // A fingerprint no trace has: a repaired link says to drop "access.log", and runs without it.
    trace: { kind: 'trace', name: 'access.log', bytes: 0, requests: 1, hash: '0000000000000000' },
  },
});

/** Defaults by link version; every version from 1 to CONFIG_VERSION has an entry. */
export const VERSION_DEFAULTS: Readonly<Record<number, VersionDefaults>> = Object.freeze({ 1: V1 });

/** The current version's defaults. */
export const DEFAULTS: VersionDefaults = V1;

/** A fresh, mutable copy of the default config (the current version's). */
export function defaultConfig(): PlaygroundConfig {
  return structuredClone(DEFAULTS.config);
}

/** The defaults of `version`, or null for a version this build does not know. */
export function defaultsOf(version: number): VersionDefaults | null {
  return Object.hasOwn(VERSION_DEFAULTS, version) ? (VERSION_DEFAULTS[version] ?? null) : null;
}
