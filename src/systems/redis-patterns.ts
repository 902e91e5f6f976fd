/**
 * The Redis patterns applications write themselves: a fixed window (INCR + EXPIRE per window
 * key), a sliding log (a sorted set: ZREMRANGEBYSCORE, ZCARD, ZADD) and the two-window sliding
 * counter (the current and the previous window's counts, the previous one weighted by its
 * overlap). Redis decides nothing about HTTP: the application sends 429 (RFC 6585) and whatever
 * headers it computes.
 */
import { SWC_SUMMARY, alignedOnly } from './cloudflare';
import type { SystemInfo, SystemParam } from './types';

const LIMIT: SystemParam = {
  key: 'limit',
  field: 'limit',
  help: 'Requests admitted per window.',
  input: 'int',
};
const WINDOW: SystemParam = {
  key: 'window',
  field: 'windowMs',
  unit: 'ms',
  url: 'duration',
  help: 'Window length; windows start at multiples of it.',
  input: 'int',
};
const APP_HEADERS =
  'The application computes them per request (count, window end) and sets them itself.';

export const redisFixedWindow: SystemInfo = {
  id: 'redis-fixed-window',
  name: 'Redis INCR + EXPIRE (fixed window)',
  shortName: 'Redis fixed window',
  version: 'Redis 7.0',
  group: 'Redis and app libraries',
  kind: 'fixed-window',
  algorithms: ['fixed-window'],
  urlName: 'fixed-window',
  summary: 'Counts requests per window aligned to t = 0 and admits up to limit per window.',
  // The key is the application's (the pattern's KEYS[1]); an empty one is one Redis key shared
  // by every such request.
  emptyKey: 'shared',
  params: [LIMIT, WINDOW],
  defaultConfig: { kind: 'fixed-window', limit: 5, windowMs: 1000 },
  standardHeadersHow: APP_HEADERS,
};

export const redisSlidingLog: SystemInfo = {
  id: 'redis-sliding-log',
  name: 'Redis sorted-set log (sliding log)',
  shortName: 'Redis sliding log',
  version: 'Redis 7.0',
  group: 'Redis and app libraries',
  kind: 'sliding-log',
  algorithms: ['sliding-log'],
  urlName: 'sliding-log',
  summary:
    'Keeps a timestamp per admitted request and admits while fewer than limit are younger than the window.',
  // The key is the application's (the pattern's KEYS[1]); an empty one is one Redis key shared
  // by every such request.
  emptyKey: 'shared',
  params: [
    { ...LIMIT, help: 'Requests admitted in any window.' },
    { ...WINDOW, help: 'How long an entry counts.' },
    {
      key: 'log_rejected',
      field: 'logRejected',
      help: 'Also log rejected requests (add-then-count): memory grows with load and hammering clients stay blocked.',
      input: 'bool',
      absentMeans: 'false',
    },
  ],
  defaultConfig: { kind: 'sliding-log', limit: 5, windowMs: 1000 },
  standardHeadersHow: APP_HEADERS,
};

export const redisTwoWindow: SystemInfo = {
  id: 'redis-sliding-window',
  name: 'Redis two-window counter (sliding window)',
  shortName: 'Redis sliding window',
  version: 'Redis 7.0',
  group: 'Redis and app libraries',
  kind: 'sliding-window-counter',
  algorithms: ['sliding-window-counter'],
  urlName: 'redis-sliding-window',
  summary: SWC_SUMMARY,
  // The key is the application's (the pattern's KEYS[1]); an empty one is one Redis key shared
  // by every such request.
  emptyKey: 'shared',
  params: [LIMIT, { ...WINDOW, help: 'Any length (Cloudflare takes 10 s to 1 h only).' }],
  defaultConfig: { kind: 'sliding-window-counter', limit: 5, windowMs: 1000 },
  // Aligned windows only, as Cloudflare's: HAProxy's per-entry counter is not this pattern's.
  derive: alignedOnly,
  standardHeadersHow: APP_HEADERS,
};
