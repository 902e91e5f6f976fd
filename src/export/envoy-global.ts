/**
 * Envoy's global rate limiting: the envoyproxy/ratelimit service's YAML config
 * (config/*.yaml: domain, descriptors with rate_limit {unit, requests_per_unit}, shadow_mode) and
 * the Envoy route's `rate_limits` actions plus the `envoy.filters.http.ratelimit` filter.
 */
import { stringify } from 'yaml';
import type { AlgorithmConfig } from '../core';
import { assertAlgorithmConfig, calendarUnits } from '../core';
import type { SystemExportOutcome } from './systems-types';

export interface EnvoyGlobalOptions {
  /** The ratelimit domain. Default 'rate_limit_lab'. */
  domain?: string;
  /** shadow_mode on every descriptor: counted, never enforced. Default: the config's shadowMode. */
  shadowMode?: boolean;
}

const UNIT_NAME: Readonly<Record<string, string>> = {
  second: 'second',
  minute: 'minute',
  hour: 'hour',
  day: 'day',
  month: 'month',
  year: 'year',
};

export function toEnvoyGlobal(
  config: AlgorithmConfig,
  options: EnvoyGlobalOptions = {},
): SystemExportOutcome {
  const c = assertAlgorithmConfig(config);
  if (c.kind !== 'calendar-windows') {
    return {
      ok: false,
      target: 'envoy-global',
      kind: c.kind,
      reason:
        'envoyproxy/ratelimit counts per epoch-aligned second, minute, hour or day in Redis: choose the Envoy global system (calendar windows, epoch) to export it.',
    };
  }
  const domain = options.domain ?? 'rate_limit_lab';
  // The limiter's own shadow_mode (the system parameter), or the option for every descriptor.
  const shadow = options.shadowMode ?? c.shadowMode === true;
  const units = calendarUnits(c);
  // One descriptor entry per unit under remote_address (one key), nested by a generic_key so that
  // several limits apply to the same request (each descriptor is counted and checked on its own).
  const service = {
    domain,
    descriptors: units.map((u) => ({
      key: 'generic_key',
      value: `per_${u.unit}`,
      descriptors: [
        {
          key: 'remote_address',
          rate_limit: { unit: UNIT_NAME[u.unit], requests_per_unit: u.limit },
          ...(shadow ? { shadow_mode: true } : {}),
        },
      ],
    })),
  };
  const envoy = {
    http_filters: [
      {
        name: 'envoy.filters.http.ratelimit',
        typed_config: {
          '@type': 'type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit',
          domain,
          failure_mode_deny: false,
          enable_x_ratelimit_headers: 'DRAFT_VERSION_03',
          rate_limit_service: {
            grpc_service: { envoy_grpc: { cluster_name: 'ratelimit' } },
            transport_api_version: 'V3',
          },
        },
      },
    ],
    route: {
      rate_limits: units.map((u) => ({
        actions: [{ generic_key: { descriptor_value: `per_${u.unit}` } }, { remote_address: {} }],
      })),
    },
  };
  const differences: string[] = [];
  if ((c.align ?? 'calendar') === 'calendar' && (c.month !== undefined || c.year !== undefined)) {
    differences.push(
      'envoyproxy/ratelimit months are 30 days and years 365 days counted from 1970, not calendar months and years.',
    );
  }
  if (c.countRejected !== true) {
    differences.push(
      'envoyproxy/ratelimit counts over-limit hits too (INCRBY before the check), so a client that keeps sending stays over a longer window it shares.',
    );
  }
  if (c.counterTtl === true) differences.push("Kong's counter TTL has no counterpart here.");
  return {
    ok: true,
    target: 'envoy-global',
    language: 'yaml',
    text: `# envoyproxy/ratelimit service config (e.g. /data/ratelimit/config/${domain}.yaml)\n${stringify(service)}---\n# Envoy: the ratelimit HTTP filter and the route's rate_limits (merge into your listener and route)\n${stringify(envoy)}`,
    assumes:
      'envoyproxy/ratelimit with the Redis backend (read at master f2fb157) and Envoy ≥ 1.20 (v3 API)',
    differences,
    notes: [
      'Over-limit requests get 429 with x-envoy-ratelimited: true; enable_x_ratelimit_headers adds x-ratelimit-limit/-remaining/-reset.',
      'shadow_mode: true on a descriptor counts and reports but never rejects: a safe first rollout.',
    ],
  };
}
