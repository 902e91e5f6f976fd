/**
 * What an application on the Redis patterns sends for a decision (redis-patterns.ts has the models).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { appResponse } from './app';
import {
  REDIS_FIXED_SOURCES,
  REDIS_LOG_SOURCES,
  REDIS_TWO_WINDOW_SOURCES,
} from '../sources/redis-patterns';
import type { SystemResponse, SystemResponseOptions } from '../types';

/** What redisFixedWindow sends for `decision` (SystemModel.response). */
export function redisFixedWindowResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  return appResponse(config, decision, options, REDIS_FIXED_SOURCES);
}

/** What redisSlidingLog sends for `decision` (SystemModel.response). */
export function redisSlidingLogResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  return appResponse(config, decision, options, REDIS_LOG_SOURCES);
}

/** What redisTwoWindow sends for `decision` (SystemModel.response). */
export function redisTwoWindowResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  return appResponse(config, decision, options, REDIS_TWO_WINDOW_SOURCES);
}
