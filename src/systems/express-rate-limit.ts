/**
 * express-rate-limit 8.7.5 with its default MemoryStore, modelled on the anchored-window algorithm.
 * Every rule below cites the package's source as published on npm (dist/index.cjs is built from
 * the repository's `source/` files named here).
 */
import type { AlgorithmConfig, AnchoredWindowConfig } from '../core';
import type { SystemInfo } from './types';

/** A header the system sends itself. */
export const EXPRESS_RATE_LIMIT_VERSION = 'express-rate-limit 8.7.5';

const V = EXPRESS_RATE_LIMIT_VERSION;

/** express-rate-limit's own options (those that change decisions or headers). */
export interface ExpressRateLimitOptions {
  /** `windowMs` (default 60000). */
  windowMs: number;
  /** `limit` (alias `max`; default 5). */
  limit: number;
  /** `standardHeaders`: false (default), 'draft-6' (also `true`), 'draft-7' or 'draft-8'. */
  standardHeaders: false | 'draft-6' | 'draft-7' | 'draft-8';
  /** `legacyHeaders` (default true): X-RateLimit-Limit / -Remaining / -Reset and Date. */
  legacyHeaders: boolean;
  /** `statusCode` (default 429). */
  statusCode: number;
}

export const EXPRESS_RATE_LIMIT_DEFAULTS: ExpressRateLimitOptions = {
  windowMs: 60_000,
  limit: 5,
  standardHeaders: false,
  legacyHeaders: true,
  statusCode: 429,
};

/** The core config: a window anchored at each key's first hit, counting rejected hits too. */
export function expressRateLimitConfig(o: ExpressRateLimitOptions): AnchoredWindowConfig {
  return { kind: 'anchored-window', limit: o.limit, windowMs: o.windowMs, countRejected: true };
}

export const expressRateLimit: SystemInfo = {
  id: 'express-rate-limit',
  name: 'express-rate-limit (MemoryStore)',
  version: V,
  group: 'Redis and app libraries',
  kind: 'anchored-window',
  algorithms: ['anchored-window'],
  urlName: 'express-rate-limit',
  summary:
    "Counts every hit (rejected ones too) in a window that starts at the key's first hit and lasts windowMs; rejects above limit.",
  // dist/index.mjs (express-rate-limit 8.7.5): the middleware passes whatever keyGenerator returns
  // to store.increment(key) unchecked; a key of '' is one counter shared by every such request.
  emptyKey: 'shared',
  params: [
    {
      key: 'limit',
      field: 'limit',
      help: 'Hits allowed per window (alias max).',
      input: 'int',
      // dist/index.mjs (express-rate-limit 8.7.5), parseOptions: `limit: max ?? 5`.
      productDefault: 5,
    },
    {
      key: 'windowMs',
      field: 'windowMs',
      unit: 'ms',
      url: 'duration',
      help: "Window length from the key's first hit.",
      input: 'int',
      // dist/index.mjs (express-rate-limit 8.7.5), parseOptions: `windowMs: 60 * 1e3`.
      productDefault: 60_000,
    },
  ],
  defaultConfig: { kind: 'anchored-window', limit: 5, windowMs: 60_000, countRejected: true },
  refuses(config: AlgorithmConfig) {
    // dist/index.mjs (express-rate-limit 8.7.5), validations.windowMs: the MemoryStore throws
    // ERR_ERL_WINDOW_MS for a windowMs below 1 (the core's 0 is rate-limiter-flexible's duration 0).
    if (config.kind !== 'anchored-window' || config.windowMs >= 1) return null;
    return {
      field: 'windowMs',
      message: `must be at least 1 ms (ERR_ERL_WINDOW_MS), got ${config.windowMs}`,
    };
  },
  derive(config) {
    // express-rate-limit always counts a hit before comparing (source/memory-store.ts increment).
    return config.kind === 'anchored-window' ? { ...config, countRejected: true } : config;
  },
  standardHeadersHow:
    "rateLimit({ standardHeaders: 'draft-6' | 'draft-7' | 'draft-8' }) (true means draft-6); the library then sends them itself, with Retry-After on a 429.",
};
