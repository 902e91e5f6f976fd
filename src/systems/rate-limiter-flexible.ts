/**
 * rate-limiter-flexible 11.4.0 `RateLimiterMemory`, modelled on the anchored-window algorithm.
 * The library answers a Promise, not an HTTP response: the status and headers below are the ones
 * its README suggests ("You may want to set HTTP headers"), as the exported middleware
 * (src/export/express-rate-limit.ts toRateLimiterFlexible) sets them, so every header is marked as
 * added; Retry-After in whole seconds (RFC 9110 delay-seconds), rounded up.
 */
import type { AnchoredWindowConfig } from '../core';
import type { SystemInfo } from './types';

export const RATE_LIMITER_FLEXIBLE_VERSION = 'rate-limiter-flexible 11.4.0';
const V = RATE_LIMITER_FLEXIBLE_VERSION;

/** RateLimiterMemory's options, in its own units (seconds). */
export interface RateLimiterFlexibleOptions {
  /** `points` per duration (required: the library has no default). */
  points: number;
  /** `duration` in seconds (required); whole milliseconds here. */
  durationMs: number;
  /** `blockDuration` in seconds (default 0 = no block); whole milliseconds here. */
  blockDurationMs: number;
  /** `execEvenly` (default false). */
  execEvenly: boolean;
  /** `execEvenlyMinDelayMs` (default ⌈duration·1000 / points⌉). */
  execEvenlyMinDelayMs?: number;
  /** consume(key, pointsToConsume): points per request (default 1). */
  cost?: number;
}

/**
 * The lab's starting options: points and duration are example values (the library requires both),
 * blockDuration 0 and execEvenly false are the library's own defaults (RateLimiterAbstract.js).
 */
export const RATE_LIMITER_FLEXIBLE_DEFAULTS: RateLimiterFlexibleOptions = {
  points: 4,
  durationMs: 1000,
  blockDurationMs: 0,
  execEvenly: false,
};

/** The core config for `o`. */
export function rateLimiterFlexibleConfig(o: RateLimiterFlexibleOptions): AnchoredWindowConfig {
  const c: AnchoredWindowConfig = {
    kind: 'anchored-window',
    limit: o.points,
    windowMs: o.durationMs,
    countRejected: true,
  };
  if (o.blockDurationMs > 0) c.blockMs = o.blockDurationMs;
  if (o.execEvenly) {
    c.execEvenly = true;
    // Left out: the core's default is the library's, ⌈msDuration / points⌉.
    if (o.execEvenlyMinDelayMs !== undefined) c.execEvenlyMinDelayMs = o.execEvenlyMinDelayMs;
  }
  if (o.cost !== undefined && o.cost !== 1) c.cost = o.cost;
  return c;
}

export const rateLimiterFlexible: SystemInfo = {
  id: 'rate-limiter-flexible',
  name: 'rate-limiter-flexible RateLimiterMemory',
  version: V,
  group: 'Redis and app libraries',
  kind: 'anchored-window',
  algorithms: ['anchored-window'],
  urlName: 'rate-limiter-flexible',
  summary:
    "Consumes a point per request (rejected ones too) in a window that starts at the key's first request; blockDuration blocks after the first reject; execEvenly delays.",
  params: [
    // lib/RateLimiterAbstract.js (11.4.0): `points` and `duration` have no default; their setters
    // throw ("points must be set …", "duration must be set …") when the option is left out.
    {
      key: 'points',
      field: 'limit',
      help: 'Points per duration (required: the library throws without it).',
      input: 'int',
    },
    {
      key: 'duration',
      field: 'windowMs',
      unit: 'ms',
      url: 'duration',
      help: "Window from the key's first consume (required; 0: points never expire).",
      input: 'int',
    },
    {
      key: 'blockDuration',
      field: 'blockMs',
      unit: 'ms',
      url: 'duration',
      help: 'The first consume over the points blocks the key this long (default 0: no block).',
      input: 'int',
      optional: { placeholder: '0' },
    },
    {
      key: 'execEvenly',
      field: 'execEvenly',
      help: 'Delay each pass to spread the points over the rest of the window.',
      input: 'bool',
      absentMeans: 'false',
    },
    {
      key: 'execEvenlyMinDelayMs',
      field: 'execEvenlyMinDelayMs',
      unit: 'ms',
      url: 'duration',
      help: 'Shortest execEvenly delay (library default ⌈duration / points⌉ ms).',
      input: 'int',
      optional: { placeholder: '⌈duration / points⌉' },
    },
    {
      key: 'pointsToConsume',
      field: 'cost',
      help: 'Points each request takes: consume(key, pointsToConsume) (default 1).',
      input: 'int',
      optional: { placeholder: '1' },
    },
  ],
  defaultConfig: { kind: 'anchored-window', limit: 4, windowMs: 1000, countRejected: true },
  derive(config) {
    // MemoryStorage.incrby counts before consume() compares (lib/RateLimiterMemory.js).
    return config.kind === 'anchored-window' ? { ...config, countRejected: true } : config;
  },
  standardHeadersHow:
    "The application sets them from the RateLimiterRes it gets (the README's example); they are marked as added.",
  // lib/RateLimiterAbstract.js (rate-limiter-flexible 11.4.0), getKey: `${keyPrefix}:${key}` —
  // the key is the app's choice; '' is one key ("rlflx:") shared by every such request.
  emptyKey: 'shared',
};
