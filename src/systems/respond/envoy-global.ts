/**
 * What Envoy's global rate limit filter sends with envoyproxy/ratelimit (envoy-global.ts has the model).
 */
import { UNIT_SECONDS, calendarUnits, floorDiv } from '../../core';
import type { AlgorithmConfig, CalendarUnit, Decision, Inspection } from '../../core';
import { ENVOY_GLOBAL_SOURCES } from '../sources/envoy-global';
import { makeResponse } from '../response';
import type { SystemHeader, SystemResponse, SystemResponseOptions } from '../types';

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
 * (fixed_cache_impl.go), then compared (base_limiter.go). Times are the service's whole unix
 * seconds: duration_until_reset is divider − now mod divider (utilities.go CalculateReset), with
 * now on the clock the limiter's windows were placed on — `epochMs` (a replayed log's first
 * request, the origin its windows were placed from; 0 for the playground's own traffic, whose
 * windows start at its time 0) plus the request's time — so a log that does not start on a window's
 * edge gets the reset the service would have sent then. Without `before` every status gets the
 * decision's remaining (the first unit is then reported).
 */
export function envoyDescriptorStatuses(
  config: AlgorithmConfig,
  decision: Decision,
  options: Pick<SystemResponseOptions, 'nowMs' | 'epochMs'>,
  before?: Inspection,
): EnvoyDescriptorStatus[] {
  if (config.kind !== 'calendar-windows') return [];
  const w = before?.kind === 'calendar-windows' ? before : undefined;
  const nowS = floorDiv((options.epochMs ?? 0) + (w?.effectiveNowMs ?? options.nowMs ?? 0), 1000);
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

/** What envoyGlobal sends for `decision` (SystemModel.response). */
export function envoyGlobalResponse(
  config: AlgorithmConfig,
  decision: Decision,
  options: SystemResponseOptions = {},
): SystemResponse {
  const own: SystemHeader[] =
    decision.outcome === 'reject' ? [{ name: 'x-envoy-ratelimited', value: 'true' }] : [];
  if (options.standardHeaders === true) {
    own.push(
      ...envoyGlobalXRateLimitHeaders(
        envoyDescriptorStatuses(config, decision, options, options.before),
      ),
    );
  }
  return makeResponse(decision.outcome === 'reject' ? 429 : 200, own, ENVOY_GLOBAL_SOURCES);
}
