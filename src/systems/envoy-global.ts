/**
 * Envoy's global rate limiting: the `ratelimit` HTTP filter calling envoyproxy/ratelimit (master
 * f2fb157, after v1.4.0) with its Redis backend, modelled on the calendar-windows algorithm with
 * epoch-aligned windows that count over-limit hits, and the descriptors' `shadow_mode`.
 */
import { UNIT_SECONDS, calendarUnits, floorDiv } from '../core';
import type { AlgorithmConfig, CalendarUnit, Decision, Inspection } from '../core';
import { makeResponse } from './response';
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
    what: 'OVER_LIMIT (0 remaining) iff count after INCRBY > limit; shadow_mode reports it OK',
  },
  {
    file: 'src/service/ratelimit.go',
    version: V,
    what: 'overall OVER_LIMIT iff a descriptor is; SHADOW_MODE=true reports OK for all',
  },
  {
    file: 'src/utils/utilities.go',
    version: V,
    what: 'UnitToDivider (month 30 d, year 365 d); CalculateReset = divider − now mod divider (s)',
  },
  {
    file: 'source/extensions/filters/http/ratelimit/ratelimit.cc (Envoy)',
    version: 'Envoy 1.31',
    what: 'OVER_LIMIT → 429 with x-envoy-ratelimited: true',
  },
  {
    file: 'source/extensions/filters/http/ratelimit/ratelimit_headers.cc (Envoy)',
    version: 'Envoy 1.31',
    what: 'x-ratelimit-* of the status with least remaining, "<rpu>;w=<s>" each',
  },
];

/** One descriptor's status as envoyproxy/ratelimit returns it (base_limiter.go). */
export interface EnvoyDescriptorStatus {
  unit: CalendarUnit;
  requestsPerUnit: number;
  /** limit_remaining: 0 when over the limit, else requests_per_unit − count. */
  remaining: number;
  /** duration_until_reset in whole seconds (utilities.go CalculateReset). */
  resetS: number;
}

/**
 * The per-descriptor statuses of one request, from the key's state just before it (`before`, the
 * limiter's inspection at the decision time): every descriptor is incremented
 * (fixed_cache_impl.go), then compared (base_limiter.go). Times are the service's whole seconds.
 * Without `before` every status gets the decision's remaining (the first unit is then reported).
 */
export function envoyDescriptorStatuses(
  config: AlgorithmConfig,
  decision: Decision,
  nowMs: number,
  before?: Inspection,
): EnvoyDescriptorStatus[] {
  if (config.kind !== 'calendar-windows') return [];
  const w = before?.kind === 'calendar-windows' ? before : undefined;
  const nowS = floorDiv(w?.effectiveNowMs ?? nowMs, 1000);
  return calendarUnits(config).map((u) => {
    // The counter after this hit's INCRBY; over the limit, limit_remaining is 0.
    const count = (w?.windows.find((x) => x.unit === u.unit)?.count ?? 0) + 1;
    const divider = UNIT_SECONDS[u.unit];
    return {
      unit: u.unit,
      requestsPerUnit: u.limit,
      remaining: w === undefined ? decision.remaining : Math.max(0, u.limit - count),
      resetS: divider - (nowS - floorDiv(nowS, divider) * divider),
    };
  });
}

/**
 * The headers Envoy's ratelimit filter adds with `enable_x_ratelimit_headers: DRAFT_VERSION_03`
 * (ratelimit_headers.cc XRateLimitHeaderUtils::create): the status with the least limit_remaining
 * (the first one on a tie) gives x-ratelimit-limit's first item, -remaining and -reset; every
 * descriptor adds `, <requests_per_unit>;w=<unit in seconds>` (no `name`: the export names none).
 */
export function envoyGlobalXRateLimitHeaders(
  statuses: readonly EnvoyDescriptorStatus[],
): SystemHeader[] {
  let min: EnvoyDescriptorStatus | undefined;
  for (const st of statuses) if (min === undefined || st.remaining < min.remaining) min = st;
  if (min === undefined) return [];
  const policy = statuses
    .map((st) => `, ${st.requestsPerUnit};w=${UNIT_SECONDS[st.unit]}`)
    .join('');
  return [
    { name: 'x-ratelimit-limit', value: `${min.requestsPerUnit}${policy}`, added: true },
    { name: 'x-ratelimit-remaining', value: String(min.remaining), added: true },
    { name: 'x-ratelimit-reset', value: String(min.resetS), added: true },
  ];
}

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
  sources: ENVOY_GLOBAL_SOURCES,
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
  response(config, decision: Decision, options: SystemResponseOptions = {}) {
    const own: SystemHeader[] =
      decision.outcome === 'reject' ? [{ name: 'x-envoy-ratelimited', value: 'true' }] : [];
    if (options.standardHeaders === true) {
      own.push(
        ...envoyGlobalXRateLimitHeaders(
          envoyDescriptorStatuses(config, decision, options.nowMs ?? 0, options.before),
        ),
      );
    }
    return makeResponse(decision.outcome === 'reject' ? 429 : 200, own, ENVOY_GLOBAL_SOURCES);
  },
};
