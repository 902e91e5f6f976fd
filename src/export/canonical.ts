import type { AlgorithmConfig } from '../core';

/**
 * `config` without optional fields that hold their default (refill 'continuous', maxDelayMs 0,
 * logRejected false, limitReqStatus 503), so equal limiters compare equal: the round trip
 * import(export(c)) returns the canonical form.
 */
export function canonicalConfig(config: AlgorithmConfig): AlgorithmConfig {
  switch (config.kind) {
    case 'token-bucket': {
      const { refill, maxDelayMs, ...rest } = config;
      return {
        ...rest,
        ...(refill === 'interval' ? { refill } : {}),
        ...(maxDelayMs !== undefined && maxDelayMs > 0 ? { maxDelayMs } : {}),
      };
    }
    case 'sliding-log': {
      const { logRejected, ...rest } = config;
      return logRejected === true ? { ...rest, logRejected } : rest;
    }
    case 'leaky-bucket': {
      const { limitReqStatus, ...rest } = config;
      return limitReqStatus !== undefined && limitReqStatus !== 503
        ? { ...rest, limitReqStatus }
        : rest;
    }
    default:
      return { ...config };
  }
}
