/**
 * A limiter's parameters in its system's own words ("burst 20", "rate=10r/s", "nodelay",
 * "limit 5", "http_req_rate 2s"), for the verdict and the diagnosis.
 */
import type { AlgorithmConfig } from '../core';
import { formatDuration } from '../config';
import type { SystemInfo } from '../systems';

/** The fields the diagnosis varies, per algorithm, the first being the limiter's size. */
export function searchedFields(config: AlgorithmConfig): string[] {
  switch (config.kind) {
    case 'leaky-bucket':
      return ['burst', 'rate', 'delay'];
    case 'token-bucket':
      return ['maxTokens', 'tokensPerFill'];
    case 'gcra':
      return ['burst', 'count'];
    case 'calendar-windows':
      return [calendarField(config)];
    default:
      return ['limit', 'windowMs'];
  }
}

/** The shortest unit a calendar-windows config limits. */
export function calendarField(config: AlgorithmConfig): string {
  for (const unit of ['second', 'minute', 'hour', 'day', 'month', 'year']) {
    if ((config as unknown as Record<string, unknown>)[unit] !== undefined) return unit;
  }
  return 'second';
}

/** What a limiter of this algorithm holds, for "each holding its own bucket". */
export function stateNoun(config: AlgorithmConfig): string {
  switch (config.kind) {
    case 'leaky-bucket':
    case 'token-bucket':
    case 'gcra':
      return 'bucket';
    case 'sliding-log':
      return 'log';
    default:
      return 'counter';
  }
}

/** A field's value as the system writes it, e.g. `burst 20`, `rate=10r/s`, `nodelay`, `window 1s`. */
export function paramWords(
  system: SystemInfo,
  config: AlgorithmConfig,
  field: string,
  value: unknown,
): string {
  const param = system.params.find((p) => p.field === field);
  const name = param?.key ?? field;
  if (config.kind === 'leaky-bucket' && field === 'rate')
    return `rate=${String(value)}${config.rateUnit}`;
  if (field === 'delay') return value === 'nodelay' ? 'nodelay' : `delay=${String(value)}`;
  if (typeof value === 'number' && (param?.url === 'duration' || /Ms$/.test(field))) {
    return `${name} ${formatDuration(value)}`;
  }
  return `${name} ${String(value)}`;
}

/** The value of `field` in `config` (undefined when absent). */
export function fieldOf(config: AlgorithmConfig, field: string): unknown {
  return (config as unknown as Record<string, unknown>)[field];
}
