/**
 * Kong Gateway's `rate-limiting` plugin (Kong 3.10.0, master 22246ef), `local` policy, modelled on
 * the calendar-windows algorithm. Sources: kong/plugins/rate-limiting/handler.lua (access: usage of
 * every configured period, stop when any remaining ≤ 0, headers, increment after the check),
 * policies/init.lua ("local": shm counter per period start, `shm:incr(key, 1, 0,
 * EXPIRATION[period])`), expiration.lua (nominal period lengths), schema.lua (defaults:
 * limit_by consumer, policy local, error_code 429, hide_client_headers false),
 * kong/tools/timestamp.lua (get_timestamps: UTC period starts).
 */
import type { SystemInfo, SystemParam } from './types';

export const KONG_VERSION = 'Kong 3.10.0 (master 22246ef)';
const V = KONG_VERSION;

const LIMIT_PARAMS: readonly SystemParam[] = (
  ['second', 'minute', 'hour', 'day', 'month', 'year'] as const
).map((unit) => ({
  key: unit,
  field: unit,
  help: `Requests per ${unit === 'month' || unit === 'year' ? `calendar ${unit} (UTC)` : unit}; empty: no ${unit} limit.`,
  input: 'int',
  optional: { placeholder: '—' },
}));

export const kong: SystemInfo = {
  id: 'kong',
  name: 'Kong rate-limiting plugin (local policy)',
  version: V,
  group: 'Proxies and gateways',
  kind: 'calendar-windows',
  algorithms: ['calendar-windows'],
  urlName: 'kong',
  summary:
    'Counts passed requests per UTC second, minute, hour, day, month and year at once; a request passes only while every configured period has room.',
  // kong/plugins/rate-limiting/handler.lua, get_identifier: `return identifier or
  // kong.client.get_forwarded_ip()` — a consumer, credential, header or path that is missing falls
  // back to the client's address.
  emptyKey: 'client',
  params: LIMIT_PARAMS,
  // policies/init.lua ("local"): every counter is made by `shm:incr(key, 1, 0,
  // EXPIRATION[period])`, so it always lives for the period's nominal length (expiration.lua: month
  // 30 d, year 365 d) and can end before a 31-day month or a leap year does; schema.lua has no
  // option to turn that off. A config without it (links before this rule) is given it.
  lacks: [
    {
      field: 'counterTtl',
      key: 'counter_ttl',
      neutral: true,
      why: "always gives a counter its period's nominal lifetime (policies/init.lua: shm:incr with EXPIRATION[period], month 30 days, year 365 days; schema.lua has no option to turn it off)",
      always: {
        matters: (c) =>
          c.kind === 'calendar-windows' && (c.month !== undefined || c.year !== undefined),
        changed:
          'this limiter’s counters did not expire, and now do: a month’s count can end after 30 days, a year’s after 365',
      },
    },
  ],
  defaultConfig: { kind: 'calendar-windows', minute: 5, hour: 100, counterTtl: true },
  derive(config) {
    // Kong counts only passed requests, in UTC calendar periods (handler.lua, timestamp.lua), and
    // its counters always expire (above).
    if (config.kind !== 'calendar-windows') return config;
    const { countRejected: _c, align: _a, ...rest } = config;
    void _c;
    void _a;
    return { ...rest, counterTtl: true };
  },
  standardHeadersHow:
    'Kong sends RateLimit-Limit/-Remaining/-Reset and X-RateLimit-*-<Period> itself (unless hide_client_headers), and Retry-After on a 429.',
};
