/**
 * What the Traefik Redis tests share: Traefik's own config for an average per second and a burst
 * (its maxDelay derived as the system derives it), and two instances sharing one atomic store.
 */
import type { TokenBucketConfig } from '../../src/core';
import type { Deployment } from '../../src/sim';
import { deriveConfig, systemById } from '../../src/systems';

const traefik = systemById('traefik');
if (traefik === undefined) throw new Error('traefik is registered');

/** Traefik at `average` per second, burst `burst`: maxDelay 1/(2·rate). */
export function traefikConfig(average: number, burst: number): TokenBucketConfig {
  return deriveConfig(traefik as NonNullable<typeof traefik>, {
    kind: 'token-bucket',
    maxTokens: burst,
    tokensPerFill: average,
    fillIntervalMs: 1000,
  }) as TokenBucketConfig;
}

/** Two instances behind round robin sharing one atomic store (Traefik: its Redis limiter). */
export const SHARED: Deployment = {
  instances: 2,
  balancer: 'round-robin',
  state: 'shared-atomic',
  roundTripMs: 5,
};
