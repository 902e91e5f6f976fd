/**
 * The files and documents the Redis pattern models were built from, each with the rules it fixes,
 * cited beside the responses. Only the code that writes responses (../respond, a chunk of its own)
 * imports this module, so the first page load does not carry the text.
 */
import type { SourceRef } from '../types';
import { RFC_6585 } from './app';

export const REDIS_FIXED_SOURCES: readonly SourceRef[] = [
  {
    file: 'https://redis.io/docs/latest/commands/incr/ ("Pattern: Rate limiter")',
    version: 'Redis 7.0',
    what: 'INCR the window key, EXPIRE it with the window, refuse above the limit',
  },
  RFC_6585,
];
export const REDIS_LOG_SOURCES: readonly SourceRef[] = [
  {
    file: 'https://redis.io/docs/latest/commands/zremrangebyscore/, zcard, zadd',
    version: 'Redis 7.0',
    what: 'the sorted-set log: drop entries older than the window, count, add',
  },
  RFC_6585,
];
export const REDIS_TWO_WINDOW_SOURCES: readonly SourceRef[] = [
  {
    file: 'src/lua-scripts/single/sliding-window.ts (upstash/ratelimit-js)',
    version: '@upstash/ratelimit, 2025',
    what: 'the pattern: the previous window’s count weighted by its overlap, plus the current',
  },
  RFC_6585,
];
