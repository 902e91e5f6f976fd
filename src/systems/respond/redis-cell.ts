/**
 * What an application in front of redis-cell sends for a decision (redis-cell.ts has the model).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { appResponse } from './app';
import { REDIS_CELL_SOURCES } from '../sources/redis-cell';
import type { SystemResponse, SystemResponseOptions } from '../types';

/** What redisCell sends for `decision` (SystemModel.response). */
export function redisCellResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  return appResponse(config, decision, options, REDIS_CELL_SOURCES);
}
