/**
 * Traefik's Redis limiter replayed over one key's requests, for the headers of a row that met the
 * shared store (the script and its rules: src/core/algorithms/traefik-redis.ts).
 */
import type { AlgorithmConfig } from '../../core';
import { traefikRedisParams, traefikRedisStep } from '../../core/algorithms/traefik-redis';
import type { TraefikRedisKey, TraefikRedisStep } from '../../core/algorithms/traefik-redis';

/**
 * Every request of one key, in order, at wall times `timesMs` (scenario ms; Unix ms = epochMs +
 * each), through Traefik's Redis limiter from no key.
 */
export function traefikRedisReplay(
  config: AlgorithmConfig,
  timesMs: readonly number[],
  epochMs: number,
): TraefikRedisStep[] {
  if (config.kind !== 'token-bucket') throw new TypeError('Traefik limits with a token bucket');
  const p = traefikRedisParams(config);
  let key: TraefikRedisKey | undefined;
  return timesMs.map((ms) => {
    const r = traefikRedisStep(p, key, epochMs + ms);
    key = r.key;
    return r.step;
  });
}
