/**
 * What Spring Cloud Gateway's RedisRateLimiter sends for a decision (spring-gateway.ts has the model).
 */
import type { AlgorithmConfig, Decision } from '../../core';
import { SPRING_SOURCES } from '../sources/spring-gateway';
import { makeResponse } from '../response';
import type { SystemHeader, SystemResponse } from '../types';

/** What springGateway sends for `decision` (SystemModel.response). */
export function springGatewayResponse(config: AlgorithmConfig, decision: Decision): SystemResponse {
  const rate = config.kind === 'token-bucket' ? config.tokensPerFill : 0;
  const burst = config.kind === 'token-bucket' ? config.maxTokens : 0;
  const fields: SystemHeader[] = [
    { name: 'X-RateLimit-Remaining', value: String(decision.remaining) },
    { name: 'X-RateLimit-Replenish-Rate', value: String(rate) },
    { name: 'X-RateLimit-Burst-Capacity', value: String(burst) },
    { name: 'X-RateLimit-Requested-Tokens', value: '1' },
  ];
  return makeResponse(decision.outcome === 'reject' ? 429 : 200, fields, SPRING_SOURCES);
}
