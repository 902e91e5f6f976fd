/**
 * Envoy's global rate limiting: the `ratelimit` HTTP filter calling envoyproxy/ratelimit (master
 * f2fb157, after v1.4.0) with its Redis backend, modelled on the calendar-windows algorithm with
 * epoch-aligned windows that count over-limit hits.
 */
import type { Decision } from '../core';
import { makeResponse, standardFields } from './response';
import type {
  SourceRef,
  SystemHeader,
  SystemInfo,
  SystemParam,
  SystemResponseOptions,
} from './types';

export const ENVOY_RATELIMIT_VERSION = 'envoyproxy/ratelimit master f2fb157 (v1.4.0+287)';
const V = ENVOY_RATELIMIT_VERSION;

export const ENVOY_GLOBAL_SOURCES: readonly SourceRef[] = [
  {
    file: 'src/redis/fixed_cache_impl.go',
    version: V,
    what: 'DoLimit: INCRBY key hits then EXPIRE key unit-seconds, for every descriptor, before any comparison',
  },
  {
    file: 'src/limiter/cache_key.go',
    version: V,
    what: 'the key ends in (now / divider) · divider: epoch-aligned windows, now in whole seconds',
  },
  {
    file: 'src/limiter/base_limiter.go',
    version: V,
    what: 'OVER_LIMIT iff the count after the increment > requests_per_unit; shadow_mode answers OK anyway',
  },
  {
    file: 'src/utils/utilities.go',
    version: V,
    what: 'UnitToDivider: second 1, minute 60, hour 3600, day 86400 (week 7 d, month 30 d, year 365 d)',
  },
  {
    file: 'source/extensions/filters/http/ratelimit/ratelimit.cc (Envoy)',
    version: 'Envoy 1.31',
    what: 'OVER_LIMIT → 429 with x-envoy-ratelimited: true',
  },
];

const UNIT_PARAMS: readonly SystemParam[] = (['second', 'minute', 'hour', 'day'] as const).map(
  (unit) => ({
    key: `requests_per_unit (unit: ${unit})`,
    field: unit,
    help: `A descriptor limit with unit: ${unit.toUpperCase()}; empty: none. Several = several descriptors on one request.`,
    input: 'int',
    optional: { placeholder: '—' },
  }),
);

export const envoyGlobal: SystemInfo = {
  id: 'envoy-global',
  name: 'Envoy global rate limit service (envoyproxy/ratelimit)',
  version: V,
  group: 'Proxies and gateways',
  kind: 'calendar-windows',
  algorithms: ['calendar-windows'],
  urlName: 'envoy-global',
  summary:
    'A shared Redis counter per descriptor and epoch-aligned window (second, minute, hour, day); every hit is counted, over-limit ones too, and a request over any limit gets 429.',
  sources: ENVOY_GLOBAL_SOURCES,
  differences: [
    'One descriptor per unit on one key; real descriptors can each carry their own key (remote_address, a header …).',
    'shadow_mode (answers OK but counts) is in the export; the playground shows the decision without it.',
    'The local over-limit cache (LOCAL_CACHE_SIZE_IN_BYTES, off by default) and STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (off by default) stop counting some over-limit hits; not modelled.',
    'EXPIRATION_JITTER_MAX_SECONDS only lengthens key lifetimes; it does not change decisions.',
    'The service is reached over gRPC: its latency and failure_mode_deny are not modelled.',
  ],
  params: [
    ...UNIT_PARAMS,
    {
      key: 'month (30 d) / year (365 d)',
      field: 'month',
      help: 'unit: MONTH — 30 days from 1970, not a calendar month.',
      input: 'int',
      optional: { placeholder: '—' },
    },
  ],
  defaultConfig: { kind: 'calendar-windows', minute: 10, align: 'epoch', countRejected: true },
  derive(config) {
    // fixed_cache_impl.go: INCRBY before the check (counts over-limit hits); cache_key.go: epoch.
    if (config.kind !== 'calendar-windows') return config;
    const { counterTtl: _t, ...rest } = config;
    void _t;
    return { ...rest, align: 'epoch', countRejected: true };
  },
  standardHeadersHow:
    'Set enable_x_ratelimit_headers: DRAFT_VERSION_03 on the ratelimit filter: Envoy then sends x-ratelimit-limit, -remaining and -reset (shown here in the standard form, marked as added).',
  response(config, decision: Decision, options: SystemResponseOptions = {}) {
    const own: SystemHeader[] =
      decision.outcome === 'reject' ? [{ name: 'x-envoy-ratelimited', value: 'true' }] : [];
    const added = options.standardHeaders === true ? standardFields(config, decision, options) : [];
    return makeResponse(
      decision.outcome === 'reject' ? 429 : 200,
      [...own, ...added],
      ENVOY_GLOBAL_SOURCES,
    );
  },
};
