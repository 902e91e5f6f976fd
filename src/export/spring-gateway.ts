/**
 * Spring Cloud Gateway's RequestRateLimiter filter with RedisRateLimiter, as application.yml.
 */
import { stringify } from 'yaml';
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig } from '../core';
import type { SystemExportOutcome } from './systems-types';

export function toSpringGateway(config: AlgorithmConfig): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'token-bucket' || c.refill !== 'interval' || c.fillIntervalMs !== 1000) {
    return {
      ok: false,
      target: 'spring-gateway',
      kind: c.kind,
      reason:
        'RedisRateLimiter refills replenishRate tokens at every whole second of Redis TIME: choose the Spring Cloud Gateway system (interval refill, fill_interval 1 s) to export it.',
    };
  }
  const doc = {
    spring: {
      cloud: {
        gateway: {
          routes: [
            {
              id: 'limited',
              uri: 'http://localhost:8080',
              predicates: ['Path=/**'],
              filters: [
                {
                  name: 'RequestRateLimiter',
                  args: {
                    'redis-rate-limiter.replenishRate': c.tokensPerFill,
                    'redis-rate-limiter.burstCapacity': c.maxTokens,
                    'redis-rate-limiter.requestedTokens': 1,
                    'key-resolver': '#{@clientKeyResolver}',
                  },
                },
              ],
            },
          ],
        },
      },
    },
  };
  const differences: string[] = [];
  if ((c.maxDelayMs ?? 0) > 0)
    differences.push('RedisRateLimiter never delays: it rejects at once.');
  if (Math.floor((2 * c.maxTokens) / c.tokensPerFill) === 0) {
    differences.push(
      'burstCapacity < replenishRate / 2: the script computes a TTL of ⌊2 · burstCapacity / replenishRate⌋ = 0 s and then stores nothing, so every request passes. Raise burstCapacity.',
    );
  }
  return {
    ok: true,
    target: 'spring-gateway',
    language: 'yaml',
    text: stringify(doc),
    assumes:
      'Spring Cloud Gateway (WebFlux) with spring-boot-starter-data-redis-reactive; request_rate_limiter.lua read at master 5227205 (5.0.3+)',
    differences,
    notes: [
      'clientKeyResolver is a KeyResolver bean you define (e.g. exchange -> Mono.just(remote address)).',
      'Denied requests get 429 with X-RateLimit-Remaining, -Replenish-Rate, -Burst-Capacity, -Requested-Tokens.',
    ],
  };
}
