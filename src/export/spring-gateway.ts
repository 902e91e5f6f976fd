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
  // Routes live under GatewayProperties.PREFIX = "spring.cloud.gateway.server.webflux"
  // (spring-cloud-gateway-server-webflux GatewayProperties.java, master 5227205). The old
  // `spring.cloud.gateway.routes` was deprecated in 4.3.0 and its metadata stays only in the
  // legacy spring-cloud-gateway-server module, which 5.0 no longer builds: a 5.0 gateway ignores
  // it, and the route and its limiter would not exist.
  const doc = {
    spring: {
      cloud: {
        gateway: {
          server: {
            webflux: {
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
      'Spring Cloud Gateway 5 (WebFlux) with spring-boot-starter-data-redis-reactive; request_rate_limiter.lua read at master 5227205 (5.0.3+)',
    differences,
    notes: [
      'clientKeyResolver is a KeyResolver bean you define (e.g. exchange -> Mono.just(remote address)).',
      'Denied requests get 429 with X-RateLimit-Remaining, -Replenish-Rate, -Burst-Capacity, -Requested-Tokens.',
    ],
  };
}
