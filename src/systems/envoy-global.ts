/**
 * Envoy's global rate limiting: the `ratelimit` HTTP filter calling envoyproxy/ratelimit (master
 * f2fb157, after v1.4.0) with its Redis backend, modelled on the calendar-windows algorithm with
 * epoch-aligned windows that count over-limit hits, and the descriptors' `shadow_mode`.
 */
import type { SystemInfo, SystemParam } from './types';

export const ENVOY_RATELIMIT_VERSION = 'envoyproxy/ratelimit master f2fb157 (v1.4.0+287)';
const V = ENVOY_RATELIMIT_VERSION;

/** One descriptor's status as envoyproxy/ratelimit returns it (base_limiter.go). */
const UNIT_PARAMS: readonly SystemParam[] = (['second', 'minute', 'hour', 'day'] as const).map(
  (unit) => ({
    key: `requests_per_unit (unit: ${unit})`,
    urlKey: unit,
    field: unit,
    help: `A descriptor limit with unit: ${unit.toUpperCase()}; empty: none. Several = several descriptors on one request.`,
    input: 'int',
    optional: { placeholder: '—' },
  }),
);

export const envoyGlobal: SystemInfo = {
  id: 'envoy-global',
  name: 'Envoy global rate limit service (envoyproxy/ratelimit)',
  shortName: 'Envoy ratelimit service',
  version: V,
  group: 'Proxies and gateways',
  kind: 'calendar-windows',
  algorithms: ['calendar-windows'],
  urlName: 'envoy-global',
  summary:
    'A shared Redis counter per descriptor and epoch-aligned window (second, minute, hour, day); every hit is counted, over-limit ones too, and a request over any limit gets 429 (with shadow_mode: 200).',
  // source/common/router/router_ratelimit.cc (Envoy 1.31): a missing request header produces no
  // descriptor (unless skip_if_absent), and source/extensions/filters/http/ratelimit/ratelimit.cc
  // calls the rate limit service only `if (!descriptors.empty())`: the request is not limited.
  emptyKey: 'not-limited',
  params: [
    ...UNIT_PARAMS,
    {
      key: 'month (30 d) / year (365 d)',
      urlKey: 'month',
      field: 'month',
      help: 'unit: MONTH — 30 days from 1970, not a calendar month.',
      input: 'int',
      optional: { placeholder: '—' },
    },
    {
      key: 'shadow_mode',
      field: 'shadowMode',
      help: 'Over a limit: answered OK (0 remaining), still counted.',
      input: 'bool',
      absentMeans: 'false',
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
    'The export sets enable_x_ratelimit_headers: DRAFT_VERSION_03: Envoy then sends x-ratelimit-limit, -remaining and -reset (draft 03), never Retry-After.',
};
